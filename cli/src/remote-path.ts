// Remote paths such as /docs/a are resolved by walking the folder tree from the personal library root
// with listInstances (filtered by name, then matched exactly), because the /hcs API addresses
// instances by id only. Paths are normalised lexically first, so ".." can never climb above the root.
import { encodeName, FORBIDDEN_NAME_CHARS, MAX_NAME_LENGTH, nameProblem as sharedNameProblem, type components, type NameProblem } from '@hcs/openapi/client';
import type { Api } from './api.ts';
import { CliError, EXIT, usageError } from './exit-codes.ts';

export type Instance = components['schemas']['Instance'];

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

/** A resolved remote location: the root itself (instance null) or an instance. */
export interface Resolved {
  /** Id to use as parentId when listing or creating inside it. */
  id: string;
  instance: Instance | null;
  segments: string[];
}

export function notFound(path: string): CliError {
  return new CliError(EXIT.REFUSED, `no such file or folder: ${path}`, 'NOT_FOUND');
}

export class RemoteFs {
  private rootId: string | undefined;
  private readonly api: Api;
  constructor(api: Api) {
    this.api = api;
  }

  /** The personal library root's id (the server resolves it when listInstances names no parent). */
  async root(): Promise<string> {
    if (this.rootId === undefined) {
      const res = await this.api.call((c) => c.GET('/hcs/controller/Page', { params: { query: { pageSize: 1 } } }));
      if (!res.data) throw new CliError(EXIT.REFUSED, 'the server returned no library root', 'BAD_RESPONSE');
      this.rootId = res.data.parentId;
    }
    return this.rootId;
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
    const segments = parseRemotePath(path);
    let id = await this.root();
    let instance: Instance | null = null;
    for (let i = 0; i < segments.length; i++) {
      if (instance && instance.classifierId !== 'Folder') throw notFound(formatRemotePath(segments.slice(0, i + 1)));
      const child = await this.findChild(id, segments[i]!);
      if (!child) throw notFound(formatRemotePath(segments.slice(0, i + 1)));
      instance = child;
      id = child.instanceId;
    }
    return { id, instance, segments };
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
