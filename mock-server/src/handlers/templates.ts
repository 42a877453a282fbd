// New documents and templates (issue #16 item 6). A blank Word, Excel or PowerPoint document is built by a maintained
// OOXML writer (docx, write-excel-file, pptxgenjs), a blank text file is empty; an administrator's template is an
// uploaded document whose content the template shares (a blob reference). Either is filed the way an upload is: an
// upload session reserves the quota, the bytes are stored at its key (or an equal content is reused), and
// registerFile files it and charges the space.
import { createHash } from 'node:crypto';
import type { AppContext, Handlers } from '../context.ts';
import { done, ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { transaction } from '../db/sql/tx.ts';
import { addBlobRefs, collectBlob, getBlob, lockBlobBySha, upsertVerifiedBlob } from '../db/blobs-repo.ts';
import { addTemplate, blobExists, deleteTemplate, getTemplate, listTemplates, type TemplateKind } from '../db/templates-repo.ts';
import { getLive, nameTaken } from '../db/instances-repo.ts';
import { assertFits } from '../db/quota.ts';
import { createSession, endSession } from '../db/uploads-repo.ts';
import { callerOf, resolveFolder } from '../files/access.ts';
import { decodeWireName, extensionOf, assertValidName } from '../files/names.ts';
import { registerFile } from '../files/register.ts';
import { viewOf } from '../files/wire.ts';
import { personalise } from './labels.ts';
import { uploadPlace } from '../storage/routing.ts';

export type OfficeKind = TemplateKind;
const KINDS: readonly OfficeKind[] = ['docx', 'xlsx', 'pptx', 'txt'];
const BUILT_IN_PREFIX = 'blank-';
const BUILT_IN_NAMES: Record<OfficeKind, string> = { docx: 'Word document', xlsx: 'Excel workbook', pptx: 'PowerPoint presentation', txt: 'Text file' };

/**
 * A valid empty document of the kind, as its writer library builds it. The writers (docx, write-excel-file,
 * pptxgenjs and the zip libraries under them) load with the first document of their kind, not at the server's start.
 */
export async function blankDocument(kind: OfficeKind): Promise<Buffer> {
  switch (kind) {
    case 'docx': {
      const { Document, Packer, Paragraph } = await import('docx');
      return Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('')] }] }));
    }
    case 'xlsx':
      return (await import('write-excel-file/node')).default([[null]], { sheet: 'Sheet1' }).toBuffer();
    case 'pptx': {
      const PptxGenJS = (await import('pptxgenjs')).default;
      // pptxgenjs is CommonJS with a default export; under Node's ESM loader the class may sit one level down.
      const Ctor = ((PptxGenJS as unknown as { default?: unknown }).default ?? PptxGenJS) as new () => {
        addSlide(): unknown;
        write(o: { outputType: 'nodebuffer' }): Promise<unknown>;
      };
      const pres = new Ctor();
      pres.addSlide();
      return (await pres.write({ outputType: 'nodebuffer' })) as Buffer;
    }
    case 'txt':
      return Buffer.alloc(0);
  }
}

