// The one access gate (issue #13): every operation's contract mark (x-hcs-access) is enforced here, before its
// handler runs. `public`, `signed-in` and `admin` are settled by the route layer when the session is read; a
// permission mark names where the request carries instance ids, and requireAccess checks the whole set at once.
//
// Visibility and permission are told apart on purpose: an instance the caller cannot see answers NOT_FOUND, exactly
// as an id that does not exist (ids of other people's files reveal nothing); one the caller sees but may not act on
// answers FORBIDDEN. What a caller holds is decided in one place, `decide` (permissionsOn): the owner of a personal
// space holds everything; elsewhere the nearest grant on the item's path wins (a deny role at that level wins over
// allow), and without a grant the space's default applies (the contract's explainAccess describes the rules).
import type { FastifyRequest } from 'fastify';
import { PERMISSIONS, type Access, type Permission } from '@hcs/openapi/operations';
import type { Db } from '../db/sql/tx.ts';
import { chainOf, getInstanceChains, getInstanceRows, type InstanceRow } from '../db/instances-repo.ts';
import { applicableGrants, applicableGrantsBelow, applicableGrantsInSpace, applicableGrantsOnChildren, BUILTIN_AUTHORITIES, deptChainOf, managedAmong, type GrantFact } from '../db/roles-repo.ts';
import { groupFacts, type GroupFact } from '../db/groups-repo.ts';
import { putAwayAmong } from '../db/recycle-repo.ts';
import { shareFacts, shareFor, type ShareFact } from '../db/shares-repo.ts';
import { AppError } from '../http/errors.ts';
import { enforceManages } from './manages-gate.ts';

/** Ids this many or fewer are checked per request; the contract bounds every id list well below it. */
const MAX_IDS = 10_000;

/** Who is asking: a session's user, or the account a download ticket or an explanation names. */
export interface Actor {
  userId: string;
  deptId: string | null;
  isAdmin?: boolean;
}

type Facts = {
  /** The actor's department and its ancestors, nearest first; loaded on first need. */
  deptChain: string[] | null;
  /** Grants that apply to the actor, by instance id; an id present with [] was loaded and has none. */
  grants: Map<string, GrantFact[]>;
  /** Internal shares reaching the actor, by shared instance id (loaded with the grants, for the same ids). */
  shares: Map<string, ShareFact[]>;
  /** Groups of the rows' group spaces: dissolved or not, the actor's membership (role and level). */
  groups: Map<string, GroupFact>;
  /** Rows of dissolved groups' spaces: true when the row tops an entry the actor put away by dissolving the group. */
  putAway: Map<string, boolean>;
  /** Department spaces whose department the actor manages (directly or above), by dept id. */
  manages: Map<string, boolean>;
  /** Decisions already taken in this request, by instance id: handlers after the gate reuse them. */
  decided: Map<string, ReadonlySet<Permission>>;
  /** Passages of a space (see passagesOf), by space kind and id; loaded on first need. */
  passages: Map<string, Promise<Passages>>;
};

/** Folder id -> its children that lead the actor on to something they may view (see passagesOf). */
type Passages = ReadonlyMap<string, ReadonlySet<string>>;

// Per actor object, so per request (the session's user is built for each request): the facts of one request are
// loaded in batches and never go stale across requests.
const factsByActor = new WeakMap<Actor, Facts>();

function factsOf(actor: Actor): Facts {
  let f = factsByActor.get(actor);
  if (!f) factsByActor.set(actor, (f = { deptChain: null, grants: new Map(), shares: new Map(), groups: new Map(), putAway: new Map(), manages: new Map(), decided: new Map(), passages: new Map() }));
  return f;
}

const ALL: ReadonlySet<Permission> = new Set(PERMISSIONS);
const NONE: ReadonlySet<Permission> = new Set();
/** A dissolver's hold on what dissolving put away: seeing it in their bin and restoring it. */
const PUT_AWAY: ReadonlySet<Permission> = new Set<Permission>(['view', 'delete']);
/** What administrators keep on department and group spaces whatever the grants, so grants can always be repaired. */
const ADMIN_FLOOR: readonly Permission[] = ['view', 'manage'];

export const ownsSpace = (actor: Actor, row: Pick<InstanceRow, 'spaceKind' | 'spaceId'>): boolean =>
  row.spaceKind === 'user' && row.spaceId === actor.userId;

