// Remote paths such as /docs/a are resolved by walking the folder tree from the personal library root
// with listInstances (filtered by name, then matched exactly), because the /hcs API addresses
// instances by id only. Paths are normalised lexically first, so ".." can never climb above the root.
// `dept:<department name or id>/docs/a` starts the walk at that department's space root instead: the
// department is picked from those the caller can reach (getNPDept), and the listing with deptId names its root.
// `group:<group name or id>/docs/a` starts at a group space's root: the group is picked from the caller's groups
// (searchGroup), which name their roots.
import { encodeName, FORBIDDEN_NAME_CHARS, MAX_NAME_LENGTH, nameProblem as sharedNameProblem, type components, type NameProblem } from '@hcs/openapi/client';
import type { Api } from './api.ts';
import { CliError, EXIT, usageError } from './exit-codes.ts';

export type Instance = components['schemas']['Instance'];

/** The space a remote path starts in: the caller's personal library, a department's space or a group's. */
export type Space = { kind: 'personal' } | { kind: 'dept'; ref: string } | { kind: 'group'; ref: string };
export const PERSONAL: Space = { kind: 'personal' };

/** A parsed remote path: its space and the validated segments below that space's root. */
export interface RemotePath {
  space: Space;
  segments: string[];
}

const DEPT_PREFIX = 'dept:';
const GROUP_PREFIX = 'group:';

// The contract's name rules (shared with the server and the web), in the CLI's words.
const MESSAGES: Record<NameProblem, string> = {
  empty: 'empty name',
  whitespace: 'name starts or ends with whitespace',
  tooLong: `name longer than ${MAX_NAME_LENGTH} characters`,
  forbiddenChars: `name contains one of ${FORBIDDEN_NAME_CHARS.join(' ')}`,
  control: 'name contains control characters',
  reserved: 'name is reserved ("." or "..")',
};

/** Why a name is invalid on the server, or null when it is valid. */
export function nameProblem(name: string): string | null {
  const problem = sharedNameProblem(name);
  return problem && MESSAGES[problem];
}

/** Splits a remote path into validated segments. "/" and "" are the root (no segments). */
export function parseRemotePath(path: string): string[] {
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) throw usageError(`remote path climbs above the root: ${path}`);
      out.pop();
      continue;
    }
    const problem = nameProblem(seg);
    if (problem) throw usageError(`invalid remote path "${path}": ${problem} ("${seg}")`);
    out.push(seg);
  }
  return out;
}

export function formatRemotePath(segments: readonly string[]): string {
  return '/' + segments.join('/');
}

/**
 * Splits `/a/b` (personal), `dept:<name or id>/a/b` (a department space) or `group:<name or id>/a/b` (a group
 * space) into its space and segments. Only these prefixes name another space, so a personal path never changes
 * meaning (a name cannot hold ':').
 */
export function parseRemote(path: string): RemotePath {
  const [prefix, kind, what] = path.startsWith(DEPT_PREFIX) ? [DEPT_PREFIX, 'dept', 'department'] as const
    : path.startsWith(GROUP_PREFIX) ? [GROUP_PREFIX, 'group', 'group'] as const : [];
  if (!prefix) return { space: PERSONAL, segments: parseRemotePath(path) };
  const rest = path.slice(prefix.length);
  const slash = rest.indexOf('/');
  const ref = (slash < 0 ? rest : rest.slice(0, slash)).trim();
  if (!ref) throw usageError(`invalid remote path "${path}": name the ${what} after ${prefix} (${prefix}<name or id>/folder)`);
  return { space: { kind, ref }, segments: parseRemotePath(slash < 0 ? '' : rest.slice(slash)) };
}

/** The path as the user writes it: `/a/b`, `dept:Sales/a/b` or `group:Apollo/a/b`. */
export function formatRemote(space: Space | undefined, segments: readonly string[]): string {
  const tail = formatRemotePath(segments);
  if (space?.kind === 'dept') return `${DEPT_PREFIX}${space.ref}${tail}`;
  return space?.kind === 'group' ? `${GROUP_PREFIX}${space.ref}${tail}` : tail;
}

/** A group as the picker needs it. */
export interface GroupRef {
  groupId: string;
  groupName: string;
  rootId: string;
}

/** The group `ref` names among the caller's: an id first, else the name without case (unique among live groups). */
export function pickGroup<G extends GroupRef>(ref: string, groups: readonly G[]): G {
  const hit = groups.find((g) => g.groupId === ref) ?? groups.find((g) => g.groupName.toLowerCase() === ref.trim().toLowerCase());
  if (!hit) throw new CliError(EXIT.REFUSED, `no group "${ref}" that you belong to`, 'NOT_FOUND');
  return hit;
}

