// The access decision's cost (issue #14): what it reads per request is a constant number of queries, whatever the
// number of items, and nothing at all for an owner in their own personal space (the listing benchmark relies on it).
import { beforeAll, describe, it, expect } from 'vitest';
import type { KyselyPlugin } from 'kysely';
import { describeEachDialect } from '../db/sql/test-databases.ts';
import type { Db } from '../db/sql/tx.ts';
import { getOrCreateRoot, getWithAncestors, insertInstance, type InstanceRow } from '../db/instances-repo.ts';
import { addGrants } from '../db/roles-repo.ts';
import { newId } from '../ids.ts';
import { checkAccess, hiddenChildren, permissionsOfChildren, type Actor } from './access-gate.ts';

/**
 * The handle with every statement it runs counted: at its result, which every statement has, where a statement
 * compiled once per shape (db/sql/shaped.ts) passes transformQuery only when it is compiled.
 */
function counting(db: Db): { db: Db; count: () => number } {
  let n = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      n++;
      return args.result;
    },
  };
  return { db: db.withPlugin(plugin), count: () => n };
}

describe('access decision cost', () => {
  describeEachDialect((opened) => {
    let owner: Actor;
    let member: Actor;
    let personal: InstanceRow;
    let personalKids: InstanceRow[];
    let shared: InstanceRow;
    let sharedKids: InstanceRow[];

    const addUser = async (name: string, deptId: string | null): Promise<string> => {
      const id = newId();
      const now = Date.now();
      await opened().db.insertInto('users').values({
        id, user_name: name, user_name_key: name, dept_id: deptId, password_hash: 'x', password_changed_at: now, created_at: now, updated_at: now,
      }).execute();
      return id;
    };

    beforeAll(async () => {
      const db = opened().db;
      const dept = `d${newId().slice(0, 6)}`;
      await db.insertInto('departments').values({ id: dept, name: dept, name_key: dept, parent_id: 'root', quota_bytes: null, created_at: Date.now(), path: `/root/${dept}/` }).execute();
      const ownerId = await addUser(`o${newId().slice(0, 8)}`.toLowerCase(), null);
      const memberId = await addUser(`m${newId().slice(0, 8)}`.toLowerCase(), dept);
      owner = { userId: ownerId, deptId: null };
      member = { userId: memberId, deptId: dept };
      const root = await getOrCreateRoot(db, { kind: 'user', id: ownerId }, 'NetDisk', ownerId);
      personal = await insertInstance(db, { parent: root, name: 'p', isFolder: true, createdBy: ownerId });
      personalKids = [];
      for (let i = 0; i < 30; i++) personalKids.push(await insertInstance(db, { parent: personal, name: `k${i}`, isFolder: true, createdBy: ownerId }));
      const deptRoot = await getOrCreateRoot(db, { kind: 'dept', id: dept }, 'NetDisk', memberId);
      shared = await insertInstance(db, { parent: deptRoot, name: 's', isFolder: true, createdBy: memberId });
      sharedKids = [];
      for (let i = 0; i < 30; i++) sharedKids.push(await insertInstance(db, { parent: shared, name: `k${i}`, isFolder: true, createdBy: memberId }));
      await addGrants(db, sharedKids[3]!.id, 'reader', 'user', [memberId], ownerId);
      await addGrants(db, shared.id, 'operator', 'dept', [dept], ownerId);
    });

    it('an owner in their own personal space: the rows only, and nothing more for a listing', async () => {
      const c = counting(opened().db);
      const me = { ...owner };
      const refused = await checkAccess(c.db, me, 'view', [personal.id, ...personalKids.map((k) => k.id)]);
      expect(refused.size).toBe(0);
      expect(c.count()).toBe(1); // the rows with their ancestors: the gate's one query, nothing for the decision
      const chain = (await getWithAncestors(opened().db, personal.id))!;
      const before = c.count();
      const allowed = await permissionsOfChildren(c.db, me, chain.row, chain.ancestors, personalKids);
      expect(allowed.every((a) => a.has('delete'))).toBe(true);
      expect((await hiddenChildren(c.db, me, chain.row)).size).toBe(0);
      expect(c.count() - before).toBe(0);
    });

    it('anyone else: the same constant number of queries for one item and for thirty', async () => {
      const one = counting(opened().db);
      await checkAccess(one.db, { ...member }, 'view', [sharedKids[0]!.id]);
      const many = counting(opened().db);
      const refused = await checkAccess(many.db, { ...member }, 'edit', sharedKids.map((k) => k.id));
      expect(many.count()).toBe(one.count());
      expect(many.count()).toBeLessThanOrEqual(5); // rows, department ancestry, grants, internal shares, managed departments
      // The reader grant on one child is nearer than the department's operator grant on the folder.
      expect([...refused.keys()]).toEqual([sharedKids[3]!.id]);
      expect(refused.get(sharedKids[3]!.id)!.code).toBe('FORBIDDEN');

      const me = { ...member };
      const chain = (await getWithAncestors(opened().db, shared.id))!;
      const listing = counting(opened().db);
      const allowed = await permissionsOfChildren(listing.db, me, chain.row, chain.ancestors, sharedKids);
      expect(listing.count()).toBeLessThanOrEqual(5);
      expect(allowed.filter((a) => !a.has('edit'))).toHaveLength(1);
      const before = listing.count();
      expect((await hiddenChildren(listing.db, me, chain.row)).size).toBe(0); // a reader grant still lets her see it
      expect(listing.count() - before).toBe(1);
    });

    it('group spaces: one query for the memberships of every group met, whatever the number of groups', async () => {
      const db = opened().db;
      const folders: InstanceRow[] = [];
      for (let i = 0; i < 3; i++) {
        const groupId = `g${newId().slice(0, 8)}`;
        const now = Date.now();
        await db.insertInto('groups').values({ id: groupId, name: groupId, name_key: groupId, owner_id: owner.userId, quota_bytes: null, created_at: now }).execute();
        await db.insertInto('group_members').values({ group_id: groupId, user_id: member.userId, role_code: i === 0 ? 'group_ordinary_members' : 'file_leader', level: 1, created_at: now }).execute();
        const root = await getOrCreateRoot(db, { kind: 'group', id: groupId }, 'NetDisk', owner.userId);
        folders.push(await insertInstance(db, { parent: root, name: 'f', isFolder: true, createdBy: owner.userId }));
      }
      const one = counting(db);
      await checkAccess(one.db, { ...member }, 'view', [folders[0]!.id]);
      const three = counting(db);
      const refused = await checkAccess(three.db, { ...member }, 'delete', folders.map((f) => f.id));
      expect(three.count()).toBe(one.count());
      // The group role decides: an ordinary member may not delete, a file leader may.
      expect([...refused.keys()]).toEqual([folders[0]!.id]);
    });
  });
});