/**
 * Loads what deciding on `rows` (each item together with all its ancestors) needs, in a constant number of
 * queries whatever the number of rows: the actor's department ancestry, the grants that apply to them on the rows,
 * the departments they manage among the rows' spaces, and group memberships (one per distinct group). Nothing for
 * rows in the actor's own personal space, which the owner holds whole.
 */
export async function prepareAccess(db: Db, actor: Actor, rows: Iterable<InstanceRow>): Promise<void> {
  const facts = factsOf(actor);
  const grantIds: string[] = [];
  const depts = new Set<string>();
  const groups = new Set<string>();
  const groupRows: InstanceRow[] = [];
  for (const r of rows) {
    if (ownsSpace(actor, r)) continue;
    if (!facts.grants.has(r.id)) grantIds.push(r.id);
    if (r.spaceKind === 'dept' && !facts.manages.has(r.spaceId)) depts.add(r.spaceId);
    if (r.spaceKind === 'group') {
      if (!facts.groups.has(r.spaceId)) groups.add(r.spaceId);
      if (!facts.putAway.has(r.id)) groupRows.push(r);
    }
  }
  if (grantIds.length === 0 && depts.size === 0 && groups.size === 0 && groupRows.length === 0) return;
  if (facts.deptChain === null && (grantIds.length > 0 || depts.size > 0)) facts.deptChain = await deptChainOf(db, actor.deptId);
  if (grantIds.length > 0) {
    const deptChain = facts.deptChain ?? [];
    const [found, shared] = await Promise.all([
      applicableGrants(db, grantIds, actor.userId, deptChain),
      shareFacts(db, grantIds, { userId: actor.userId, deptChain }),
    ]);
    for (const id of grantIds) facts.grants.set(id, []);
    for (const g of found) facts.grants.get(g.instanceId)!.push(g);
    for (const sh of shared) facts.shares.set(sh.instanceId, [...(facts.shares.get(sh.instanceId) ?? []), sh]);
  }
  if (depts.size > 0) {
    const managed = actor.isAdmin ? new Set<string>() : await managedAmong(db, actor.userId, [...depts]);
    for (const d of depts) facts.manages.set(d, managed.has(d));
  }
  if (groups.size > 0) for (const [g, f] of await groupFacts(db, [...groups], actor.userId)) facts.groups.set(g, f);
  // What dissolving put away stays its dissolver's to restore (issue #15): asked only for rows of dissolved groups.
  const dissolvedRows = groupRows.filter((r) => facts.groups.get(r.spaceId)?.dissolved).map((r) => r.id);
  if (dissolvedRows.length > 0) {
    const mine = await putAwayAmong(db, dissolvedRows, actor.userId);
    for (const id of dissolvedRows) facts.putAway.set(id, mine.has(id));
  }
}

export interface Decision {
  allowed: ReadonlySet<Permission>;
  /** The nearest applicable grants include a deny role. */
  denied: boolean;
  source: 'owner' | 'grant' | 'default' | 'share' | 'none';
  /** With source default: the role applied (defaultrole or manager; a group member's group role). */
  defaultRole: string | null;
  /** The id of the item or ancestor whose grants decided (source grant). */
  decidedAt: string | null;
  /** The applicable grants met from the item up, nearest first. */
  chain: { instanceId: string; grants: readonly GrantFact[] }[];
}

/**
 * The decision: what the actor may do on `row`, whose ancestors (root first, as chainOf gives them) are
 * `ancestors`. Synchronous: prepareAccess must have loaded the facts for the row and its ancestors.
 */
