// Files and folders on both databases: names, moves, copies, the recycle bin, walks, listing and the per-folder
// child counts that listing totals come from.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import {
  copyInstance, deleteToRecycle, getOrCreateRoot, insertInstance, listChildren, moveInstance, renameInstance, segmentQuery,
  getInstanceRow, walkSubtree, encodeCursor, recountChildren, freeName, getWithAncestors, ancestorsOf, getInstanceChains, getChainsWithPage, chainOf, type InstanceRow, type ListQuery,
} from './instances-repo.ts';
import { upsertVerifiedBlob, addBlobRefs, getBlob } from './blobs-repo.ts';
import { newId } from '../ids.ts';
import { spaceUsage, addUsage } from './quota.ts';
import { decodeWireName, nameProblem, numberedName } from '../files/names.ts';
import { encodeName } from '@hcs/openapi/client';
import { DIALECTS, openTestDatabase, type TestDatabase } from './sql/test-databases.ts';
import { transaction, type Db } from './sql/tx.ts';


/** FNV-1a (32 bits) as instances-repo's cursors carry it, written out again here so that the test pins the format. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let k = 0; k < s.length; k++) h = Math.imul(h ^ s.charCodeAt(k), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

describe('names', () => {
  it('enforces the spec rules', () => {
    for (const bad of ['', ' a', 'a ', 'a/b', 'a\\b', 'a[b', 'a]', 'a:b', 'a*', 'a?', 'a"', 'a<', 'a>', 'a|', 'x'.repeat(256), 'a\nb']) {
      expect(nameProblem(bad), JSON.stringify(bad)).not.toBeNull();
    }
    for (const good of ['a', 'report (1).pdf', '报告.docx', 'x'.repeat(255), 'a b']) expect(nameProblem(good)).toBeNull();
    expect(decodeWireName(encodeName('报告 v2.pdf'))).toBe('报告 v2.pdf');
    expect(() => decodeWireName(encodeName('a/b'))).toThrow(/contains/);
    expect(() => decodeWireName('!!')).toThrow();
    expect(numberedName('a.tar.gz', 1, false)).toBe('a.tar (1).gz');
    expect(numberedName('photos', 2, true)).toBe('photos (2)');
    expect(numberedName('.bashrc', 1, false)).toBe('.bashrc (1)');
  });
});

describe.each(DIALECTS)('on $dialect', ({ dialect, skip }) => {
  let opened: TestDatabase;
  let db: Db;
  let uid: string;
  let root: InstanceRow;

  async function addUser(name: string, quota: number | null = null): Promise<string> {
    const id = newId();
    const now = Date.now();
    await db
      .insertInto('users')
      .values({ id, user_name: name, user_name_key: name.toLowerCase(), password_hash: 'x', quota_bytes: quota, password_changed_at: now, created_at: now, updated_at: now })
      .execute();
    return id;
  }

  beforeEach(async () => {
    if (skip) return;
    opened = await openTestDatabase(dialect);
    db = opened.db;
    uid = await addUser('alice', 1000);
    root = await getOrCreateRoot(db, { kind: 'user', id: uid }, 'NetDisk', uid);
  });
  afterEach(async () => {
    await opened?.dispose();
  });

  const folder = (parent: InstanceRow, name: string) => insertInstance(db, { parent, name, isFolder: true, createdBy: uid });
  async function file(parent: InstanceRow, name: string, size: number, sha = randomBytes(32).toString('hex')) {
    const blob = await upsertVerifiedBlob(db, { sha256: sha, size, bucket: 'b', objectKey: `blobs/${sha}` });
    await addBlobRefs(db, blob.id, 1);
    await addUsage(db, { kind: 'user', id: uid }, size);
    return insertInstance(db, { parent, name, isFolder: false, size, blobId: blob.id, createdBy: uid });
  }
  const count = async (table: 'instances' | 'recycle_entries') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('c')).executeTakeFirstOrThrow()).c);
  /** Every folder's stored child counts equal its rows: recountChildren finds nothing to correct. */
  async function countsAreExact(): Promise<void> {
    const folders = await db.selectFrom('instances').select('id').where('is_folder', '=', 1).execute();
    expect(await recountChildren(db, folders.map((f) => f.id))).toBe(0);
  }

  describe.skipIf(skip !== undefined)('instances', () => {
    it('creates the root once and keeps names unique case-insensitively', async () => {
      expect((await getOrCreateRoot(db, { kind: 'user', id: uid }, 'NetDisk', uid)).id).toBe(root.id);
      await folder(root, 'Docs');
      await expect(folder(root, 'docs')).rejects.toThrow(/already exists/);
      await expect(folder(root, 'docs')).rejects.toMatchObject({ code: 'NAME_EXISTS' });
    });

    it('renames and recomputes the category', async () => {
      const f = await file(root, 'a.txt', 1);
      const r = await renameInstance(db, f, 'a.pdf');
      expect([r.name, r.filterCat, r.fileType]).toEqual(['a.pdf', 5, 'pdf']);
      await file(root, 'b.pdf', 1);
      await expect(renameInstance(db, r, 'B.PDF')).rejects.toMatchObject({ code: 'NAME_EXISTS' });
    });

    it('never moves a folder into itself or a descendant, and renames or fails on a clash', async () => {
      const a = await folder(root, 'a');
      const b = await folder(a, 'b');
      const c = await folder(b, 'c');
      await expect(moveInstance(db, a.id, a.id, 'rename')).rejects.toThrow(/itself/);
      await expect(moveInstance(db, a.id, c.id, 'rename')).rejects.toThrow(/itself/);
      await file(root, 'x.txt', 1);
      const x2 = await file(a, 'x.txt', 1);
      await expect(moveInstance(db, x2.id, root.id, 'fail')).rejects.toThrow(/already exists/);
      expect((await moveInstance(db, x2.id, root.id, 'rename')).name).toBe('x (1).txt');
      expect((await moveInstance(db, c.id, root.id, 'rename')).parentId).toBe(root.id);
      await countsAreExact();
    });

    it('picks the first free "name (n)" past the ones taken', async () => {
      await file(root, 'r.pdf', 1);
      await file(root, 'r (1).pdf', 1);
      await file(root, 'r (3).pdf', 1);
      await folder(root, 'r (2)'); // a folder: no extension, so not in the file's pattern, but its name_key differs anyway
      expect(await freeName(db, root.id, 'R.pdf', false)).toBe('R (2).pdf');
      await file(root, 'r (2).pdf', 1);
      expect(await freeName(db, root.id, 'r.pdf', false)).toBe('r (4).pdf');
      expect(await freeName(db, root.id, 'free.pdf', false)).toBe('free.pdf');
    });

    it('copies a subtree sharing blobs, charged atomically', async () => {
      const a = await folder(root, 'a');
      const f = await file(a, 'f.bin', 300);
      await folder(a, 'empty');
      const copy = await copyInstance(db, a.id, root.id, 'rename', uid);
      expect(copy.name).toBe('a (1)');
      expect((await getBlob(db, f.blobId!))!.refCount).toBe(2);
      expect((await spaceUsage(db, { kind: 'user', id: uid })).usedBytes).toBe(600);
      // 600 used of 1000: a third copy (300) fits, a fourth does not and copies nothing.
      await copyInstance(db, a.id, root.id, 'rename', uid);
      const before = await count('instances');
      await expect(copyInstance(db, a.id, root.id, 'rename', uid)).rejects.toThrow(/not enough space/);
      expect(await count('instances')).toBe(before);
      expect((await getBlob(db, f.blobId!))!.refCount).toBe(3);
      await expect(copyInstance(db, a.id, a.id, 'rename', uid)).rejects.toThrow(/itself/);
      await countsAreExact();
    });

    it('deletes to the recycle bin: the subtree is marked, nothing vanishes, usage stays', async () => {
      const a = await folder(root, 'a');
      const f = await file(a, 'f.bin', 10);
      await folder(a, 'sub');
      const r = await deleteToRecycle(db, a.id, uid);
      expect(r.bytes).toBe(10);
      expect((await getInstanceRow(db, f.id))!.recycleId).toBe(r.recycleId);
      expect((await getInstanceRow(db, a.id))!.deletedAt).not.toBeNull();
      expect((await spaceUsage(db, { kind: 'user', id: uid })).usedBytes).toBe(10);
      await folder(root, 'a'); // the name is free again
      await countsAreExact();
    });

    it('keeps every folder\'s child counts equal to its live children through every kind of change', async () => {
      const a = await folder(root, 'a');
      const b = await folder(a, 'b');
      await file(a, '1.txt', 1);
      await file(b, '2.txt', 1);
      const c = await file(root, '3.txt', 1);
      expect((await getInstanceRow(db, a.id))).toMatchObject({ childFolders: 1, childFiles: 1 });
      expect((await getInstanceRow(db, root.id))).toMatchObject({ childFolders: 1, childFiles: 1 });
      await moveInstance(db, c.id, b.id, 'rename');
      await moveInstance(db, b.id, root.id, 'rename');
      await copyInstance(db, b.id, a.id, 'rename', uid);
      await countsAreExact();
      expect((await getInstanceRow(db, root.id))).toMatchObject({ childFolders: 2, childFiles: 0 });
      await deleteToRecycle(db, b.id, uid);
      await countsAreExact();
      expect((await getInstanceRow(db, root.id))).toMatchObject({ childFolders: 1, childFiles: 0 });
      // A failed change leaves the counts as they were (the count and the row change commit together).
      await expect(folder(a, 'B')).rejects.toMatchObject({ code: 'NAME_EXISTS' });
      await countsAreExact();
    });

    it('walks a subtree in pre-order, folders first, with paths, page by page', async () => {
      const a = await folder(root, 'a');
      const b = await folder(a, 'b');
      await file(b, 'z.txt', 1);
      await folder(a, 'c');
      await file(a, 'y.txt', 1);
      await file(a, 'Y2.txt', 1);
      const gone = await file(b, 'gone.txt', 1);
      await deleteToRecycle(db, gone.id, uid);
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await walkSubtree(db, a.id, after, 2);
        seen.push(...page.entries.map((e) => e.path));
        if (!page.more) break;
        after = page.entries[page.entries.length - 1]!.id;
      }
      expect(seen).toEqual(['b', 'b/z.txt', 'c', 'y.txt', 'Y2.txt']);
      // A cursor from another folder's walk is refused.
      await expect(walkSubtree(db, b.id, a.id, 2)).rejects.toMatchObject({ code: 'CONFLICT' });
    });
  });

  describe.skipIf(skip !== undefined)('listing', () => {
    it('pages folders first with offsets and cursors, sorted both ways, filtered', async () => {
      for (let i = 0; i < 5; i++) await folder(root, `d${i}`);
      for (let i = 0; i < 7; i++) await file(root, `f${i}.${i % 2 ? 'pdf' : 'mp4'}`, 10 - i);
      const dir = (await getInstanceRow(db, root.id))!;
      const q: ListQuery = { parentId: root.id, sortField: 'instanceName', sortOrder: 'asc', pageNo: 1, pageSize: 4 };
      const all: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const p = await listChildren(db, dir, { ...q, cursor });
        expect(p.total).toBe(12);
        all.push(...p.rows.map((r) => r.name));
        if (!p.nextCursor) break;
        cursor = p.nextCursor;
      }
      expect(all).toEqual(['d0', 'd1', 'd2', 'd3', 'd4', 'f0.mp4', 'f1.pdf', 'f2.mp4', 'f3.pdf', 'f4.mp4', 'f5.pdf', 'f6.mp4']);
      const page2 = await listChildren(db, dir, { ...q, pageNo: 2 });
      expect(page2.rows.map((r) => r.name)).toEqual(['d4', 'f0.mp4', 'f1.pdf', 'f2.mp4']);
      const bySizeDesc = await listChildren(db, dir, { ...q, sortField: 'fSize', sortOrder: 'desc', pageSize: 100 });
      expect(bySizeDesc.rows.slice(5).map((r) => r.size)).toEqual([10, 9, 8, 7, 6, 5, 4]);
      const pdfs = await listChildren(db, dir, { ...q, fileFilter: 5, pageSize: 100 });
      expect(pdfs.rows.map((r) => r.name)).toEqual(['f1.pdf', 'f3.pdf', 'f5.pdf']);
      expect(pdfs.total).toBe(3);
      const folders = await listChildren(db, dir, { ...q, fileFilter: 1, pageSize: 100 });
      expect(folders.total).toBe(5);
      const kw = await listChildren(db, dir, { ...q, keyword: 'F1', pageSize: 100 });
      expect(kw.rows.map((r) => r.name)).toEqual(['f1.pdf']);
      expect(kw.total).toBe(1);
      const c = (await listChildren(db, dir, q)).nextCursor!;
      // Another listing's cursor (another sort, another folder) and a damaged one are refused.
      await expect(listChildren(db, dir, { ...q, sortOrder: 'desc', cursor: c })).rejects.toThrow(/cursor/);
      const sub = await folder(root, 'sub');
      await expect(listChildren(db, sub, { ...q, parentId: sub.id, cursor: c })).rejects.toThrow(/cursor/);
      const dot = c.lastIndexOf('.');
      const damaged = c.slice(0, dot + 1) + (c[dot + 1] === '0' ? '1' : '0') + c.slice(dot + 2);
      await expect(listChildren(db, dir, { ...q, cursor: damaged })).rejects.toThrow(/cursor/);
      for (const bad of ['.', 'x', 'forged.cursor', `${c}x`]) await expect(listChildren(db, dir, { ...q, cursor: bad })).rejects.toThrow(/cursor/);
      // A position is only where the page starts among the rows this listing shows; one of the wrong type for the
      // sort column, or of another shape, is refused. (The fingerprint is public: a client can make any cursor.)
      const made = (pos: unknown, lq: ListQuery = q) => {
        const payload = Buffer.from(JSON.stringify(pos)).toString('base64url');
        const ctx = JSON.stringify([lq.parentId, lq.sortField, lq.sortOrder, lq.fileFilter ?? 0, lq.keyword ?? '']);
        return `${payload}.${fnv1a(`${ctx}\n${payload}`)}`;
      };
      expect(made({ b: 1, v: 'd1', i: (await listChildren(db, dir, { ...q, pageSize: 2 })).rows[1]!.id })).toBe((await listChildren(db, dir, { ...q, pageSize: 2 })).nextCursor);
      expect((await listChildren(db, dir, { ...q, cursor: made({ b: 0, v: 'f4.mp4', i: 'z'.repeat(16) }) })).rows.map((r) => r.name)).toEqual(['f5.pdf', 'f6.mp4']);
      const bySize: ListQuery = { ...q, sortField: 'fSize' };
      const refused: [unknown, ListQuery][] = [
        [{ b: 0, v: '7', i: 'x' }, bySize], // a size as text
        [{ b: 0, v: 7.5, i: 'x' }, bySize],
        [{ b: 1, v: 3, i: 'x' }, q], // a name as a number
        [{ b: 2, v: 'd1', i: 'x' }, q],
        [{ b: 1, v: 'd1' }, q],
        [{ b: 1, v: 'd1', i: 5 }, q],
        [{ b: 1, v: 'd1', i: 'x'.repeat(129) }, q],
        [{ b: 1, r: 'x', v: 'd1' }, q],
        [[1], q],
        [null, q],
      ];
      for (const [pos, lq] of refused) await expect(listChildren(db, dir, { ...lq, cursor: made(pos, lq) }), JSON.stringify(pos)).rejects.toThrow(/cursor/);
      expect((await listChildren(db, dir, { ...bySize, cursor: made({ b: 0, v: 7, i: 'z'.repeat(16) }, bySize) })).rows.map((r) => r.size)).toEqual([8, 9, 10]);
      // A row named by id (`r`, for names too long to carry) must be one this listing shows: a child of the folder,
      // live and not hidden; any other id, a real one elsewhere included, is refused without telling where it sorts.
      const f2 = (await listChildren(db, dir, { ...q, pageSize: 100 })).rows.find((r) => r.name === 'f2.mp4')!;
      expect((await listChildren(db, dir, { ...q, cursor: made({ b: 0, r: f2.id }) })).rows.map((r) => r.name)).toEqual(['f3.pdf', 'f4.mp4', 'f5.pdf', 'f6.mp4']);
      const elsewhere = await folder(sub, 'elsewhere');
      await expect(listChildren(db, dir, { ...q, cursor: made({ b: 1, r: elsewhere.id }) })).rejects.toMatchObject({ code: 'CONFLICT' });
      await expect(listChildren(db, dir, { ...q, except: { ids: [f2.id], folders: 0 }, cursor: made({ b: 0, r: f2.id }) })).rejects.toMatchObject({ code: 'CONFLICT' });
      await expect(listChildren(db, dir, { ...q, only: [sub.id], cursor: made({ b: 0, r: f2.id }) })).rejects.toMatchObject({ code: 'CONFLICT' });
    });

    it('reads a listing\'s page in the gate\'s statement: the page listChildren reads, on every page and sort', async () => {
      const sub = await folder(root, 'sub');
      for (let i = 0; i < 5; i++) await folder(sub, `d${i}`);
      for (let i = 0; i < 7; i++) await file(sub, `f${i}.${i % 2 ? 'pdf' : 'mp4'}`, 10 - i);
      const dir = (await getInstanceRow(db, sub.id))!;
      for (const [sortField, sortOrder] of [['instanceName', 'asc'], ['fSize', 'desc'], ['updateTime', 'asc']] as const) {
        const q: ListQuery = { parentId: sub.id, sortField, sortOrder, pageNo: 1, pageSize: 4, marksOf: uid };
        let cursor: string | undefined;
        const seen: string[] = [];
        for (;;) {
          const { rows, page } = await getChainsWithPage(db, [sub.id], { ...q, cursor });
          // The gate's rows: the folder and its ancestors, as getInstanceChains reads them.
          expect(rows).toEqual(await getInstanceChains(db, [sub.id]));
          expect(page, 'a first page or a cursor page is read ahead').toBeDefined();
          const ahead = await listChildren(db, dir, { ...q, cursor }, page);
          const own = await listChildren(db, dir, { ...q, cursor });
          expect(ahead).toEqual(own);
          seen.push(...own.rows.map((r) => r.name));
          if (!own.nextCursor) break;
          cursor = own.nextCursor;
        }
        expect(seen).toHaveLength(12);
        expect(seen.slice(0, 5).every((n) => n.startsWith('d'))).toBe(true);
      }
      const q: ListQuery = { parentId: sub.id, sortField: 'instanceName', sortOrder: 'asc', pageNo: 1, pageSize: 4 };
      // Nothing read ahead where the page's start needs the folder's counts (an offset page) or the cursor is not
      // this listing's (listChildren refuses it); a page read for another query is never used for this one.
      expect((await getChainsWithPage(db, [sub.id], { ...q, pageNo: 2 })).page).toBeUndefined();
      const foreign = (await listChildren(db, dir, { ...q, sortOrder: 'desc' })).nextCursor!;
      expect((await getChainsWithPage(db, [sub.id], { ...q, cursor: foreign })).page).toBeUndefined();
      const { page: firstPage } = await getChainsWithPage(db, [sub.id], q);
      const other = await listChildren(db, dir, { ...q, keyword: 'f1' }, firstPage);
      expect(other.rows.map((r) => r.name)).toEqual(['f1.pdf']);
      // What the gate finds hidden from the caller (except) makes the listing read its own page.
      const d0 = (await listChildren(db, dir, q)).rows[0]!;
      const hiding = await listChildren(db, dir, { ...q, except: { ids: [d0.id], folders: 1 } }, firstPage);
      expect(hiding.rows.map((r) => r.id)).not.toContain(d0.id);
    });

    it('reads a folder with its ancestors in one query', async () => {
      const a = await folder(root, 'a');
      const b = await folder(a, 'b');
      const found = (await getWithAncestors(db, b.id))!;
      expect(found.row).toEqual(await getInstanceRow(db, b.id));
      expect(found.ancestors.map((r) => r.id)).toEqual([root.id, a.id]);
      expect(found.ancestors).toEqual(await ancestorsOf(db, b.id));
      expect((await getWithAncestors(db, root.id))!.ancestors).toEqual([]);
      expect(await getWithAncestors(db, 'no-such-folder')).toBeUndefined();
    });

    it('reads several items with their shared ancestors once, and assembles each one\'s path', async () => {
      const a = await folder(root, 'a');
      const b = await folder(a, 'b');
      const c = await folder(a, 'c');
      const rows = await getInstanceChains(db, [b.id, c.id, 'no-such-item']);
      expect([...rows.keys()].sort()).toEqual([root.id, a.id, b.id, c.id].sort());
      expect(chainOf(rows, b.id)).toEqual(await getWithAncestors(db, b.id));
      expect(chainOf(rows, c.id)!.ancestors.map((r) => r.id)).toEqual([root.id, a.id]);
      expect(chainOf(rows, 'no-such-item')).toBeUndefined();
      // A map missing a link (here the root) gives no path rather than a short one.
      rows.delete(root.id);
      expect(chainOf(rows, b.id)).toBeUndefined();
    });

    it('takes a whole folder\'s total from its child counts, never from counting its rows', async () => {
      for (let i = 0; i < 3; i++) await folder(root, `d${i}`);
      for (let i = 0; i < 4; i++) await file(root, `f${i}.txt`, 1);
      // Counts that disagree with the rows show which one the total comes from.
      await db.updateTable('instances').set({ child_folders: 30, child_files: 400 }).where('id', '=', root.id).execute();
      const dir = (await getInstanceRow(db, root.id))!;
      const q: ListQuery = { parentId: root.id, sortField: 'instanceName', sortOrder: 'asc', pageNo: 1, pageSize: 5 };
      expect((await listChildren(db, dir, q)).total).toBe(430);
      expect((await listChildren(db, dir, { ...q, fileFilter: 1 })).total).toBe(30);
      // A search (keyword, category) counts its matches: there is no count to take it from.
      expect((await listChildren(db, dir, { ...q, keyword: 'f' })).total).toBe(4);
    });

    it('seeks through the listing index: a deep page is one index range, never a skip over the pages before it', async () => {
      const now = Date.now();
      // One INSERT ... SELECT per set, its rows generated by the database: about 1 s less per dialect than 60 batches
      // of 2,000 through the query builder. What remains (about 4 s) is the table's own indexes and search index.
      const pad = (x: string) => (dialect === 'sqlite' ? sql.raw(`printf('${x}%06d', i)`) : sql.raw(`'${x}' || lpad(i::text, 6, '0')`));
      const seq = (n: number) =>
        dialect === 'sqlite' ? sql.raw(`WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < ${n - 1})`) : sql.raw(`WITH seq AS (SELECT generate_series(0, ${n - 1}) AS i)`);
      const cols = sql.raw('(id, space_kind, space_id, parent_id, name, name_key, is_folder, size, created_by, created_at, updated_at)');
      await transaction(db, async (trx) => {
        // The folder's 20,000 entries n000000..n019999, every 50th a folder.
        await sql`${seq(20_000)} INSERT INTO instances ${cols}
          SELECT 'id' || i, 'user', ${uid}, ${root.id}, ${pad('n')}, ${pad('n')}, CASE WHEN i % 50 = 0 THEN 1 ELSE 0 END, i % 997, ${uid}, CAST(${now} AS BIGINT) + i, CAST(${now} AS BIGINT) + i FROM seq`.execute(trx);
        // The folder is one of many, as in a real drive: with every row in it, PostgreSQL may as well walk any index on
        // created_at (the administrators' file view has one) and filter, which says nothing about a real folder.
        await sql`${seq(100_000)} INSERT INTO instances ${cols}
          SELECT 'other' || i, 'user', ${uid}, 'id' || ((i % 400) * 50), ${pad('o')}, ${pad('o')}, 0, i % 991, ${uid}, CAST(${now} AS BIGINT) + (i % 20000), CAST(${now} AS BIGINT) + (i % 20000) FROM seq`.execute(trx);
      });
      expect(await db.selectFrom('instances').select((eb) => eb.fn.countAll<number>().as('n')).where('parent_id', '=', root.id).executeTakeFirst()).toEqual({ n: 20_000 });
      await recountChildren(db, [root.id]);
      if (dialect === 'postgres') await sql`analyze instances`.execute(db);
      for (const sortField of ['instanceName', 'fSize', 'createTime', 'updateTime'] as const) {
        for (const sortOrder of ['asc', 'desc'] as const) {
          const q: ListQuery = { parentId: root.id, sortField, sortOrder, pageNo: 1, pageSize: 50 };
          for (const seg of [0, 1] as const) {
            const compiled = segmentQuery(q, seg, { b: seg, v: sortField === 'instanceName' ? 'n05' : 5, i: 'id5' }, 51, 0)!.compile(db);
            const plan = (await db.executeQuery<Record<string, string>>({ ...compiled, sql: `explain ${dialect === 'sqlite' ? 'query plan ' : ''}${compiled.sql}` })).rows
              .map((r) => r.detail ?? r['QUERY PLAN'])
              .join(' | ');
            if (dialect === 'sqlite') {
              expect(plan, `${sortField} ${sortOrder}`).toMatch(/SEARCH i USING (COVERING )?INDEX instances_list_/);
              expect(plan).not.toMatch(/TEMP B-TREE/);
            } else {
              expect(plan, `${sortField} ${sortOrder}`).toMatch(/Index Scan( Backward)? using instances_list_/);
              expect(plan).not.toMatch(/Sort|Seq Scan/);
            }
          }
        }
      }
      const dir = (await getInstanceRow(db, root.id))!;
      const q: ListQuery = { parentId: root.id, sortField: 'instanceName', sortOrder: 'asc', pageNo: 1, pageSize: 50 };
      // The cursor of page 399's last row, as the server would have handed it out.
      const deepCursor = encodeCursor(q, (await getInstanceRow(db, 'id19949'))!);
      const p400 = await listChildren(db, dir, { ...q, cursor: deepCursor });
      // Files after n019949, skipping the folder n019950 (listed with the folders first).
      expect(p400.rows.map((r) => r.name)).toEqual(Array.from({ length: 49 }, (_, k) => `n${String(19951 + k).padStart(6, '0')}`));
      expect(p400.nextCursor).toBeNull();
      expect(p400.total).toBe(20_000);
    }, 120_000);
  });
});
