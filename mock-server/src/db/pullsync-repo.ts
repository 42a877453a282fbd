// Pull jobs (migration 017_pullsync): one row per pull of a user's files from another drive server.
import { sql, type Selectable, type SqlBool } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { PullSyncsTable } from './sql/schema-pullsync.ts';
import type { Db } from './sql/tx.ts';
import { nameKey, numberedName } from '../files/names.ts';
import { AppError } from '../http/errors.ts';

export type PullRow = Selectable<PullSyncsTable>;

export interface NewPull {
  userId: string;
  syncType: 'personal' | 'group';
  serverUrl: string;
  remoteUser: string;
  groupName: string | null;
  /** Sealed by the caller with the row's id in the associated data, so the id is chosen first. */
  seal: (id: string) => string;
}

/** Starts a pull; CONFLICT while one of the user's pulls runs (the partial unique index decides, not a read). */
export async function insertPull(db: Db, p: NewPull, now = Date.now()): Promise<PullRow> {
  const id = randomUUID();
  const row = await db
    .insertInto('pull_syncs')
    .values({
      id, user_id: p.userId, sync_type: p.syncType, server_url: p.serverUrl, remote_user: p.remoteUser, group_name: p.groupName,
      token_enc: p.seal(id), state: 'running', error: null, created_at: now, updated_at: now, finished_at: null,
    })
    // The conflict target names the partial unique index pull_syncs_running; its predicate is written as in the index
    // (SQLite matches it as text: a bound parameter would not name the index).
    .onConflict((oc) => oc.column('user_id').where(sql<SqlBool>`state = 'running'`).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new AppError('CONFLICT', 'a pull of yours is running; wait until it ends');
  return row;
}

/**
 * Ends the user's running pull whose job is no longer pending (the queue gave up on it: its worker vanished on the
 * last attempt), so its state says "not synchronised" and a new pull may start, instead of "in progress" for ever.
 */
export async function endOrphanedPulls(db: Db, userId: string, now = Date.now()): Promise<void> {
  await db
    .updateTable('pull_syncs')
    .set({ state: 'failed', token_enc: null, finished_at: now, updated_at: now, error: 'INTERNAL: the pull job ended without finishing; start the pull again' })
    .where('user_id', '=', userId)
    .where('state', '=', 'running')
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('jobs').select('jobs.id').whereRef('jobs.dedupe_key', '=', sql<string>`'pull:' || pull_syncs.id`).where('jobs.finished_at', 'is', null))),
    )
    .execute();
}

export async function isRunning(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom('pull_syncs').select('id').where('id', '=', id).where('state', '=', 'running').executeTakeFirst()) !== undefined;
}

export async function getPull(db: Db, id: string): Promise<PullRow | undefined> {
  return db.selectFrom('pull_syncs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function latestPull(db: Db, userId: string): Promise<PullRow | undefined> {
  await endOrphanedPulls(db, userId);
  return db.selectFrom('pull_syncs').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}

/** Adds to the counters of a running pull (one file's outcome). */
export async function countPull(db: Db, id: string, d: { files?: number; skipped?: number; failed?: number; bytes?: number }, now = Date.now()): Promise<void> {
  await db
    .updateTable('pull_syncs')
    .set((eb) => ({
      files: eb('files', '+', d.files ?? 0),
      skipped: eb('skipped', '+', d.skipped ?? 0),
      failed_files: eb('failed_files', '+', d.failed ?? 0),
      bytes: eb('bytes', '+', d.bytes ?? 0),
      updated_at: now,
    }))
    .where('id', '=', id)
    .execute();
}

/** Notes what a still-running pull skipped (a group with no counterpart here); the first note is kept. */
export async function notePull(db: Db, id: string, error: string, now = Date.now()): Promise<void> {
  await db.updateTable('pull_syncs').set({ error, updated_at: now }).where('id', '=', id).where('error', 'is', null).execute();
}

/** Ends a running pull: the sealed remote token goes with it. */
export async function finishPull(db: Db, id: string, state: 'done' | 'failed', error: string | null, now = Date.now()): Promise<void> {
  await db
    .updateTable('pull_syncs')
    .set((eb) => ({ state, token_enc: null, finished_at: now, updated_at: now, error: error === null ? eb.ref('error') : error }))
    .where('id', '=', id)
    .where('state', '=', 'running')
    .execute();
}

/**
 * Whether the folder holds a file named `name`, or the "name (n).ext" a keep-both filing gave it, with this content:
 * the import of that remote file happened already.
 */
export async function hasImported(db: Db, parentId: string, name: string, sha256: string): Promise<boolean> {
  const probe = numberedName(name, 1, false);
  const at = probe.lastIndexOf(' (1)');
  const numbered = `${escapeLike(nameKey(probe.slice(0, at)))} (%)${escapeLike(nameKey(probe.slice(at + 4)))}`;
  const r = await db
    .selectFrom('instances as i')
    .innerJoin('blobs as b', 'b.id', 'i.blob_id')
    .select('i.id')
    .where('i.parent_id', '=', parentId)
    .where('i.deleted_at', 'is', null)
    .where('i.is_folder', '=', 0)
    .where('b.sha256', '=', sha256)
    .where((eb) => eb.or([eb('i.name_key', '=', nameKey(name)), sql<boolean>`i.name_key like ${numbered} escape '\\'`]))
    .limit(1)
    .executeTakeFirst();
  return r !== undefined;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
