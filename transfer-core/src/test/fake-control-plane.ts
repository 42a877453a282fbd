// An in-memory /hcs upload/download protocol over FakeS3, behaving like the contract describes: sessions, quota,
// proof of possession, server-side hash check at save-instance. Faults are injected per operation.
import { createHash } from 'node:crypto';
import { HcsError } from '@hcs/openapi/client';
import type { ControlPlane, UploadSession } from '../ports/index.ts';
import { planParts } from '../core/part-size.ts';
import { resourceUri } from '../core/s3.ts';
import type { FakeS3 } from './fake-s3.ts';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const BUCKET = 'drive';

interface File {
  instanceId: string;
  name: string;
  parentId: string;
  hash: string;
  size: number;
  key: string;
}

export class FakeControlPlane implements ControlPlane {
  readonly s3: FakeS3;
  readonly calls: string[] = [];
  readonly sessions = new Map<string, UploadSession & { syncSpeed: number }>();
  readonly files = new Map<string, File>();
  readonly proofs = new Map<string, { hash: string; offset: number; length: number }>();
  readonly #faults = new Map<string, unknown[]>();
  quota = Infinity;
  partSize: number | undefined;
  syncSpeed = 104_857_600;
  /** Lets a test corrupt what the server computes at save-instance. */
  lieAboutHash = false;
  #seq = 0;

  constructor(s3: FakeS3) {
    this.s3 = s3;
  }

  /** The next `times` calls of op throw err. */
  failNext(op: keyof ControlPlane, err: unknown, times = 1): void {
    const list = this.#faults.get(op) ?? [];
    for (let i = 0; i < times; i++) list.push(err);
    this.#faults.set(op, list);
  }

