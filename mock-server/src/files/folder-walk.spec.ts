// The folder walk of a folder download: pages chained by signed cursors that hold only for the folder they came from.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { randomBytes } from 'node:crypto';
import { getOrCreateRoot, insertInstance, type InstanceRow } from '../db/instances-repo.ts';
import { newId } from '../ids.ts';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../db/sql/test-databases.ts';
import type { Db } from '../db/sql/tx.ts';
import { walkFolder } from './folder-walk.ts';

const secret = randomBytes(32);

describe.each(DIALECTS)('walkFolder on $dialect', ({ dialect, skip }) => {
  let opened: TestDatabase;
  let db: Db;
  let uid: string;
  let root: InstanceRow;

  beforeEach(async () => {
    if (skip) return;
    opened = await openTestDatabase(dialect);
    db = opened.db;
    uid = newId();
    const now = Date.now();
    await db.insertInto('users').values({ id: uid, user_name: 'alice', user_name_key: 'alice', password_hash: 'x', quota_bytes: null, password_changed_at: now, created_at: now, updated_at: now }).execute();
    root = await getOrCreateRoot(db, { kind: 'user', id: uid }, 'NetDisk', uid);
  });
  afterEach(async () => {
    await opened?.dispose();
  });

  const add = (parent: InstanceRow, name: string, size?: number) =>
    insertInstance(db, { parent, name, isFolder: size === undefined, size: size ?? 0, createdBy: uid });

  it.skipIf(skip !== undefined)('walks a folder page by page with its cursors, totals on every page', async () => {
    const a = await add(root, 'a');
    const b = await add(a, 'b');
    await add(b, 'z.txt', 3);
    await add(a, 'y.txt', 4);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await walkFolder(db, secret, a, cursor, 2);
      expect(page).toMatchObject({ totalFiles: 2, totalBytes: 7 });
      seen.push(...page.entries.map((e) => e.path));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(['b', 'b/z.txt', 'y.txt']);
  });

  it.skipIf(skip !== undefined)("refuses a cursor of another folder's walk, and a forged one", async () => {
    const a = await add(root, 'a');
    const other = await add(root, 'other');
    await add(a, 'x.txt', 1);
    await add(a, 'y.txt', 1);
    const first = await walkFolder(db, secret, a, undefined, 1);
    expect(first.nextCursor).not.toBeNull();
    await expect(walkFolder(db, secret, other, first.nextCursor!, 1)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const [lastId] = first.nextCursor!.split('.');
    await expect(walkFolder(db, secret, a, `${lastId}.AAAAAAAAAAAAAAAA`, 1)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(walkFolder(db, randomBytes(32), a, first.nextCursor!, 1)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it.skipIf(skip !== undefined)('walks a file as itself alone', async () => {
    const f = await add(root, 'report.pdf', 9);
    const page = await walkFolder(db, secret, f, undefined, 10);
    expect(page.entries.map((e) => [e.id, e.path])).toEqual([[f.id, 'report.pdf']]);
    expect(page).toMatchObject({ nextCursor: null, totalFiles: 1, totalBytes: 9 });
  });
});
