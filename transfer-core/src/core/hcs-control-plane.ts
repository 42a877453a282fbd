// ControlPlane over the typed /hcs client (web and CLI share it). Names are encoded here (Base64 with the spec's
// _x/_j/_d replacements) so the engine only ever handles plain names.
import { encodeName, unwrap, type HcsClient } from '@hcs/openapi/client';
import type { ControlPlane } from '../ports/index.ts';

function required<T>(v: T | null | undefined, what: string): T {
  if (v === null || v === undefined) throw new Error(`${what}: empty reply data`);
  return v;
}

export function createHcsControlPlane(client: HcsClient): ControlPlane {
  return {
    async checkFileExist(q, signal) {
      const env = unwrap(await client.GET('/hcs/controller/API/check-file-exist', { params: { query: { parentId: q.parentId, instanceName: encodeName(q.name), fileSharingId: q.fileSharingId } }, signal }));
      const d = env.data;
      return { exists: d?.data === 1, instanceId: d?.instanceId ?? (d?.data === 1 ? env.msg || null : null), classifierId: d?.classifierId ?? null };
    },
    async getFileUploadable(q, signal) {
      const query = {
        fSize: q.fSize,
        fName: encodeName(q.fName),
        fMd5: q.fMd5,
        category: q.category,
        platformId: q.platformId,
        parentId: q.parentId,
        fileSharingId: q.fileSharingId,
        instanceType: q.instanceType,
        conflict: q.conflict,
      };
      return required(unwrap(await client.GET('/hcs/controller/API/file-uploadable', { params: { query }, signal })).data, 'getFileUploadable');
    },
    async signStorageRequest(q, signal) {
      return required(unwrap(await client.GET('/hcs/controller/API/S3Cloud/StringToSign', { params: { query: q }, signal })).data, 'signStorageRequest');
    },
    async secondTransfer(b, signal) {
      const body = {
        fId: b.fId,
        instanceId: b.fId,
        proofId: b.proofId,
        proof: b.proof,
        instanceName: encodeName(b.instanceName),
        parentId: b.parentId,
        platformId: b.platformId,
        instanceType: b.instanceType,
        category: b.category,
        sourceType: 'HIK_web',
        ...(b.attrs ? { attrs: b.attrs } : {}),
      };
      const inst = required(unwrap(await client.POST('/hcs/controller/API/second-transfer', { body, signal })).data, 'secondTransfer');
      return { instanceId: inst.instanceId };
    },
    async initPartInfo(b, signal) {
      unwrap(await client.POST('/hcs/controller/API/initPartInfo', { body: b, signal }));
    },
    async setPartInfo(b, signal) {
      unwrap(await client.POST('/hcs/controller/API/setPartInfo', { body: b, signal }));
    },
    async getPartInfo(q, signal) {
      const query = 'fId' in q ? { fId: q.fId } : { fMd5: q.fMd5, parentId: q.parentId, fName: encodeName(q.fName) };
      return unwrap(await client.GET('/hcs/controller/API/getPartInfo', { params: { query }, signal })).data ?? null;
    },
    async deletePartInfo(b, signal) {
      unwrap(await client.POST('/hcs/controller/API/deletePartInfo', { body: b, signal }));
    },
    async destroyPartInfo(b, signal) {
      unwrap(await client.POST('/hcs/controller/API/destroyPartInfo', { body: b, signal }));
    },
    async saveInstance(b, signal) {
      const body = {
        fId: b.fId,
        fMd5: b.fMd5,
        fSize: b.fSize,
        objectKey: b.objectKey,
        fName: encodeName(b.fName),
        bucketName: b.bucketName,
        fType: extensionOf(b.fName),
        category: b.category,
        partSize: b.partSize,
        partNum: b.partNum,
        lastPartSize: b.lastPartSize,
        platformId: b.platformId,
        parentId: b.parentId,
        instanceType: b.instanceType,
        uploadSpeed: b.uploadSpeed,
        encryption: '',
        classifierId: 'File' as const,
        sourceType: 'HIK_web',
        ...(b.attrs ? { attrs: b.attrs } : {}),
      };
      const inst = required(unwrap(await client.POST('/hcs/controller/API/save-instance', { body, signal })).data, 'saveInstance');
      return { instanceId: inst.instanceId };
    },
    async bulkUpload(req, signal) {
      const manifest = {
        parentId: req.parentId,
        category: req.category,
        instanceType: req.instanceType,
        conflict: req.conflict,
        files: req.files.map((f) => ({ fName: encodeName(f.name), fSize: f.size, fMd5: f.sha256, parentId: f.parentId })),
      };
      // The contract's framing: the manifest line, then every file's bytes in order. A Blob keeps the parts as
      // they are (no concatenation here) and gives fetch the exact Content-Length.
      const body = new Blob([JSON.stringify(manifest) + '\n', ...(req.bodies as BlobPart[])], { type: 'application/octet-stream' });
      const res = unwrap(
        await client.POST('/hcs/controller/API/bulk-upload', {
          body: body as unknown as string,
          bodySerializer: (b: unknown) => b as Blob,
          headers: { 'Content-Type': 'application/octet-stream' },
          signal,
        }),
      );
      const files = required(res.data, 'bulkUpload').files;
      if (files.length !== req.files.length) throw new Error(`bulkUpload: ${files.length} results for ${req.files.length} files`);
      return files;
    },
    async getDownloadFileInfo(q, signal) {
      return required(unwrap(await client.GET('/hcs/controller/API/getDownloadFileInfo', { params: { query: q }, signal })).data, 'getDownloadFileInfo');
    },
    async getCloudProvider(q, signal) {
      return required(unwrap(await client.GET('/hcs/controller/API/getCloudProvider', { params: { query: q }, signal })).data, 'getCloudProvider');
    },
  };
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase().slice(0, 32) : '';
}