export function decide(actor: Actor, row: InstanceRow, ancestors: readonly InstanceRow[]): Decision {
  if (ownsSpace(actor, row)) return { allowed: ALL, denied: false, source: 'owner', defaultRole: null, decidedAt: null, chain: [] };
  const facts = factsOf(actor);
  const chain: Decision['chain'] = [];
  // A dissolved group's space reaches nobody, whatever grants were made in it (its files wait in the admin bin);
  // only its dissolver still sees and may restore (delete from the bin) the entries dissolving put away.
  if (row.spaceKind === 'group' && facts.groups.get(row.spaceId)?.dissolved !== false) {
    if (facts.putAway.get(row.id)) return { allowed: PUT_AWAY, denied: false, source: 'owner', defaultRole: null, decidedAt: null, chain };
    return { allowed: NONE, denied: false, source: 'none', defaultRole: null, decidedAt: null, chain };
  }
  let decision: Decision | undefined;
  for (const node of [row, ...[...ancestors].reverse()]) {
    const grants = facts.grants.get(node.id);
    if (grants === undefined) throw new Error(`access facts for ${node.id} were not loaded (prepareAccess)`);
    if (grants.length === 0) continue;
    chain.push({ instanceId: node.id, grants });
    if (decision) continue;
    const denied = grants.some((g) => g.deny);
    const allowed = new Set<Permission>();
    if (!denied) for (const g of grants) for (const p of g.authorities) allowed.add(p);
    decision = { allowed, denied, source: 'grant', defaultRole: null, decidedAt: node.id, chain };
  }
  const taken = withShares(facts, row, ancestors, decision ?? defaultDecision(actor, facts, row, chain));
  if (actor.isAdmin && row.spaceKind !== 'user' && !ADMIN_FLOOR.every((p) => taken.allowed.has(p))) {
    return { ...taken, allowed: new Set([...taken.allowed, ...ADMIN_FLOOR]) };
  }
  return taken;
}

/**
 * Share roles' authorities through a share (issue #17): the seeded groupShare role's, and resharing (share) for
 * groupShare_external_sharing, the one role that may reshare without holding every authority.
 */
export function shareRoleAuthorities(roleCode: string): ReadonlySet<Permission> {
  const base = BUILTIN_AUTHORITIES.get(roleCode) ?? NONE;
  return roleCode === 'groupShare_external_sharing' ? new Set([...base, 'share']) : base;
}

/**
 * Adds what internal shares on the row or an ancestor give the actor: a recipient holds the share role's authorities
 * on the shared item and below it. A deny at the nearest grant level still wins: a share does not reopen what an
 * administrator closed to the recipient.
 */
function withShares(facts: Facts, row: InstanceRow, ancestors: readonly InstanceRow[], taken: Decision): Decision {
  if (taken.denied) return taken;
  let added: Set<Permission> | undefined;
  for (const node of [row, ...ancestors]) {
    for (const sh of facts.shares.get(node.id) ?? []) {
      for (const p of shareRoleAuthorities(sh.roleCode)) {
        if (taken.allowed.has(p)) continue;
        (added ??= new Set(taken.allowed)).add(p);
      }
    }
  }
  // Shares alone: say so, rather than 'none' with authorities.
  return added ? { ...taken, allowed: added, ...(taken.source === 'none' ? { source: 'share' as const } : {}) } : taken;
}

function defaultDecision(actor: Actor, facts: Facts, row: InstanceRow, chain: Decision['chain']): Decision {
  const by = (defaultRole: string | null, allowed: ReadonlySet<Permission>): Decision =>
    ({ allowed, denied: false, source: 'default', defaultRole, decidedAt: null, chain });
  if (row.spaceKind === 'dept') {
    if (actor.isAdmin || facts.manages.get(row.spaceId)) return by('manager', ALL);
    if (facts.deptChain?.includes(row.spaceId)) return by('defaultrole', BUILTIN_AUTHORITIES.get('defaultrole')!);
  }
  // A full member holds their group role's authorities on the whole space; a second-level member holds only what
  // grants on their named folders give (decided above, as the nearest grant).
  const member = row.spaceKind === 'group' ? facts.groups.get(row.spaceId)?.member : null;
  if (member?.level === 1) return by(member.roleCode, BUILTIN_AUTHORITIES.get(member.roleCode) ?? NONE);
  return { allowed: NONE, denied: false, source: 'none', defaultRole: null, decidedAt: null, chain };
}

/**
 * The part of a folder's chain (root first) the actor may be shown, for breadcrumbs and paths: all of it, except in
 * someone else's personal space, where a recipient of a share sees only from the shared item down (the owner's
 * folders above it are not theirs to name). The facts are those the gate loaded for the chain.
 */
export async function shownChain(db: Db, actor: Actor, chain: readonly InstanceRow[]): Promise<InstanceRow[]> {
  const last = chain.at(-1);
  if (!last || last.spaceKind !== 'user' || ownsSpace(actor, last)) return [...chain];
  await prepareAccess(db, actor, chain);
  const first = chain.findIndex((row, i) => permissionsOn(actor, row, chain.slice(0, i)).has('view'));
  return first < 0 ? [] : chain.slice(first);
}

