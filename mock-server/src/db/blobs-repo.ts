// Content-addressed blobs with reference counts. References are instance rows (live or in the recycle bin)
// and history versions. A blob whose count reaches 0 is garbage. Filing content and collecting garbage both lock
// the blob's row first (lockBlobBySha, FOR UPDATE on PostgreSQL; SQLite's IMMEDIATE transaction serialises them
// anyway), so on any number of nodes an upload can never reference an object whose deletion has begun: the
// collector deletes the row before the object, and a filer that comes after finds no row and keeps its own key.
import { sql, type Selectable } from 'kysely';
import type { Db } from './sql/tx.ts';
import { forUpdate, transaction } from './sql/tx.ts';
import type { BlobsTable } from './sql/schema.ts';
import { newId } from '../ids.ts';

export interface BlobRow {
  id: string;
  sha256: string;
  size: number;
  bucket: string;
  objectKey: string;
  refCount: number;
  verified: boolean;
  /** The storage connection holding the object, with `bucket` ('0' = the server's own store). */
  connectionId: string;
}

const COLS = ['id', 'sha256', 'size', 'bucket', 'object_key', 'ref_count', 'verified', 'connection_id'] as const;

function map(r: Pick<Selectable<BlobsTable>, (typeof COLS)[number]> | undefined): BlobRow | undefined {
  if (!r) return undefined;
  return {
    id: r.id, sha256: r.sha256, size: r.size, bucket: r.bucket, objectKey: r.object_key, refCount: r.ref_count, verified: r.verified === 1,
    connectionId: r.connection_id,
  };
}

export async function getBlob(db: Db, id: string): Promise<BlobRow | undefined> {
  return map(await db.selectFrom('blobs').select(COLS).where('id', '=', id).executeTakeFirst());
}

/** The blob, its row locked until the transaction `db` ends (filing a reference to it). */
export async function lockBlob(db: Db, id: string): Promise<BlobRow | undefined> {
  return map(await forUpdate(db, db.selectFrom('blobs').select(COLS).where('id', '=', id)).executeTakeFirst());
}

export async function findBlobBySha(db: Db, sha256: string): Promise<BlobRow | undefined> {
  return map(await db.selectFrom('blobs').select(COLS).where('sha256', '=', sha256).executeTakeFirst());
}

/** The blob of this content, its row locked until the transaction `db` ends: filing or collecting it. */
export async function lockBlobBySha(db: Db, sha256: string): Promise<BlobRow | undefined> {
  return map(await forUpdate(db, db.selectFrom('blobs').select(COLS).where('sha256', '=', sha256)).executeTakeFirst());
}

/** A blob that may serve instant transfer: the server hashed its stored bytes itself, and it is not garbage. */
export async function findInstantBlob(db: Db, sha256: string, size: number): Promise<BlobRow | undefined> {
  const b = await findBlobBySha(db, sha256);
  return b && b.verified && b.size === size && b.refCount > 0 ? b : undefined;
}

/**
 * A blob that may serve instant transfer to this user: an instant blob whose content the user can already read.
 * Instant transfer (and bulk-upload's "instant") is answered only for such content, so the protocol never tells
 * anyone that content they cannot read is stored (issue #11, finding 4); other content is uploaded and then
 * deduplicated once its bytes arrived and were hashed (save-instance). Reachable today: a file of the user's own
 * space, live or in its recycle bin. Spaces the user may read (department, group, shared to them) go here too,
 * and only here.
 */
export async function findReachableBlob(db: Db, userId: string, sha256: string, size: number): Promise<BlobRow | undefined> {
  const r = await db
    .selectFrom('blobs as b')
    .select(COLS.map((c) => `b.${c}` as const))
    .where('b.sha256', '=', sha256)
    .where('b.verified', '=', 1)
    .where('b.size', '=', size)
    .where('b.ref_count', '>', 0)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('instances as i')
          .select(sql<number>`1`.as('one'))
          .whereRef('i.blob_id', '=', 'b.id')
          .where('i.space_kind', '=', 'user')
          .where('i.space_id', '=', userId),
      ),
    )
    .executeTakeFirst();
  return map(r);
}