/** A department as the pickers need it: its id, name and the names from the root down to it. */
export interface DeptRef {
  id: string;
  name: string;
  pathNames: string[];
}

/** "Company/Sales/East (id d42)": how candidates are listed so that either form can be typed back. */
export function describeDept(d: DeptRef): string {
  return `${d.pathNames.join('/')} (id ${d.id})`;
}

/**
 * The department `ref` names among `depts`: an id first (ids are unambiguous), else a name (compared without case,
 * as the server keeps names unique among siblings), else a path of names joined by / from below the root (or from
 * the root itself). A name that fits several departments is an error listing them all, with their ids.
 */
export function pickDept<D extends DeptRef>(ref: string, depts: readonly D[]): D {
  const byId = depts.find((d) => d.id === ref);
  if (byId) return byId;
  const key = ref.trim().toLowerCase();
  let hits = depts.filter((d) => d.name.toLowerCase() === key);
  if (hits.length === 0 && key.includes('/')) {
    const parts = key.split('/').map((p) => p.trim()).filter((p) => p !== '');
    const joined = parts.join('/');
    hits = depts.filter((d) => {
      const names = d.pathNames.map((n) => n.toLowerCase());
      return names.join('/') === joined || names.slice(1).join('/') === joined;
    });
  }
  if (hits.length === 1) return hits[0]!;
  if (hits.length === 0) return notFoundDept(ref);
  const list = [...hits].sort((a, b) => a.pathNames.join('/').localeCompare(b.pathNames.join('/'))).map(describeDept);
  throw new CliError(EXIT.USAGE, `department "${ref}" is ambiguous; name one by its id (dept:<id>): ${list.join('; ')}`, 'DEPT_AMBIGUOUS');
}

function notFoundDept(ref: string): never {
  throw new CliError(EXIT.REFUSED, `no department "${ref}" that you can reach`, 'NOT_FOUND');
}

/** A resolved remote location: the root itself (instance null) or an instance. */
export interface Resolved {
  /** Id to use as parentId when listing or creating inside it. */
  id: string;
  instance: Instance | null;
  /** Segments below the space's root. */
  segments: string[];
  /** The space the path is in (absent: personal). */
  space?: Space;
}

export function notFound(path: string): CliError {
  return new CliError(EXIT.REFUSED, `no such file or folder: ${path}`, 'NOT_FOUND');
}

/** Every group the caller belongs to, page by page. */
export async function myGroups(api: Api): Promise<GroupRef[]> {
  const out: GroupRef[] = [];
  for (let pageNo = 1; ; pageNo++) {
    const page = (await api.call((c) => c.GET('/hcs/controller/groupFile/searchGroup', { params: { query: { pageNo, pageSize: 1000 } } }))).data;
    if (!page) break;
    out.push(...page.list);
    if (page.list.length === 0 || pageNo * page.pageSize >= page.total) break;
  }
  return out;
}

export class RemoteFs {
  /** Space roots by space key ('personal' or 'dept:<ref>'). */
  private readonly roots = new Map<string, Promise<string>>();
  private reachable: Promise<DeptRef[]> | undefined;
  private groups: Promise<GroupRef[]> | undefined;
  private readonly api: Api;
  constructor(api: Api) {
    this.api = api;
  }

  /** The departments whose spaces the caller can open (asked once). */
  reachableDepts(): Promise<DeptRef[]> {
    this.reachable ??= this.api.call((c) => c.GET('/hcs/controller/sysGroup/getNPDept', {})).then((res) => res.data ?? []);
    return this.reachable;
  }

  /** The department a `dept:` path names (see pickDept). */
  async dept(ref: string): Promise<DeptRef> {
    return pickDept(ref, await this.reachableDepts());
  }

  /** The group a `group:` path names among the caller's groups (see pickGroup). */
  async group(ref: string): Promise<GroupRef> {
    this.groups ??= myGroups(this.api);
    return pickGroup(ref, await this.groups);
  }