/** What the actor may do on a row (facts loaded by prepareAccess); the row is visible exactly with `view`. */
export function permissionsOn(actor: Actor, row: InstanceRow, ancestors: readonly InstanceRow[]): ReadonlySet<Permission> {
  const facts = factsOf(actor);
  const known = facts.decided.get(row.id);
  if (known) return known;
  const allowed = decide(actor, row, ancestors).allowed;
  facts.decided.set(row.id, allowed);
  return allowed;
}

/**
 * What the actor may do on one row, reusing the request's decisions (the gate has usually taken it): no query for
 * the owner or a decided row, else the row's chain and its facts (a constant number of queries).
 */
export async function permissionsFor(db: Db, actor: Actor, row: InstanceRow): Promise<ReadonlySet<Permission>> {
  if (ownsSpace(actor, row)) return ALL;
  const known = factsOf(actor).decided.get(row.id);
  if (known) return known;
  const rows = await getInstanceChains(db, [row.id]);
  await prepareAccess(db, actor, rows.values());
  const chain = chainOf(rows, row.id);
  return chain ? permissionsOn(actor, chain.row, chain.ancestors) : NONE;
}

/**
 * What the actor may do on each of `rows` where they are now, decided afresh (the results of a create, move or copy:
 * a moved row's decision taken earlier in the request belongs to its old place). No query when every row is in the
 * actor's own personal space; else one for the rows' chains and the facts' batch, whatever the number of rows.
 */
export async function currentPermissions(db: Db, actor: Actor, rows: readonly InstanceRow[]): Promise<ReadonlySet<Permission>[]> {
  const others = rows.filter((r) => !ownsSpace(actor, r));
  if (others.length === 0) return rows.map(() => ALL);
  const chains = await getInstanceChains(db, others.map((r) => r.id));
  await prepareAccess(db, actor, chains.values());
  const decided = factsOf(actor).decided;
  return rows.map((r) => {
    if (ownsSpace(actor, r)) return ALL;
    const c = chainOf(chains, r.id);
    if (!c) return NONE;
    const allowed = decide(actor, c.row, c.ancestors).allowed;
    decided.set(r.id, allowed);
    return allowed;
  });
}

/**
 * Refuses (FORBIDDEN) an operation on a whole folder (copy, folder walk and zip: download; recycle: delete; move:
 * edit) when some item below it is decided without `permission` for the actor (a deny, or a narrower role nearer to
 * it): the operation would hand out or take away what the grants withhold. One query for people other than the space's owner, none for the owner or a file.
 */
export async function assertSubtreeAllows(db: Db, actor: Actor, row: InstanceRow, permission: Permission): Promise<void> {
  if (!row.isFolder || ownsSpace(actor, row)) return;
  const facts = factsOf(actor);
  facts.deptChain ??= await deptChainOf(db, actor.deptId);
  for (const grants of levelsOf(await applicableGrantsBelow(db, row, actor.userId, facts.deptChain)).values()) {
    if (!levelAllows(grants, permission)) throw new AppError('FORBIDDEN', `the folder holds items you may not ${permission}`);
  }
}

/** Grants grouped by the item they are on: each group is that item's level in the decision. */
function levelsOf(grants: readonly GrantFact[]): Map<string, GrantFact[]> {
  const levels = new Map<string, GrantFact[]>();
  for (const g of grants) levels.set(g.instanceId, [...(levels.get(g.instanceId) ?? []), g]);
  return levels;
}

const levelAllows = (grants: readonly GrantFact[], permission: Permission): boolean =>
  !grants.some((g) => g.deny) && grants.some((g) => g.authorities.has(permission));

/** Whether the actor holds view on every item of the space whatever its grants say (so nothing in it is hidden). */
const seesWholeSpace = (actor: Actor, row: InstanceRow): boolean => ownsSpace(actor, row) || (actor.isAdmin === true && row.spaceKind !== 'user');

/**
 * The live children of `folder` (or, with `parentIds`, of those folders of its space) the actor may not see: those
 * whose own grants (the nearest level for them, the folder being visible) give no `view`. Empty without a query for
 * the owner of the space, and for administrators on department and group spaces (they keep view); else one query,
 * whatever the number of children.
 */
export async function hiddenChildren(db: Db, actor: Actor, folder: InstanceRow, parentIds: readonly string[] = [folder.id]): Promise<Set<string>> {
  if (seesWholeSpace(actor, folder) || parentIds.length === 0) return new Set();
  const facts = factsOf(actor);
  facts.deptChain ??= await deptChainOf(db, actor.deptId);
  const hidden = new Set<string>();
  for (const [id, grants] of levelsOf(await applicableGrantsOnChildren(db, parentIds, actor.userId, facts.deptChain))) {
    if (!levelAllows(grants, 'view')) hidden.add(id);
  }
  return hidden;
}

