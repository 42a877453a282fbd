// The wire protocol between the web app and the local transfer agent (`drive agent`, spec sections 4 and 7): the
// result codes, the requests and the job views both sides read. One copy for the agent (cli/src/agent/protocol.ts,
// which also parses what arrives) and the web's client (web/src/shared/transfers/agent-client.ts).

/** resultCode values; the reply's `code` says the same in words for logs and the web's locale keys. */
export const RESULT = {
  OK: 0,
  /** Not JSON, unknown type or a malformed field. */
  BAD_MESSAGE: 1,
  /** An operation before a successful login on this connection. */
  NOT_PAIRED: 2,
  /** The pairing token was refused by the server (invalid, expired, used) or the account may not be used. */
  PAIRING_REFUSED: 3,
  /** A typed local path outside the allowed roots, or not found. */
  PATH_REFUSED: 4,
  /** No native picker on this machine, or the user cancelled it. */
  PICKER: 5,
  /** No such job (or not this user's). */
  NOT_FOUND: 6,
  /** The drive server could not be reached. */
  UNREACHABLE: 7,
  /** The server refused an operation (the reply's code is the server's). */
  REFUSED: 8,
  INTERNAL: 9,
} as const;

export type ResultCode = (typeof RESULT)[keyof typeof RESULT];

export type Conflict = 'newVersion' | 'keepBoth' | 'skip';

export type Request =
  | { type: 'login' | 'getToken'; reqId?: string; token: string }
  | { type: 'heartBeat'; reqId?: string }
  | { type: 'upload'; reqId?: string; parentId: string; to: string; conflict: Conflict; paths?: string[]; pick?: 'files' | 'folder'; libCode?: string; instanceType?: string }
  | { type: 'download'; reqId?: string; instanceIds: string[] }
  | { type: 'jobs'; reqId?: string }
  | { type: 'pause' | 'resume' | 'delete'; reqId?: string; jobId: string };

/** `deleted` appears only in the last update of a deleted job. */
export type JobState = 'running' | 'paused' | 'done' | 'failed' | 'deleted';

/** A job as the web panel shows it. */
export interface JobView {
  id: string;
  kind: 'upload' | 'download';
  name: string;
  state: JobState;
  /** Where it goes: the remote folder of an upload, the local folder of a download. */
  target: string;
  createdAt: number;
  files: number;
  done: number;
  failed: number;
  bytes: number;
  bytesDone: number;
  /** Bytes per second over the last seconds; 0 when not running. */
  speed: number;
  timeLeft?: number;
  /** Waiting for the web to pair again (the agent's server session ended). */
  needsToken?: boolean;
  failures: Array<{ path: string; code: string; message: string }>;
  error?: { code: string; message: string };
  // What the job transfers, so a page that lost the agent can carry it on in the browser. Optional: agents before
  // these fields send views without them, and a page then offers no browser continuation.
  /** A download's remote items. */
  instanceIds?: string[];
  /** An upload's remote folder, its conflict rule and, when the page sent them, its library and instance type. */
  parentId?: string;
  conflict?: Conflict;
  libCode?: string;
  instanceType?: string;
  /** An upload of one local folder: a browser carrying it on rebuilds its tree rather than sending files flat. */
  folder?: boolean;
}

export interface Reply {
  type: string;
  reqId?: string;
  resultCode: ResultCode;
  code?: string;
  msg?: string;
  data?: unknown;
}
