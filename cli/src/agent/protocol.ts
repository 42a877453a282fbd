// The local plugin protocol the web app speaks to `drive agent` (spec sections 4 and 7): JSON text messages on a
// WebSocket. The web sends `login` (or `getToken`) with a pairing token, then an operation; every reply names the
// request's type and reqId and carries resultCode (0 = success). The agent also pushes `job` updates and, when its
// server session has ended, a `getToken` asking the web for a fresh pairing token.
//
// Everything that arrives is untrusted: parseMessage accepts only the shapes below, with bounded sizes.

import { RESULT, type Conflict, type Request, type ResultCode } from '@hcs/transfer-core';

export { RESULT, type Conflict, type JobState, type JobView, type Reply, type Request, type ResultCode } from '@hcs/transfer-core';

export class ProtocolError extends Error {
  readonly resultCode: ResultCode;
  readonly code: string;
  constructor(resultCode: ResultCode, code: string, message: string) {
    super(message);
    this.name = 'ProtocolError';
    this.resultCode = resultCode;
    this.code = code;
  }
}

const bad = (message: string) => new ProtocolError(RESULT.BAD_MESSAGE, 'BAD_MESSAGE', message);

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_PATHS = 500;
const CONFLICTS: readonly Conflict[] = ['newVersion', 'keepBoth', 'skip'];

function str(v: unknown, name: string, max: number, re?: RegExp): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > max || (re && !re.test(v))) throw bad(`${name} is missing or malformed`);
  return v;
}

function optReqId(v: unknown): string | undefined {
  return v === undefined ? undefined : str(v, 'reqId', 64, /^[A-Za-z0-9_.:-]+$/);
}

/** The reqId of a frame that failed to parse, when it has a well-formed one, so the refusal reaches its caller. */
export function reqIdOf(text: string): string | undefined {
  try {
    const o = JSON.parse(text) as { reqId?: unknown };
    return optReqId(o?.reqId);
  } catch {
    return undefined;
  }
}

/** Parses one text frame into a request, or throws ProtocolError (BAD_MESSAGE). */
export function parseMessage(text: string): Request {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    throw bad('not JSON');
  }
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw bad('not an object');
  const o = m as Record<string, unknown>;
  const reqId = optReqId(o.reqId);
  switch (o.type) {
    case 'login':
    case 'getToken':
      return { type: o.type, reqId, token: str(o.token, 'token', 512, /^[A-Za-z0-9_.-]+$/) };
    case 'heartBeat':
    case 'jobs':
      return { type: o.type, reqId };
    case 'pause':
    case 'resume':
    case 'delete':
      return { type: o.type, reqId, jobId: str(o.jobId, 'jobId', 64, ID_RE) };
    case 'download': {
      const ids = o.instanceIds;
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_PATHS) throw bad('instanceIds must list 1 to 500 ids');
      return { type: 'download', reqId, instanceIds: ids.map((id) => str(id, 'instanceIds[]', 64, ID_RE)) };
    }
    case 'upload': {
      const conflict = o.conflict === undefined ? 'newVersion' : o.conflict;
      if (!CONFLICTS.includes(conflict as Conflict)) throw bad('conflict must be newVersion, keepBoth or skip');
      const base = {
        type: 'upload' as const,
        reqId,
        parentId: str(o.parentId, 'parentId', 64, ID_RE),
        to: o.to === undefined ? '/' : str(o.to, 'to', 4096),
        conflict: conflict as Conflict,
        // Echoed back in the job's view only, so a page that loses the agent can upload into the same library itself.
        ...(o.libCode === undefined ? {} : { libCode: str(o.libCode, 'libCode', 64, ID_RE) }),
        ...(o.instanceType === undefined ? {} : { instanceType: str(o.instanceType, 'instanceType', 8, /^[0-9]+$/) }),
      };
      if (o.pick !== undefined) {
        if (o.paths !== undefined) throw bad('send either paths or pick');
        if (o.pick !== 'files' && o.pick !== 'folder') throw bad('pick must be files or folder');
        return { ...base, pick: o.pick };
      }
      const paths = o.paths;
      if (!Array.isArray(paths) || paths.length === 0 || paths.length > MAX_PATHS) throw bad('paths must list 1 to 500 local paths (or send pick)');
      return { ...base, paths: paths.map((p) => str(p, 'paths[]', 4096)) };
    }
    default:
      throw bad('unknown message type');
  }
}