/**
 * Passages: the folders of `row`'s space on the way down to an item the actor views by a grant on it, though they
 * do not view those folders themselves (a grant deep in another department's space); never through a folder denied
 * to them (a deny hides what is under it from listings, even what a nearer grant reopens). A passage may
 * be listed, and its listing holds only the children that lead on; it grants nothing else (its rows are marked
 * editIsDisabled and isDisabled, its properties stay NOT_FOUND). Loaded once per space and request: one query for
 * the actor's grants in the space, one for the granted items' paths; none for the space's owner.
 */
export async function passagesOf(db: Db, actor: Actor, row: InstanceRow): Promise<Passages> {
  if (seesWholeSpace(actor, row)) return new Map();
  const facts = factsOf(actor);
  const key = `${row.spaceKind}:${row.spaceId}`;
  let found = facts.passages.get(key);
  if (!found) {
    found = (async () => {
      facts.deptChain ??= await deptChainOf(db, actor.deptId);
      return (await leadsOf(db, await applicableGrantsInSpace(db, { kind: row.spaceKind, id: row.spaceId }, actor.userId, facts.deptChain))).leads;
    })();
    facts.passages.set(key, found);
  }
  return found;
}

/**
 * Passages from the actor's applicable grants of one space or more, with the granted items' rows and their ancestors
 * (one query). See passagesOf.
 */
async function leadsOf(db: Db, grants: readonly GrantFact[]): Promise<{ leads: Map<string, Set<string>>; anchors: Set<string>; rows: Map<string, InstanceRow> }> {
  const levels = levelsOf(grants);
  const anchors = new Set([...levels].filter(([, level]) => levelAllows(level, 'view')).map(([id]) => id));
  const walls = new Set([...levels].filter(([, level]) => level.some((g) => g.deny)).map(([id]) => id));
  const rows = await getInstanceChains(db, [...anchors]);
  const leads = new Map<string, Set<string>>();
  for (const id of anchors) {
    const chain = chainOf(rows, id);
    if (!chain || chain.ancestors.some((a) => a.deletedAt !== null)) continue;
    // Up from the granted item to the nearest folder the actor views by a grant, or the root. A deny on the way is a
    // wall: what it hides stays hidden, names included (the item is still reached by id).
    const path = [...chain.ancestors, chain.row];
    const edges: [string, string][] = [];
    let walled = false;
    for (let i = path.length - 2; i >= 0; i--) {
      const parent = path[i]!.id;
      if (walls.has(parent)) {
        walled = true;
        break;
      }
      edges.push([parent, path[i + 1]!.id]);
      if (anchors.has(parent)) break;
    }
    if (walled) continue;
    for (const [parent, child] of edges) {
      let next = leads.get(parent);
      if (!next) leads.set(parent, (next = new Set()));
      next.add(child);
    }
  }
  return { leads, anchors, rows };
}

/**
 * The departments whose space holds an item the actor views by a grant on it, its root leading down to it (a
 * passage, or granted itself): the switcher's and the CLI's "reached by grant". Two queries: the actor's grants in
 * department spaces, the granted items with their ancestors.
 */
export async function deptSpacesGranted(db: Db, actor: Actor): Promise<Set<string>> {
  const facts = factsOf(actor);
  facts.deptChain ??= await deptChainOf(db, actor.deptId);
  const { leads, anchors, rows } = await leadsOf(db, await applicableGrantsInSpace(db, { kind: 'dept' }, actor.userId, facts.deptChain));
  const reached = new Set<string>();
  for (const r of rows.values()) if (r.parentId === null && r.deletedAt === null && (leads.has(r.id) || anchors.has(r.id))) reached.add(r.spaceId);
  return reached;
}

/**
 * What a listing of `folder` must leave out or keep to for the actor. A folder they view: its hidden children
 * (`except`, with how many of them are folders) save those that lead on to something granted below (passages).
 * A passage they do not view: only the children that lead on (`only`). Nothing for the owner of the space.
 */
