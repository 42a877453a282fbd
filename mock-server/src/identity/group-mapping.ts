// Directory groups as drive groups (issue #19): the mirrored drive groups a directory's groups stand for, and the
// memberships the directory makes in them and in explicitly mapped groups. Every membership the directory makes is
// recorded with its source (directory_memberships), so only those are ever taken away again: a member an
// administrator added by hand stays, and one already in a group by hand is never claimed by the directory.
// LDAP sync reconciles every user of the directory at once; a single sign-on reconciles the one user signing in.
import type { Db } from '../db/sql/tx.ts';
import { atomically } from '../db/sql/tx.ts';
import { addMembers, createGroup, groupFacts, removeMembers, updateGroup } from '../db/groups-repo.ts';
import {
  directoryMemberships, forgetDirectoryMembers, linkGroup, linkedGroup, linkedGroupIds, recordDirectoryMembers, type GroupMapping,
} from '../db/identity-repo.ts';
import { AppError } from '../http/errors.ts';

/** A group as the directory names it: a stable id, its display name, and what an explicit mapping names it by. */
export interface DirectoryGroupRef {
  externalId: string;
  name: string;
  /** LDAP: the DN key; OIDC: the claim value. Compared with GroupMapping.map[].directoryGroup (normalised the same). */
  matchKey: string;
}

export interface MappingTally {
  groupsAdded: number;
  membersAdded: number;
  membersRemoved: number;
  errors: string[];
}

export const emptyTally = (): MappingTally => ({ groupsAdded: 0, membersAdded: 0, membersRemoved: 0, errors: [] });

/** Ids per IN list: well under SQLite's and PostgreSQL's bound-parameter limits. */
const ID_CHUNK = 1000;

/** groupId -> userId -> group role. */
export type DesiredMembers = Map<string, Map<string, string>>;

const describe = (err: unknown) => (err instanceof AppError ? `${err.code} ${err.message}` : err instanceof Error ? err.message : String(err));

/**
 * Mirrored groups need an owner who is no directory member, so that no sync ever removes it: the first local
 * administrator (the seeded one on a fresh install).
 */
async function mirrorOwner(db: Db): Promise<string> {
  const r = await db
    .selectFrom('users')
    .select('id')
    .where('is_admin', '=', 1)
    .where('auth_source', '=', 'local')
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
  if (!r) throw new AppError('CONFLICT', 'no local administrator to own mirrored directory groups');
  return r.id;
}

/**
 * The live drive group of each directory group (externalId -> groupId), made where missing and renamed where the
 * directory renamed its group. A name a hand-made group already has is an error of the report, not a takeover.
 */
export async function ensureMirrorGroups(db: Db, source: string, groups: readonly DirectoryGroupRef[], tally: MappingTally): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let owner: string | undefined;
  for (const g of groups) {
    try {
      const link = await linkedGroup(db, source, g.externalId);
      if (link && !link.dissolved) {
        if (link.name !== g.name) {
          await updateGroup(db, link.groupId, { name: g.name });
          await linkGroup(db, source, g.externalId, link.groupId, g.name);
        }
        out.set(g.externalId, link.groupId);
        continue;
      }
      owner ??= await mirrorOwner(db);
      try {
        const id = await atomically(db, async (trx) => {
          const made = await createGroup(trx, { name: g.name, description: '', quotaBytes: null, ownerId: owner! });
          await linkGroup(trx, source, g.externalId, made, g.name);
          return made;
        });
        tally.groupsAdded++;
        out.set(g.externalId, id);
      } catch (err) {
        // Two sign-ins naming a new group at once: the one that lost the race uses the group the other made.
        const other = err instanceof AppError && err.code === 'NAME_EXISTS' ? await linkedGroup(db, source, g.externalId) : undefined;
        if (!other || other.dissolved) throw err;
        out.set(g.externalId, other.groupId);
      }
    } catch (err) {
      tally.errors.push(`group ${g.name}: ${describe(err)}`);
    }
  }
  return out;
}

