// Replication state of listing rows on both databases: files from their replica rows, folders rolled up from the
// copies behind below them, and a folder under a config no sweep has caught up shown pending (never synced).
import { describe, it, expect, beforeEach, afterEach, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { getOrCreateRoot, insertInstance, type InstanceRow } from '../db/instances-repo.ts';
import { addBlobRefs, upsertVerifiedBlob } from '../db/blobs-repo.ts';
import { newId } from '../ids.ts';
import { deleteSyncConfig, getSyncConfig, saveSyncConfig, setCaughtUp, setReplicaState, syncConfigsOfLibrary, type SyncConfig } from '../db/replication-repo.ts';
import { bumpVersion, VERSION_CHECK_MS } from '../config-store.ts';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../db/sql/test-databases.ts';
import type { Db } from '../db/sql/tx.ts';
import { listingSync } from './status.ts';

const FAR = 'site-far';

describe.each(DIALECTS)('on $dialect', ({ dialect, skip }) => {
  let opened: TestDatabase;
  let db: Db;
  let uid: string;
  let root: InstanceRow;
  let config: SyncConfig;

  beforeEach(async () => {
    if (skip) return;
    opened = await openTestDatabase(dialect);
    db = opened.db;
    uid = newId();
    const now = Date.now();
    await db.insertInto('users').values({ id: uid, user_name: 'alice', user_name_key: 'alice', password_hash: 'x', password_changed_at: now, created_at: now, updated_at: now }).execute();
    root = await getOrCreateRoot(db, { kind: 'user', id: uid }, 'NetDisk', uid);
    config = (await saveSyncConfig(db, { libCode: 'NetDisk', folderId: null, sourceSite: 'site-hq', targetSites: [FAR] }))!;
  });
  afterEach(async () => {
    await opened?.dispose();
  });

  const folder = (parent: InstanceRow, name: string) => insertInstance(db, { parent, name, isFolder: true, createdBy: uid });
  async function file(parent: InstanceRow, name: string, size: number, sha = randomBytes(32).toString('hex')) {
    const blob = await upsertVerifiedBlob(db, { sha256: sha, size, bucket: 'b', objectKey: `blobs/${sha}` });
    await addBlobRefs(db, blob.id, 1);
    return insertInstance(db, { parent, name, isFolder: false, size, blobId: blob.id, createdBy: uid });
  }
  async function replica(f: InstanceRow, state: 'pending' | 'synced' | 'failed', queuedAt: number, error: string | null = null) {
    await db.insertInto('blob_replicas').values({
      blob_id: f.blobId!, site_id: FAR, state, object_key: `blobs/${f.sha256}`, size: f.size, error, queued_at: queuedAt,
      synced_at: state === 'synced' ? queuedAt : null, gone_at: null, updated_at: queuedAt,
    }).onConflict((oc) => oc.columns(['blob_id', 'site_id']).doNothing()).execute();
  }
  async function states(parent: InstanceRow, ancestors: InstanceRow[], rows: InstanceRow[]) {
    const of = await listingSync(db, parent, ancestors, rows);
    return Object.fromEntries(rows.map((r) => [r.name, of(r)]));
  }

  describe.skipIf(skip !== undefined)('listing rows', () => {
    it('rolls a folder up from the copies behind below it, and shows pending until a sweep has caught up', async () => {
      const docs = await folder(root, 'docs');
      const deep = await folder(docs, 'deep');
      const empty = await folder(root, 'empty');
      const sha = randomBytes(32).toString('hex');
      const a = await file(deep, 'a.bin', 1000, sha);
      const twin = await file(docs, 'twin.bin', 1000, sha); // the same content filed twice: one copy
      const b = await file(root, 'b.bin', 300);
      const minuteAgo = Date.now() - 60_000;
      await replica(a, 'pending', minuteAgo);

      let s = await states(root, [], [docs, empty, b]);
      expect(s['docs']).toMatchObject({ state: 'pending', lagBytes: 1000, partial: true });
      expect(s['docs']!.lagSeconds).toBeGreaterThanOrEqual(59);
      // Nothing behind was found below it, but the config's blobs are not all recorded yet: not synced.
      expect(s['empty']).toEqual({ state: 'pending', lagSeconds: 0, lagBytes: 0, partial: true });
      // No replica row yet: behind since it was filed.
      expect(s['b.bin']).toMatchObject({ state: 'pending', lagBytes: 300 });
      expect(twin.blobId).toBe(a.blobId);

      await setCaughtUp(db, (await getSyncConfig(db, config.id))!, true);
      await replica(b, 'synced', Date.now());
      s = await states(root, [], [docs, empty, b]);
      expect(s['docs']).toMatchObject({ state: 'pending', lagBytes: 1000 });
      expect(s['docs']!.partial).toBeUndefined();
      expect(s['empty']).toEqual({ state: 'synced', lagSeconds: 0, lagBytes: 0 });
      expect(s['b.bin']).toEqual({ state: 'synced', lagSeconds: 0, lagBytes: 0 });

      await setReplicaState(db, a.blobId!, FAR, 'failed', 'InternalError (HTTP 500): injected');
      s = await states(root, [], [docs]);
      expect(s['docs']).toMatchObject({ state: 'failed', lagBytes: 1000, reason: 'InternalError (HTTP 500): injected' });
      expect((await states(docs, [root], [deep, twin]))).toMatchObject({ deep: { state: 'failed' }, 'twin.bin': { state: 'failed' } });

      await setReplicaState(db, a.blobId!, FAR, 'synced', null);
      expect((await states(root, [], [docs]))['docs']).toEqual({ state: 'synced', lagSeconds: 0, lagBytes: 0 });
    });

    it('an edit of the config undoes caught up; a sweep that read the config before the edit does not redo it', async () => {
      const read = (await getSyncConfig(db, config.id))!;
      await setCaughtUp(db, read, true);
      expect((await getSyncConfig(db, config.id))!.caughtUpAt).not.toBeNull();
      const edited = (await saveSyncConfig(db, { id: config.id, libCode: 'NetDisk', folderId: null, sourceSite: 'site-hq', targetSites: [FAR, 'site-2'] }, read.updatedAt + 1))!;
      expect(edited.caughtUpAt).toBeNull();
      await setCaughtUp(db, read, true);
      expect((await getSyncConfig(db, config.id))!.caughtUpAt).toBeNull();
    });

    it('shows nothing where no config covers the rows', async () => {
      expect(await deleteSyncConfig(db, config.id)).toBe(true);
      const b = await file(root, 'b.bin', 10);
      expect(await states(root, [], [b])).toEqual({ 'b.bin': undefined });
    });
      it('a node reads the configs once per change: its own changes at once, another node\'s after the version check', async () => {
      expect((await syncConfigsOfLibrary(db, 'NetDisk')).map((c) => c.id)).toEqual([config.id]);
      // This node's own edit is seen at once.
      await saveSyncConfig(db, { id: config.id, libCode: 'NetDisk', folderId: null, sourceSite: 'site-hq', targetSites: [FAR, 'site-2'] });
      expect((await syncConfigsOfLibrary(db, 'NetDisk'))[0]!.targetSites).toEqual([FAR, 'site-2']);
      // Another node's change is two statements in one transaction, the row and the counter; this node keeps its copy
      // until it next asks for the counter.
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        await db.transaction().execute(async (trx) => {
          await trx.deleteFrom('sync_configs').where('id', '=', config.id).execute();
          await bumpVersion(trx, 'syncConfigs');
        });
        expect((await syncConfigsOfLibrary(db, 'NetDisk')).map((c) => c.id)).toEqual([config.id]);
        vi.setSystemTime(Date.now() + VERSION_CHECK_MS + 1);
        expect(await syncConfigsOfLibrary(db, 'NetDisk')).toEqual([]);
      } finally {
        vi.useRealTimers();
      }
    });
  });
});