export async function listingScope(
  db: Db, actor: Actor, folder: InstanceRow, viewed: boolean,
): Promise<{ except?: { ids: string[]; folders: number }; only?: string[] }> {
  if (!viewed) return { only: [...((await passagesOf(db, actor, folder)).get(folder.id) ?? [])] };
  const hidden = await hiddenChildren(db, actor, folder);
  if (hidden.size === 0) return {};
  const leads = (await passagesOf(db, actor, folder)).get(folder.id);
  const ids = [...hidden].filter((id) => !leads?.has(id));
  if (ids.length === 0) return {};
  const folders = (await getInstanceRows(db, ids)).filter((r) => r.isFolder && r.parentId === folder.id && r.deletedAt === null).length;
  return { except: { ids, folders } };
}

/**
 * Permissions on the rows of a listing of `folder` (whose ancestors are `ancestors`): one query for their grants,
 * none when the actor lists their own personal space.
 */
export async function permissionsOfChildren(
  db: Db, actor: Actor, folder: InstanceRow, ancestors: readonly InstanceRow[], rows: readonly InstanceRow[],
): Promise<ReadonlySet<Permission>[]> {
  if (ownsSpace(actor, folder)) return rows.map(() => ALL);
  await prepareAccess(db, actor, [...ancestors, folder, ...rows]);
  const above = [...ancestors, folder];
  return rows.map((r) => permissionsOn(actor, r, above));
}

/**
 * Which of `ids` the actor may not act on with `permission`, each with its error: NOT_FOUND for one that does not
 * exist or that they cannot see (recycled ones count only for `delete`, which restores and purges them), FORBIDDEN
 * for one they see without the permission. One query for the rows, whatever the number of ids. With `passable` (a
 * listing), a passage (passagesOf) passes for `view`.
 */
export async function checkAccess(
  db: Db, actor: Actor, permission: Permission, ids: readonly string[], loaded?: Map<string, InstanceRow>, passable = false,
  read: ChainReader = getInstanceChains,
): Promise<Map<string, AppError>> {
  const refused = new Map<string, AppError>();
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return refused;
  if (wanted.length > MAX_IDS) throw new AppError('PAYLOAD_TOO_LARGE', `at most ${MAX_IDS} ids per request`);
  // The items with their ancestors (one query): handed on through `loaded`, so that a handler needing the same
  // rows (a listing's folder and breadcrumbs) does not read them again.
  const rows = await read(db, wanted);
  if (loaded) for (const [id, row] of rows) loaded.set(id, row);
  // The facts for every item and ancestor at once (nothing for the caller's own personal files).
  await prepareAccess(db, actor, rows.values());
  for (const id of wanted) {
    // A recycled entry may have lost a purged ancestor: it is then decided on what is left of its path.
    const row = rows.get(id);
    const chain = row && (chainOf(rows, id) ?? { row, ancestors: [] });
    if (!chain || (chain.row.deletedAt !== null && permission !== 'delete')) {
      refused.set(id, notFound());
      continue;
    }
    const allowed = permissionsOn(actor, chain.row, chain.ancestors);
    if (!allowed.has('view')) {
      if (!(passable && permission === 'view' && (await isPassage(db, actor, chain.row)))) refused.set(id, notFound());
    } else if (!allowed.has(permission)) refused.set(id, new AppError('FORBIDDEN', `you may not ${permission} this item`));
  }
  return refused;
}

/** Whether the actor may list `row` as a passage (see passagesOf): a live folder leading to something granted below. */
export async function isPassage(db: Db, actor: Actor, row: InstanceRow): Promise<boolean> {
  return row.isFolder && row.deletedAt === null && (await passagesOf(db, actor, row)).has(row.id);
}

/** Throws the first refusal of checkAccess: the actor must hold `permission` on every one of `ids`. */
export async function requireAccess(db: Db, actor: Actor, permission: Permission, ids: readonly string[], read: ChainReader = getInstanceChains): Promise<void> {
  const [first] = (await checkAccess(db, actor, permission, ids, undefined, false, read)).values();
  if (first) throw first;
}

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'no such file or folder');
}

/**
 * The instance ids a request carries where the mark says: query.X and path.X (a comma-separated value names
 * several), body.X (each item's X for a list body). Empty values and '0' name the caller's own library root.
 */