/** findReachableBlob for a batch: the keys `sha256:size` of those contents this user may be answered "instant" for. */
export async function findReachableBlobs(db: Db, userId: string, items: { sha256: string; size: number }[]): Promise<Set<string>> {
  const out = new Set<string>();
  const shas = [...new Set(items.map((x) => x.sha256))];
  for (let i = 0; i < shas.length; i += CHUNK) {
    const rows = await db
      .selectFrom('blobs as b')
      .select(['b.sha256', 'b.size'])
      .where('b.sha256', 'in', shas.slice(i, i + CHUNK))
      .where('b.verified', '=', 1)
      .where('b.ref_count', '>', 0)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('instances as i')
            .select(sql<number>`1`.as('one'))
            .whereRef('i.blob_id', '=', 'b.id')
            .where('i.space_kind', '=', 'user')
            .where('i.space_id', '=', userId),
        ),
      )
      .execute();
    for (const r of rows) out.add(`${r.sha256}:${r.size}`);
  }
  return out;
}

/**
 * Files a verified blob (the caller hashed the stored object) or marks an existing row verified; returns the row as
 * it is now: when another upload filed the same content first, its key (not `objectKey`) is the blob's.
 */
export async function upsertVerifiedBlob(db: Db, b: { sha256: string; size: number; bucket: string; objectKey: string; connectionId?: string }): Promise<BlobRow> {
  const r = await db
    .insertInto('blobs')
    .values({
      id: newId(), sha256: b.sha256, size: b.size, bucket: b.bucket, object_key: b.objectKey, ref_count: 0, verified: 1, created_at: Date.now(),
      connection_id: b.connectionId ?? '0',
    })
    .onConflict((oc) => oc.column('sha256').doUpdateSet({ verified: 1 }))
    .returning(COLS)
    .executeTakeFirstOrThrow();
  return map(r)!;
}

export async function addBlobRefs(db: Db, blobId: string, n = 1): Promise<void> {
  if (n === 0) return;
  const r = await db
    .updateTable('blobs')
    .set((eb) => ({ ref_count: eb('ref_count', '+', n) }))
    .where('id', '=', blobId)
    .executeTakeFirst();
  if (r.numUpdatedRows !== 1n) throw new Error(`blob ${blobId} is missing`);
}

/** Rows per statement where many blobs are read or changed at once. */
const CHUNK = 400;

/** Adds references to many blobs in few statements (a copied folder or a bulk upload may hold thousands of files). */
export async function addBlobRefsBulk(db: Db, refs: Map<string, number>): Promise<void> {
  const all = [...refs].filter(([, n]) => n !== 0);
  for (let i = 0; i < all.length; i += CHUNK) {
    const chunk = all.slice(i, i + CHUNK);
    const cases = sql.join(chunk.map(([id, n]) => sql`when ${id} then ${n}`), sql` `);
    const r = await db
      .updateTable('blobs')
      .set({ ref_count: sql<number>`ref_count + case id ${cases} else 0 end` })
      .where('id', 'in', chunk.map(([id]) => id))
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== chunk.length) throw new Error('a blob being referenced is missing');
  }
}

/**
 * The blobs of these contents, their rows locked until the transaction `db` ends (in sha256 order, so two lockers
 * never wait for each other): lockBlobBySha for a batch.
 */
export async function lockBlobsBySha(db: Db, shas: string[]): Promise<Map<string, BlobRow>> {
  const out = new Map<string, BlobRow>();
  const all = [...new Set(shas)].sort();
  for (let i = 0; i < all.length; i += CHUNK) {
    const q = db.selectFrom('blobs').select(COLS).where('sha256', 'in', all.slice(i, i + CHUNK)).orderBy('sha256');
    for (const r of await forUpdate(db, q).execute()) out.set(r.sha256, map(r)!);
  }
  return out;
}

