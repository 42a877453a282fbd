// Administrators' document templates (issue #16 item 6). A template holds one reference on its content's blob
// (counted by countBlobReferences), so the content outlives the file it was made from.
import type { Db } from './sql/tx.ts';
import { atomically } from './sql/tx.ts';
import { addBlobRefs, dropBlobRefs } from './blobs-repo.ts';
import { newId } from '../ids.ts';
import { AppError } from '../http/errors.ts';
import type { TemplatesTable } from './sql/schema.ts';

export type TemplateKind = TemplatesTable['kind'];

export interface TemplateRow {
  id: string;
  name: string;
  kind: TemplateKind;
  blobId: string;
  size: number;
  createdAt: number;
}

const COLS = ['id', 'name', 'kind', 'blob_id', 'size', 'created_at'] as const;
type Raw = Pick<TemplatesTable, (typeof COLS)[number]>;
const map = (r: Raw): TemplateRow => ({ id: r.id, name: r.name, kind: r.kind, blobId: r.blob_id, size: r.size, createdAt: r.created_at });

export async function listTemplates(db: Db): Promise<TemplateRow[]> {
  return (await db.selectFrom('templates').select(COLS).orderBy('name').orderBy('id').execute()).map(map);
}

export async function getTemplate(db: Db, id: string): Promise<TemplateRow | undefined> {
  const r = await db.selectFrom('templates').select(COLS).where('id', '=', id).executeTakeFirst();
  return r && map(r);
}

export async function addTemplate(db: Db, t: { name: string; kind: TemplateKind; blobId: string; size: number; createdBy: string }): Promise<TemplateRow> {
  const row = { id: newId(), name: t.name, kind: t.kind, blob_id: t.blobId, size: t.size, created_by: t.createdBy, created_at: Date.now() };
  await atomically(db, async (trx) => {
    await addBlobRefs(trx, t.blobId, 1);
    await trx.insertInto('templates').values(row).execute();
  });
  return map(row);
}

/** Deletes a template; returns its blob and the references left on it (0: collect it once committed). */
export async function deleteTemplate(db: Db, id: string): Promise<{ blobId: string; left: number }> {
  return atomically(db, async (trx) => {
    const t = await trx.deleteFrom('templates').where('id', '=', id).returning(['blob_id']).executeTakeFirst();
    if (!t) throw new AppError('NOT_FOUND', 'no such template');
    return { blobId: t.blob_id, left: await dropBlobRefs(trx, t.blob_id, 1) };
  });
}

/** Whether some blob holds this content already (a new document then shares it instead of storing a copy). */
export async function blobExists(db: Db, sha256: string): Promise<boolean> {
  return (await db.selectFrom('blobs').select('id').where('sha256', '=', sha256).executeTakeFirst()) !== undefined;
}