/** The memberships `mapping` asks for: each user's directory groups through the mirror and the explicit map. */
export function desiredMembers(
  mapping: GroupMapping, mirrored: ReadonlyMap<string, string>, users: Iterable<{ userId: string; groups: readonly DirectoryGroupRef[] }>, key: (s: string) => string,
): DesiredMembers {
  const want: DesiredMembers = new Map();
  const put = (groupId: string, userId: string, role: string) => {
    let m = want.get(groupId);
    if (!m) want.set(groupId, (m = new Map()));
    // A user in several directory groups mapped to one drive group gets the strongest role asked for.
    if (!m.has(userId) || role === 'group_administrator') m.set(userId, role);
  };
  const explicit = new Map<string, { groupId: string; roleCode: string }[]>();
  for (const e of mapping.map) {
    const k = key(e.directoryGroup);
    explicit.set(k, [...(explicit.get(k) ?? []), e]);
  }
  for (const u of users) {
    for (const g of u.groups) {
      const mirror = mapping.mirror ? mirrored.get(g.externalId) : undefined;
      if (mirror) put(mirror, u.userId, mapping.mirrorRole);
      for (const e of explicit.get(g.matchKey) ?? []) put(e.groupId, u.userId, e.roleCode);
    }
  }
  return want;
}

/**
 * Brings the memberships `source` made in line with `want`: adds the missing ones (as full members with the
 * mapped role), removes the ones no longer wanted. Groups considered: those in `want`, the mirrored and mapped
 * ones, and any where `source` made a membership before (a directory group gone or unmapped loses its members).
 * `onlyUser` limits all of it to one user (a single sign-on). Each group is one transaction.
 */
export async function reconcileMembers(
  db: Db, source: string, want: DesiredMembers, mapping: GroupMapping, tally: MappingTally, onlyUser?: string,
): Promise<void> {
  const made = await directoryMemberships(db, source, onlyUser);
  const groupIds = new Set<string>([...want.keys(), ...mapping.map.map((e) => e.groupId), ...made.map((m) => m.groupId)]);
  if (mapping.mirror) for (const id of await linkedGroupIds(db, source)) groupIds.add(id);
  for (const groupId of groupIds) {
    const wanted = new Map(want.get(groupId) ?? []);
    const mine = made.filter((m) => m.groupId === groupId);
    try {
      const [added, removed] = await atomically(db, async (trx) => {
        const fact = (await groupFacts(trx, [groupId], '')).get(groupId);
        const live = fact !== undefined && !fact.dissolved;
        const drop = mine.filter((m) => m.present && !wanted.has(m.userId)).map((m) => m.userId);
        const stale = mine.filter((m) => !m.present).map((m) => m.userId);
        if (drop.length > 0) await removeMembers(trx, groupId, drop);
        await forgetDirectoryMembers(trx, groupId, [...drop, ...stale]);
        if (!live) return [0, drop.length];
        const ours = new Set(mine.filter((m) => m.present).map((m) => m.userId));
        const candidates = [...wanted.keys()];
        for (let i = 0; i < candidates.length; i += ID_CHUNK) {
          const members = await trx.selectFrom('group_members').select('user_id').where('group_id', '=', groupId).where('user_id', 'in', candidates.slice(i, i + ID_CHUNK)).execute();
          // Already a member by hand: theirs, not the directory's.
          for (const m of members) if (!ours.has(m.user_id)) wanted.delete(m.user_id);
        }
        for (const u of ours) wanted.delete(u);
        const byRole = new Map<string, string[]>();
        for (const [u, role] of wanted) byRole.set(role, [...(byRole.get(role) ?? []), u]);
        let n = 0;
        for (const [role, users] of byRole) {
          n += await addMembers(trx, groupId, users, [], role);
          await recordDirectoryMembers(trx, groupId, users, source);
        }
        return [n, drop.length];
      });
      tally.membersAdded += added;
      tally.membersRemoved += removed;
    } catch (err) {
      tally.errors.push(`group ${groupId}: ${describe(err)}`);
    }
  }
}

/** An explicit mapping's groups must be live drive groups: 404 NOT_FOUND (naming the field) otherwise. */
export async function assertMappedGroups(db: Db, mapping: GroupMapping | undefined): Promise<void> {
  if (!mapping) return;
  const ids = [...new Set(mapping.map.map((e) => e.groupId))];
  const facts = await groupFacts(db, ids, '');
  const missing = ids.filter((id) => facts.get(id)?.dissolved !== false);
  if (missing.length > 0) {
    throw new AppError('NOT_FOUND', 'no such group', { fields: missing.map((id) => ({ field: 'groupMapping.map.groupId', message: id })) });
  }
}