/** upsertVerifiedBlob for a batch: one row per content (the first key given for a content wins), by sha256. */
export async function upsertVerifiedBlobs(db: Db, blobs: { sha256: string; size: number; bucket: string; objectKey: string; connectionId?: string }[]): Promise<Map<string, BlobRow>> {
  const bySha = new Map<string, (typeof blobs)[number]>();
  for (const b of blobs) if (!bySha.has(b.sha256)) bySha.set(b.sha256, b);
  const all = [...bySha.values()].sort((a, b) => (a.sha256 < b.sha256 ? -1 : 1));
  const out = new Map<string, BlobRow>();
  const now = Date.now();
  for (let i = 0; i < all.length; i += CHUNK) {
    const rows = await db
      .insertInto('blobs')
      .values(all.slice(i, i + CHUNK).map((b) => ({
        id: newId(), sha256: b.sha256, size: b.size, bucket: b.bucket, object_key: b.objectKey, ref_count: 0, verified: 1 as const, created_at: now,
        connection_id: b.connectionId ?? '0',
      })))
      .onConflict((oc) => oc.column('sha256').doUpdateSet({ verified: 1 }))
      .returning(COLS)
      .execute();
    for (const r of rows) out.set(r.sha256, map(r)!);
  }
  return out;
}

/** Drops references; returns the remaining count (0 = collect it after the transaction commits). */
export async function dropBlobRefs(db: Db, blobId: string, n = 1): Promise<number> {
  const r = await db
    .updateTable('blobs')
    .set({ ref_count: sql<number>`case when ref_count < ${n} then 0 else ref_count - ${n} end` })
    .where('id', '=', blobId)
    .returning('ref_count')
    .executeTakeFirst();
  return r?.ref_count ?? 0;
}

/** How many rows really point at the blob (defence against a drifted counter). */
export async function countBlobReferences(db: Db, blobId: string): Promise<number> {
  const r = await db
    .selectNoFrom((eb) => [
      eb(
        eb(
          eb.selectFrom('instances').select((x) => x.fn.countAll<number>().as('n')).where('blob_id', '=', blobId),
          '+',
          eb.selectFrom('file_versions').select((x) => x.fn.countAll<number>().as('n')).where('blob_id', '=', blobId),
        ),
        '+',
        // An administrator's template shares its document's content (handlers/templates.ts).
        eb.selectFrom('templates').select((x) => x.fn.countAll<number>().as('n')).where('blob_id', '=', blobId),
      ).as('c'),
    ])
    .executeTakeFirstOrThrow();
  return Number(r.c);
}

/** True when some blob's content is stored at this key (a staging key that became a blob on save). */
export async function isBlobKey(db: Db, objectKey: string): Promise<boolean> {
  const r = await db.selectFrom('blobs').select('id').where('object_key', '=', objectKey).executeTakeFirst();
  return r !== undefined;
}

export interface BlobStorage {
  deleteObject(key: string): Promise<unknown>;
  /** The store of the blob's recorded place (storage/routing.ts); absent: everything is in this one. */
  at?(where: { connectionId: string; bucket: string }): Promise<BlobStorage>;
}

/**
 * Removes an unreferenced blob: the row first, under its lock (so nothing new can reference it: a filer waiting for
 * the lock then finds no row), then the object. Returns true when it was removed. A blob that gained references
 * meanwhile is left alone.
 */
export async function collectBlob(db: Db, store: BlobStorage, sha256: string): Promise<boolean> {
  const gone = await transaction(db, async (trx) => {
    const b = await lockBlobBySha(trx, sha256);
    if (!b || b.refCount > 0) return undefined;
    const real = await countBlobReferences(trx, b.id);
    if (real > 0) {
      // The counter drifted; repair it instead of deleting content something still uses.
      await trx.updateTable('blobs').set({ ref_count: real }).where('id', '=', b.id).execute();
      return undefined;
    }
    await trx.deleteFrom('proof_challenges').where('blob_id', '=', b.id).execute();
    await trx.deleteFrom('blobs').where('id', '=', b.id).where('ref_count', '=', 0).execute();
    // Copies at other sites follow the purge after a delay (replication/runner.ts), counted from now.
    await trx.updateTable('blob_replicas').set({ gone_at: Date.now() }).where('blob_id', '=', b.id).where('gone_at', 'is', null).execute();
    return b;
  });
  if (!gone) return false;
  await (store.at ? await store.at(gone) : store).deleteObject(gone.objectKey);
  return true;
}