  /**
   * A space's root folder id: the server names it in the listing of the space (no parentId); a department space's
   * root is made on first use.
   */
  root(space: Space = PERSONAL): Promise<string> {
    const key = space.kind === 'personal' ? 'personal' : formatRemote(space, []);
    let id = this.roots.get(key);
    if (!id) {
      id = (async () => {
        if (space.kind === 'group') return (await this.group(space.ref)).rootId;
        const query = space.kind === 'dept' ? { pageSize: 1, instanceType: '3', deptId: (await this.dept(space.ref)).id } : { pageSize: 1 };
        const res = await this.api.call((c) => c.GET('/hcs/controller/Page', { params: { query } }));
        if (!res.data) throw new CliError(EXIT.REFUSED, 'the server returned no library root', 'BAD_RESPONSE');
        return res.data.parentId;
      })();
      this.roots.set(key, id);
      id.catch(() => this.roots.delete(key));
    }
    return id;
  }

  /** The child of a folder with exactly this name, or null. */
  async findChild(parentId: string, name: string): Promise<Instance | null> {
    let cursor: string | undefined;
    for (;;) {
      const res = await this.api.call((c) =>
        c.GET('/hcs/controller/Page', { params: { query: { parentId, keyword: name, pageSize: 1000, ...(cursor ? { cursor } : {}) } } }),
      );
      const page = res.data;
      if (!page) return null;
      const hit = page.list.find((i) => i.instanceName === name);
      if (hit) return hit;
      if (!page.nextCursor || page.list.length === 0) return null;
      cursor = page.nextCursor;
    }
  }

  /** Resolves a path; throws NOT_FOUND naming the path when any segment is missing. */
  async resolve(path: string): Promise<Resolved> {
    const { space, segments } = parseRemote(path);
    let id = await this.root(space);
    let instance: Instance | null = null;
    for (let i = 0; i < segments.length; i++) {
      if (instance && instance.classifierId !== 'Folder') throw notFound(formatRemote(space, segments.slice(0, i + 1)));
      const child = await this.findChild(id, segments[i]!);
      if (!child) throw notFound(formatRemote(space, segments.slice(0, i + 1)));
      instance = child;
      id = child.instanceId;
    }
    return { id, instance, segments, space };
  }

  /** Every child of a folder, page by page (keyset cursor), folders first. */
  async *children(parentId: string): AsyncGenerator<Instance> {
    let cursor: string | undefined;
    let pageNo = 1;
    for (;;) {
      const res = await this.api.call((c) =>
        c.GET('/hcs/controller/Page', { params: { query: { parentId, pageSize: 1000, ...(cursor ? { cursor } : { pageNo }) } } }),
      );
      const page = res.data;
      if (!page) return;
      yield* page.list;
      if (page.list.length === 0) return;
      if (page.nextCursor) cursor = page.nextCursor;
      else if (page.pageNo * page.pageSize < page.total) pageNo = page.pageNo + 1;
      else return;
    }
  }

  /** Creates one folder; when another client created it first, returns that one. */
  async createFolder(parentId: string, name: string): Promise<Instance> {
    try {
      const res = await this.api.call((c) =>
        c.POST('/hcs/controller/Instances', { body: [{ libCode: 'NetDisk', classifierId: 'Folder', instanceName: encodeName(name), parentId }] }),
      );
      const created = res.data?.[0];
      if (!created) throw new CliError(EXIT.REFUSED, `the server created no folder "${name}"`, 'BAD_RESPONSE');
      return created;
    } catch (err) {
      if (err instanceof CliError && err.code === 'NAME_EXISTS') {
        const existing = await this.findChild(parentId, name);
        if (existing && existing.classifierId === 'Folder') return existing;
        throw new CliError(EXIT.REFUSED, `"${name}" exists and is not a folder`, 'NAME_EXISTS');
      }
      throw err;
    }
  }

  /** mkdir -p on a parsed path in any space: returns the deepest folder's id. */
  async ensurePath(p: RemotePath): Promise<string> {
    return this.ensureFolder(p.segments, undefined, await this.root(p.space));
  }

  /**
   * mkdir -p: resolves the path, creating every missing folder; returns the deepest folder's id. `baseId`: the folder
   * the segments start from (default the library root); cache keys are then relative to it.
   */
  async ensureFolder(segments: readonly string[], cache?: Map<string, string>, baseId?: string): Promise<string> {
    let id = baseId ?? (await this.root());
    for (let i = 0; i < segments.length; i++) {
      const key = formatRemotePath(segments.slice(0, i + 1));
      const cached = cache?.get(key);
      if (cached) {
        id = cached;
        continue;
      }
      const name = segments[i]!;
      const existing = await this.findChild(id, name);
      if (existing && existing.classifierId !== 'Folder') throw new CliError(EXIT.REFUSED, `${key} exists and is not a folder`, 'NAME_EXISTS');
      id = existing ? existing.instanceId : (await this.createFolder(id, name)).instanceId;
      cache?.set(key, id);
    }
    return id;
  }
}
