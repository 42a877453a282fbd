// History versions of a file (file_versions): every overwrite keeps the replaced content as a version (addVersion in
// instances-repo.ts); a rollback makes a version's content current again and keeps the content it replaces as a
// version too. A version row holds one reference to its blob, like a file row, and its bytes count against the
// space's quota; retention (a job) deletes versions past a library's count and age, dropping those references.
import { sql } from 'kysely';
import type { Db } from './sql/tx.ts';
import { atomically } from './sql/tx.ts';
import { AppError } from '../http/errors.ts';
import { addBlobRefs, collectBlob, dropBlobRefs, lockBlob, type BlobStorage } from './blobs-repo.ts';
import { addUsage, assertFits, type SpaceKind } from './quota.ts';
import { addVersion, getInstanceRow, spaceOf, type InstanceRow } from './instances-repo.ts';

export interface VersionRow {
  version: number;
  size: number;
  blobId: string;
  sha256: string;
  objectKey: string;
  createdBy: string;
  createdByName: string;
  createdAt: number;
}

interface RawVersion {
  version: number;
  size: number;
  blob_id: string;
  sha256: string;
  object_key: string;
  created_by: string;
  created_by_name: string | null;
  created_at: number;
}

const VERSION_SQL = sql.raw(
  'v.version, v.size, v.blob_id, b.sha256, b.object_key, v.created_by, v.created_at, ' +
    '(select u.user_name from users u where u.id = v.created_by) as created_by_name',
);

function mapVersion(r: RawVersion): VersionRow {
  return {
    version: r.version,
    size: Number(r.size),
    blobId: r.blob_id,
    sha256: r.sha256,
    objectKey: r.object_key,
    createdBy: r.created_by,
    createdByName: r.created_by_name ?? '',
    createdAt: Number(r.created_at),
  };
}

/** The history versions of a file, newest first. */
export async function listVersions(db: Db, instanceId: string): Promise<VersionRow[]> {
  const r = await sql<RawVersion>`select ${VERSION_SQL} from file_versions v join blobs b on b.id = v.blob_id
    where v.instance_id = ${instanceId} order by v.version desc`.execute(db);
  return r.rows.map(mapVersion);
}

/** One history version of a file, or NOT_FOUND. */
export async function getVersion(db: Db, instanceId: string, version: number): Promise<VersionRow> {
  const r = await sql<RawVersion>`select ${VERSION_SQL} from file_versions v join blobs b on b.id = v.blob_id
    where v.instance_id = ${instanceId} and v.version = ${version}`.execute(db);
  const row = r.rows[0];
  if (!row) throw new AppError('NOT_FOUND', `the file has no version ${version}`);
  return mapVersion(row);
}

/**
 * The file as it would read with a history version's content: what download info and signed reads take, so a
 * version goes through the same download path as the current content.
 */
export function withContentOf(row: InstanceRow, v: VersionRow): InstanceRow {
  return { ...row, blobId: v.blobId, sha256: v.sha256, objectKey: v.objectKey, blobSize: v.size, size: v.size };
}

/**
 * Makes a history version current: its content becomes the next version and the replaced content is kept as a
 * version (addVersion). The restored content counts against the quota like an upload of it, checked with the space
 * locked first. Returns the file as it is now.
 */
export async function rollback(db: Db, instanceId: string, version: number): Promise<InstanceRow> {
  return atomically(db, async (trx) => {
    const current = await getInstanceRow(trx, instanceId);
    if (!current || current.deletedAt !== null) throw new AppError('NOT_FOUND', 'no such file or folder');
    if (current.isFolder) throw new AppError('CONFLICT', 'a folder has no versions');
    const v = await getVersion(trx, instanceId, version);
    const space = spaceOf(current);
    await assertFits(trx, space, v.size);
    // The blob row is locked first: a collection of it (any node) either finished (no row) or waits for this.
    if (!(await lockBlob(trx, v.blobId))) throw new AppError('CONFLICT', 'the stored content of that version is gone');
    await addBlobRefs(trx, v.blobId, 1);
    await addUsage(trx, space, v.size);
    // The row again under the locks: what addVersion files as the replaced version must be what is current now.
    return addVersion(trx, (await getInstanceRow(trx, instanceId))!, v.blobId, v.size);
  });
}

export interface VersionLimits {
  maxCount: number;
  /** 0 = no age limit. */
  maxDays: number;
}

/**
 * Deletes history versions past their library's limits (count per file, newest kept; age), at most `limit` per call,
 * releasing their bytes from the space and dropping their blob references; blobs nothing references any more are
 * deleted from storage after the commit. A library's own limits (business_libs) override `defaults`. Returns how
 * many versions were deleted (call again while it returns `limit`).
 */
export async function pruneVersions(db: Db, store: BlobStorage, defaults: VersionLimits, now: number, limit = 500): Promise<number> {
  const dayMs = 86_400_000;
  const { garbage, count } = await atomically(db, async (trx) => {
    const doomed = await sql<{ id: string; blob_id: string; sha256: string; size: number; space_kind: SpaceKind; space_id: string }>`
      with ranked as (
        select v.id, v.blob_id, v.size, v.created_at, i.space_kind, i.space_id,
          coalesce(l.version_max_count, ${defaults.maxCount}) as max_count,
          coalesce(l.version_max_days, ${defaults.maxDays}) as max_days,
          row_number() over (partition by v.instance_id order by v.version desc) as rn
        from file_versions v join instances i on i.id = v.instance_id left join business_libs l on l.lib_code = i.lib_code
      )
      select r.id, r.blob_id, b.sha256, r.size, r.space_kind, r.space_id from ranked r join blobs b on b.id = r.blob_id
      where r.rn > r.max_count or (r.max_days > 0 and r.created_at < ${now} - cast(r.max_days as bigint) * ${dayMs})
      order by r.id limit ${limit}`.execute(trx);
    if (doomed.rows.length === 0) return { garbage: [], count: 0 };
    const ids = doomed.rows.map((d) => d.id);
    await trx.deleteFrom('file_versions').where('id', 'in', ids).execute();
    const perSpace = new Map<string, { kind: SpaceKind; id: string; bytes: number }>();
    const perBlob = new Map<string, { sha256: string; n: number }>();
    for (const d of doomed.rows) {
      const key = `${d.space_kind}:${d.space_id}`;
      const s = perSpace.get(key) ?? { kind: d.space_kind, id: d.space_id, bytes: 0 };
      s.bytes += Number(d.size);
      perSpace.set(key, s);
      const b = perBlob.get(d.blob_id) ?? { sha256: d.sha256, n: 0 };
      b.n++;
      perBlob.set(d.blob_id, b);
    }
    for (const s of perSpace.values()) await addUsage(trx, { kind: s.kind, id: s.id }, -s.bytes);
    const out: string[] = [];
    for (const [blobId, b] of perBlob) if ((await dropBlobRefs(trx, blobId, b.n)) === 0) out.push(b.sha256);
    return { garbage: out, count: ids.length };
  });
  for (const sha of garbage) await collectBlob(db, store, sha);
  return count;
}