export function idsAt(req: FastifyRequest, at: readonly string[]): string[] {
  const out: string[] = [];
  const add = (v: unknown): void => {
    // A list field (body.userIds) names one id per item.
    if (Array.isArray(v)) return v.forEach(add);
    if (typeof v !== 'string') return;
    for (const id of v.split(',')) if (id !== '' && id !== '0') out.push(id);
  };
  for (const where of at) {
    const [from, name] = where.split('.') as [string, string];
    if (from === 'query') add((req.query as Record<string, unknown> | undefined)?.[name]);
    else if (from === 'path') add((req.params as Record<string, unknown> | undefined)?.[name]);
    else if (from === 'body') {
      const body = req.body;
      for (const item of Array.isArray(body) ? body : [body]) if (item && typeof item === 'object') add((item as Record<string, unknown>)[name]);
    }
  }
  return out;
}

/** Operations that may name a passage (passagesOf) where their mark asks for view: a folder's listing. */
const PASSABLE: ReadonlySet<string> = new Set(['listInstances']);

/** The fileSharingId values a request carries: in the query, the body, or each item of a list body. */
function sharingIdsOf(req: FastifyRequest): string[] {
  const out = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v === 'string' && v !== '') out.add(v);
  };
  add((req.query as Record<string, unknown> | undefined)?.fileSharingId);
  const body = req.body;
  for (const item of Array.isArray(body) ? body : [body]) if (item && typeof item === 'object') add((item as Record<string, unknown>).fileSharingId);
  return [...out];
}

/**
 * Holds a call that names shares (fileSharingId) to them: each must be the actor's (they own it or it reaches them)
 * and cover every instance the call names (the shared item or something below it). Otherwise NOT_FOUND, as an
 * unknown item: someone else's share id, or an id from outside the share, reveals nothing. What the actor may do
 * inside is then the ordinary decision (which includes the share's role).
 */
async function enforceShareScope(db: Db, actor: Actor, shareIds: readonly string[], ids: readonly string[], loaded: Map<string, InstanceRow>): Promise<void> {
  const facts = factsOf(actor);
  facts.deptChain ??= await deptChainOf(db, actor.deptId);
  const roots: string[] = [];
  for (const shareId of shareIds) {
    const share = await shareFor(db, shareId, { userId: actor.userId, deptChain: facts.deptChain });
    if (!share || (!share.owned && share.roles.length === 0)) throw new AppError('NOT_FOUND', 'no such share');
    roots.push(share.instanceId);
  }
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return;
  if (wanted.length > MAX_IDS) throw new AppError('PAYLOAD_TOO_LARGE', `at most ${MAX_IDS} ids per request`);
  const rows = await getInstanceChains(db, wanted);
  for (const [id, row] of rows) loaded.set(id, row);
  for (const id of wanted) {
    const chain = chainOf(rows, id);
    const path = chain ? [chain.row, ...chain.ancestors].map((r) => r.id) : [];
    if (!roots.every((root) => path.includes(root))) throw notFound();
  }
}

/** How the gate reads the items it decides on with their ancestors (getInstanceChains, or a listing's read-ahead). */
export type ChainReader = (db: Db, ids: readonly string[]) => Promise<Map<string, InstanceRow>>;

/**
 * Enforces an operation's permission marks on a validated request (the route layer's preHandler). `read` replaces
 * the gate's read of the items a permission mark names (a listing reads its first page in the same statement).
 */
export async function enforceAccess(db: Db, req: FastifyRequest, access: Access, read?: ChainReader): Promise<void> {
  if (typeof access === 'string') return;
  if (!req.user) throw new AppError('UNAUTHENTICATED', 'login.required');
  const sharing = sharingIdsOf(req);
  if (sharing.length > 0) {
    req.gateRows ??= new Map();
    const ids = access.flatMap((need) => ('manages' in need ? [] : idsAt(req, need.ids)));
    await enforceShareScope(db, req.user, sharing, ids, req.gateRows);
  }
  for (const need of access) {
    if ('manages' in need) {
      await enforceManages(db, req, need, idsAt(req, need.ids));
      continue;
    }
    req.gateRows ??= new Map();
    const passable = need.permission === 'view' && PASSABLE.has(req.operationId ?? '');
    const refused = await checkAccess(db, req.user, need.permission, idsAt(req, need.ids), req.gateRows, passable, read);
    if (!need.each) {
      const [first] = refused.values();
      if (first) throw first;
      continue;
    }
    // A batch call: refused items fail on their own (the handler's batch reads this), the rest go on.
    req.accessRefused ??= new Map();
    for (const [id, err] of refused) if (!req.accessRefused.has(id)) req.accessRefused.set(id, err);
  }
}