  #enter(op: string): void {
    this.calls.push(op);
    const err = this.#faults.get(op)?.shift();
    if (err) throw err;
  }

  #used(): number {
    let n = 0;
    for (const f of this.files.values()) n += f.size;
    for (const s of this.sessions.values()) n += s.fSize;
    return n;
  }

  /** Stores a file directly (as if uploaded earlier), for instant transfer and download tests. */
  seedFile(name: string, data: Uint8Array, parentId = 'root'): string {
    const instanceId = `i${++this.#seq}`;
    const key = `blobs/${sha256(data)}`;
    this.s3.objects.set(`/${BUCKET}/${key}`, data);
    this.files.set(instanceId, { instanceId, name, parentId, hash: sha256(data), size: data.byteLength, key });
    return instanceId;
  }

  async checkFileExist(q: { parentId?: string; name: string }) {
    this.#enter('checkFileExist');
    const f = [...this.files.values()].find((x) => x.name === q.name && x.parentId === (q.parentId ?? 'root'));
    return { exists: !!f, instanceId: f?.instanceId ?? null, classifierId: f ? ('File' as const) : null };
  }

  async getFileUploadable(q: { fSize: number; fName: string; fMd5: string; parentId?: string }) {
    this.#enter('getFileUploadable');
    const existing = [...this.files.values()].find((f) => f.hash === q.fMd5 && f.size === q.fSize);
    const fId = `f${++this.#seq}`;
    if (existing) {
      const proofId = `p${++this.#seq}`;
      const offset = Math.floor(q.fSize / 3);
      const length = Math.min(4096, q.fSize - offset);
      this.proofs.set(proofId, { hash: existing.hash, offset, length });
      return { uploadflag: 1 as const, fId, proof: { proofId, offset, length } };
    }
    if (this.#used() + q.fSize > this.quota) return { uploadflag: 2 as const };
    const plan = planParts(q.fSize, this.partSize);
    const s = {
      fId,
      objectKey: `staging/${fId}`,
      bucketName: BUCKET,
      fSize: q.fSize,
      fMd5: q.fMd5,
      fName: q.fName,
      parentId: q.parentId ?? 'root',
      partSize: plan.partSize,
      partCount: plan.partCount,
      uploadId: null,
      parts: [],
      createTime: Date.now(),
      syncSpeed: this.syncSpeed,
    };
    this.sessions.set(fId, s);
    return { uploadflag: 3 as const, fId, objectKey: s.objectKey, bucketName: BUCKET, partSize: s.partSize, partCount: s.partCount, syncSpeed: this.syncSpeed, host: 'http://s3.test', region: 'us-east-1', cloudProvider: 's3' as const };
  }

  async signStorageRequest(q: { httpVerb: string; bucketName: string; resourceUri: string; action: string; fId?: string }) {
    this.#enter('signStorageRequest');
    // The server signs only what the caller may touch: a session's staging key, or a file it may read.
    const path = decodeURIComponent(q.resourceUri.split('?')[0]!);
    const s = q.fId ? this.sessions.get(q.fId) : undefined;
    const f = q.fId ? this.files.get(q.fId) : undefined;
    const allowed = (s && path === `/${s.bucketName}/${s.objectKey}`) || (f && q.action === 'getObject' && path === `/${BUCKET}/${f.key}`);
    if (!allowed) throw new HcsError(403, 1, 'forbidden', 'FORBIDDEN');
    return { host: 'http://s3.test', url: `http://s3.test${q.resourceUri}`, authorization: 'AWS4-HMAC-SHA256 Credential=fake', date: '20250101T000000Z', bucketName: q.bucketName, contentSha256: 'UNSIGNED-PAYLOAD' as const };
  }

  async secondTransfer(b: { fId: string; proofId: string; proof: string; instanceName: string; parentId?: string }) {
    this.#enter('secondTransfer');
    const p = this.proofs.get(b.proofId);
    this.proofs.delete(b.proofId);
    const blob = p && [...this.files.values()].find((f) => f.hash === p.hash);
    if (!p || !blob) throw new HcsError(403, 1, 'proof rejected', 'PROOF_REJECTED');
    const data = this.s3.objects.get(`/${BUCKET}/${blob.key}`)!;
    if (sha256(data.subarray(p.offset, p.offset + p.length)) !== b.proof) throw new HcsError(403, 1, 'proof rejected', 'PROOF_REJECTED');
    const instanceId = `i${++this.#seq}`;
    this.files.set(instanceId, { ...blob, instanceId, name: b.instanceName, parentId: b.parentId ?? 'root' });
    return { instanceId };
  }

  #session(fId: string) {
    const s = this.sessions.get(fId);
    if (!s) throw new HcsError(404, 1, 'no session', 'UPLOAD_SESSION_MISSING');
    return s;
  }

  async initPartInfo(b: { fId: string; uploadId: string }) {
    this.#enter('initPartInfo');
    const s = this.#session(b.fId);
    s.uploadId = b.uploadId;
    s.parts = [];
  }

  async setPartInfo(b: { fId: string; parts: Array<{ partNumber: number; etag: string; size: number }> }) {
    this.#enter('setPartInfo');
    const s = this.#session(b.fId);
    for (const p of b.parts) s.parts = [...s.parts.filter((x) => x.partNumber !== p.partNumber), p];
  }

  async getPartInfo(q: { fId: string } | { fMd5: string; parentId?: string; fName: string }) {
    this.#enter('getPartInfo');
    if ('fId' in q) return structuredClone(this.sessions.get(q.fId) ?? null);
    const s = [...this.sessions.values()].find((x) => x.fMd5 === q.fMd5 && x.parentId === (q.parentId ?? 'root') && x.fName === q.fName);
    return structuredClone(s ?? null);
  }

  async deletePartInfo(b: { fId: string }) {
    this.#enter('deletePartInfo');
    this.#session(b.fId).parts = [];
  }

  async destroyPartInfo(b: { fId: string; abort?: boolean }) {
    this.#enter('destroyPartInfo');
    const s = this.sessions.get(b.fId);
    if (s && b.abort) {
      if (s.uploadId) this.s3.uploads.delete(s.uploadId);
      this.s3.objects.delete(`/${s.bucketName}/${s.objectKey}`);
    }
    this.sessions.delete(b.fId);
  }

  async saveInstance(b: { fId: string; fMd5: string; fSize: number; objectKey: string; fName: string; parentId?: string }) {
    this.#enter('saveInstance');
    const s = this.#session(b.fId);
    const data = this.s3.objects.get(`/${s.bucketName}/${s.objectKey}`);
    if (!data || data.byteLength !== b.fSize) throw new HcsError(400, 1, 'object missing', 'VALIDATION_FAILED');
    if (this.lieAboutHash || sha256(data) !== b.fMd5) throw new HcsError(200, 404, 'hash mismatch', 'HASH_MISMATCH');
    const key = `blobs/${b.fMd5}`;
    this.s3.objects.set(`/${BUCKET}/${key}`, data);
    this.s3.objects.delete(`/${s.bucketName}/${s.objectKey}`);
    this.sessions.delete(b.fId);
    const instanceId = `i${++this.#seq}`;
    this.files.set(instanceId, { instanceId, name: b.fName, parentId: b.parentId ?? 'root', hash: b.fMd5, size: b.fSize, key });
    return { instanceId };
  }

  async getDownloadFileInfo(q: { instanceId: string }) {
    this.#enter('getDownloadFileInfo');
    const f = this.files.get(q.instanceId);
    if (!f) throw new HcsError(404, 1, 'not found', 'NOT_FOUND');
    const plan = planParts(f.size, this.partSize);
    return {
      fileId: f.hash,
      instanceId: f.instanceId,
      fMd5: f.hash,
      bucketName: BUCKET,
      filename: f.name,
      fileSize: f.size,
      partSize: plan.partSize,
      partNum: plan.partCount,
      lastPartSize: plan.lastPartSize,
      objectKey: f.key,
      resourceUri: resourceUri(BUCKET, f.key),
      fileType: 's3' as const,
      encryption: '',
      host: 'http://s3.test',
    };
  }

  async getCloudProvider() {
    this.#enter('getCloudProvider');
    return { cloudProvider: 's3' as const, host: 'http://s3.test', region: 'us-east-1', bucketName: BUCKET, pathStyle: true };
  }
}