export function templatesHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  return {
    async listTemplates(req) {
      callerOf(req.user);
      return ok([
        ...KINDS.map((kind) => ({ templateId: `${BUILT_IN_PREFIX}${kind}`, name: BUILT_IN_NAMES[kind], kind, fSize: 0, createTime: 0, builtIn: true })),
        ...(await listTemplates(db)).map((t) => ({ templateId: t.id, name: t.name, kind: t.kind, fSize: t.size, createTime: t.createdAt, builtIn: false })),
      ]);
    },

    // The gate checked `view` on body.instanceId; offering templates to everyone is the administrators' alone.
    async addTemplate(req) {
      const user = callerOf(req.user);
      if (!user.isAdmin) throw new AppError('FORBIDDEN', 'only administrators add templates');
      const row = await getLive(db, req.body.instanceId);
      const kind = extensionOf(row.name) as OfficeKind;
      if (row.isFolder || !KINDS.includes(kind) || !row.blobId) {
        throw new AppError('VALIDATION_FAILED', 'a template is a .docx, .xlsx, .pptx or .txt file', { fields: [{ field: 'instanceId', message: 'type' }] });
      }
      const name = req.body.name?.trim() || row.name.slice(0, -(kind.length + 1));
      const t = await addTemplate(db, { name, kind, blobId: row.blobId, size: row.size, createdBy: user.userId });
      return ok({ templateId: t.id, name, kind, fSize: t.size, createTime: t.createdAt, builtIn: false });
    },

    async deleteTemplate(req) {
      callerOf(req.user);
      const gone = await deleteTemplate(db, req.params.id);
      if (gone.left === 0) {
        const blob = await getBlob(db, gone.blobId);
        if (blob) await collectBlob(db, ctx.store(), blob.sha256).catch((err: unknown) => req.log.warn({ err }, 'template blob left for the sweeper'));
      }
      return done();
    },

    // The gate checked `create` on body.parentId.
    async createOfficeFile(req) {
      const user = callerOf(req.user);
      const b = req.body;
      let kind: OfficeKind = b.kind ?? 'docx';
      let content: { bytes: Buffer } | { blobId: string; size: number; sha256: string };
      if (b.templateId === undefined || b.templateId.startsWith(BUILT_IN_PREFIX)) {
        if (b.templateId !== undefined) {
          const k = b.templateId.slice(BUILT_IN_PREFIX.length) as OfficeKind;
          if (!KINDS.includes(k)) throw new AppError('NOT_FOUND', 'no such template');
          kind = k;
        }
        content = { bytes: await blankDocument(kind) };
      } else {
        const t = await getTemplate(db, b.templateId);
        const blob = t && (await getBlob(db, t.blobId));
        if (!t || !blob) throw new AppError('NOT_FOUND', 'no such template');
        kind = t.kind;
        content = { blobId: blob.id, size: blob.size, sha256: blob.sha256 };
      }
      let name = decodeWireName(b.instanceName);
      if (extensionOf(name) !== kind) name = assertValidName(`${name}.${kind}`);
      const parent = await resolveFolder(db, user, b.parentId, b.libCode, b.instanceType, 'write');
      if (b.conflict === 'fail' && (await nameTaken(db, parent.id, name))) {
        throw new AppError('NAME_EXISTS', `"${name}" already exists in this folder`, { fields: [{ field: 'instanceName', message: 'exists' }] });
      }
      const size = 'bytes' in content ? content.bytes.length : content.size;
      const sha256 = 'bytes' in content ? createHash('sha256').update(content.bytes).digest('hex') : content.sha256;
      // A new document is a new upload of its library: stored where the library's policy says.
      const { store, sse, connectionId } = await uploadPlace(ctx, parent.libCode);
      const space = { kind: parent.spaceKind, id: parent.spaceId };
      const session = await transaction(db, async (trx) => {
        await assertFits(trx, space, size);
        return createSession(trx, {
          userId: user.userId, spaceKind: space.kind, spaceId: space.id, parentId: parent.id, libCode: parent.libCode, name, size, sha256,
          bucket: store.bucket, connectionId, conflict: 'keepBoth', existingId: null, reservedBytes: size,
        });
      });
      let stored = false;
      try {
        if ('bytes' in content && !(await blobExists(db, sha256))) {
          await store.putObject(session.objectKey, content.bytes, { contentLength: size, sse });
          stored = true;
        }
        const row = await transaction(db, async (trx) => {
          const known = await lockBlobBySha(trx, sha256);
          if (!known && !stored) {
            // Collected since it was looked up: store this copy after all (a template's blob never is; it holds a reference).
            if (!('bytes' in content)) throw new AppError('NOT_FOUND', 'no such template');
            await store.putObject(session.objectKey, content.bytes, { contentLength: size, sse });
            stored = true;
          }
          const blob = await upsertVerifiedBlob(trx, { sha256, size, bucket: store.bucket, connectionId, objectKey: known?.objectKey ?? session.objectKey });
          await addBlobRefs(trx, blob.id, 1);
          return registerFile(trx, session, blob.id, name, user.userId, stored ? { keyIsBlob: blob.objectKey === session.objectKey } : undefined);
        });
        if (row.cleanup) await store.deleteObject(session.objectKey).catch(() => undefined);
        const [view] = await personalise(db, user, [await viewOf(db, row)]);
        return ok(view!);
      } catch (err) {
        const cleanup = await transaction(db, (trx) => endSession(trx, session.id, { filed: false, stored })).catch(() => false);
        if (cleanup) await store.deleteObject(session.objectKey).catch(() => undefined);
        throw err;
      }
    },
  };
}
