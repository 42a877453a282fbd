// Pull sync: a user's files come over from an account on another drive server, as a job on the database queue.
//
// The password is decrypted (our own RSA key), used once to sign in on the remote server and dropped. What lets the
// job resume after a restart is the remote session token, sealed under the master key in the job's row and cleared
// when the job ends; a pull that outlives that session ends with REMOTE_LOGIN_FAILED and is started again by the user.
//
// The job walks the remote tree folder by folder. Each remote file is skipped when its folder here already holds it
// (same name, or the "name (n).ext" a keep-both filing gave it, and the same SHA-256): that, not a progress record,
// is what makes a resumed or repeated pull free of duplicates, whatever happened between a filing and a counter
// update. Every other file streams from the remote storage into ours, hashed on the way (never held in memory), and
// is filed exactly as bulk-upload files one (files/bulk-register.ts): quota reserved first and charged to the user,
// content deduplicated, one operation-log line. A remote file whose bytes do not have the announced hash is
// counted as failed and not filed.
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { encodeName } from '@hcs/openapi/client';
import type { AppContext } from '../context.ts';
import type { SessionUser } from '../auth/types.ts';
import { authOf } from '../auth/index.ts';
import { transaction } from '../db/sql/tx.ts';
import { enqueue, type Job } from '../db/sql/jobs.ts';
import type { JobContext, JobHandler } from '../db/sql/worker.ts';
import { countPull, endOrphanedPulls, finishPull, getPull, hasImported, insertPull, isRunning, notePull, type PullRow } from '../db/pullsync-repo.ts';
import { getInstanceRow, insertInstance, nameTaken, type InstanceRow } from '../db/instances-repo.ts';
import { listGroups } from '../db/groups-repo.ts';
import { getLinkCaller, getUserById } from '../db/users-repo.ts';
import { deleteSessions } from '../db/uploads-repo.ts';
import { entriesOf, fail, fileBulk, logBulk, mayHoldObject, reserveBulk, type Entry, type FileResult, type Manifest } from '../files/bulk-register.ts';
import { resolveFolder, type Caller } from '../files/access.ts';
import { permissionsFor } from '../files/access-gate.ts';
import { openString, sealString } from '../storage/master-key.ts';
import type { ObjectStore, Sse, StoreLocation } from '../storage/object-store.ts';
import { uploadPlaces } from '../storage/routing.ts';
import { AppError } from '../http/errors.ts';
import { allowedSource, normaliseServerUrl, remoteSignIn, RemoteDrive, type RemoteInstance } from './remote.ts';

export const PULL_JOB = 'pullSync.pull';
/** A restart or an unreachable remote costs an attempt; each waits longer (the queue's backoff). */
const MAX_ATTEMPTS = 10;
/** Codes after which trying again cannot help: the pull ends as not synchronised. */
const FINAL = new Set(['REMOTE_LOGIN_FAILED', 'SPACE_NOT_ENOUGH', 'FORBIDDEN', 'NOT_FOUND']);

type Actor = Caller & Pick<SessionUser, 'isAdmin'>;

export interface PullRequest {
  userName: string;
  /** Wire-encrypted with this server's public key. */
  password: string;
  serverUrl: string;
  syncType: 'personal' | 'group';
  groupName?: string | undefined;
}

export interface PullSync {
  /** Checks the request, signs in on the remote server and queues the job; answers the new row. */
  start(user: SessionUser, req: PullRequest): Promise<PullRow>;
  handler: JobHandler;
  /** Stops the pulls this node runs (shutdown): each goes back to the queue and resumes on a node. */
  stop(): void;
}

const aadOf = (pullId: string) => `pull-sync:${pullId}`;

const byCtx = new WeakMap<AppContext, PullSync>();

/** The server instance's one PullSync (the handlers start pulls, the node's worker runs them). */
export function pullSyncOf(ctx: AppContext): PullSync {
  let p = byCtx.get(ctx);
  if (!p) {
    p = createPullSync(ctx);
    byCtx.set(ctx, p);
  }
  return p;
}

/** The pull is no longer running (ended as orphaned while this worker still held it): stop without a trace. */
class Ended extends Error {
  constructor() {
    super('the pull ended meanwhile');
  }
}

class Stopped extends Error {
  constructor() {
    super('this server stopped; the pull resumes on the next claim');
  }
}

function createPullSync(ctx: AppContext): PullSync {
  const { db } = ctx;
  const running = new Set<AbortController>();
  let stopping = false;

  async function start(user: SessionUser, req: PullRequest): Promise<PullRow> {
    const serverUrl = normaliseServerUrl(req.serverUrl);
    if (!allowedSource(ctx.config.pullSources, serverUrl)) {
      throw new AppError('FORBIDDEN', 'this server does not pull from that server (HCS_PULL_SOURCES)');
    }
    const password = authOf(ctx).keys.decryptPassword(req.password, 'password');
    const token = await remoteSignIn(serverUrl, req.userName, password);
    await endOrphanedPulls(db, user.userId);
    return transaction(db, async (trx) => {
      const row = await insertPull(trx, {
        userId: user.userId, syncType: req.syncType, serverUrl, remoteUser: req.userName, groupName: req.groupName ?? null,
        seal: (id) => sealString(ctx.keyring, token, aadOf(id)),
      });
      await enqueue(trx, { kind: PULL_JOB, payload: { pullId: row.id }, dedupeKey: `pull:${row.id}`, maxAttempts: MAX_ATTEMPTS });
      return row;
    });
  }

  async function handler(job: Job, jctx: JobContext): Promise<void> {
    const { pullId } = job.payload as { pullId: string };
    const row = await getPull(db, pullId);
    if (!row || row.state !== 'running' || row.token_enc === null) return;
    const stop = new AbortController();
    const onLost = () => stop.abort(jctx.signal.reason);
    jctx.signal.addEventListener('abort', onLost, { once: true });
    running.add(stop);
    if (stopping) stop.abort(new Stopped());
    try {
      await pull(row, stop.signal);
      await finishPull(db, row.id, 'done', null);
    } catch (err) {
      // Ended meanwhile (its job was given up and the pull marked so): nothing left to record.
      if (err instanceof Ended) return;
      if (stop.signal.aborted) throw stop.signal.reason instanceof Error ? stop.signal.reason : new Stopped();
      const final = err instanceof AppError && FINAL.has(err.code);
      const code = err instanceof AppError ? err.code : 'INTERNAL';
      const message = err instanceof AppError ? err.message : 'an unexpected failure (see the server log)';
      if (!(err instanceof AppError)) ctx.log.error({ err, pullId }, 'pull sync: unexpected failure');
      if (final || job.attempts >= job.maxAttempts) {
        await finishPull(db, row.id, 'failed', `${code}: ${message}`);
        return;
      }
      throw new Error(`${code}: ${message}`, { cause: err });
    } finally {
      running.delete(stop);
      jctx.signal.removeEventListener('abort', onLost);
    }
  }

  async function pull(row: PullRow, signal: AbortSignal): Promise<void> {
    const caller = await getLinkCaller(db, row.user_id);
    if (!caller) throw new AppError('FORBIDDEN', 'the account is disabled or gone');
    const user = (await getUserById(db, row.user_id))!;
    const remote = new RemoteDrive(row.server_url, openString(ctx.keyring, row.token_enc!, aadOf(row.id)));
    const importer = new Importer(ctx, row, caller, user.userName, remote, signal);
    if (row.sync_type === 'personal') {
      const root = await resolveFolder(db, caller, undefined, 'NetDisk', undefined, 'write');
      await importer.folder(await remote.personalRoot(signal), root);
      return;
    }
    const wanted = row.group_name?.toLowerCase();
    const groups = (await remote.groups(signal)).filter((g) => wanted === undefined || g.groupName.toLowerCase() === wanted);
    if (wanted !== undefined && groups.length === 0) throw new AppError('NOT_FOUND', `the account belongs to no group "${row.group_name}" there`);
    for (const g of groups) {
      const local = await localGroupRoot(caller, g.groupName);
      if (!local) {
        await notePull(db, row.id, `NOT_FOUND: no group "${g.groupName}" here that you may upload to; its files were not pulled`);
        continue;
      }
      await importer.folder(g.rootId, local);
    }
  }

  /** The root of the caller's group of that name here, when the caller may upload into it. */
  async function localGroupRoot(caller: Actor, name: string): Promise<InstanceRow | undefined> {
    const { rows } = await listGroups(db, caller.userId, { keyword: name }, { limit: 100, offset: 0 });
    const g = rows.find((r) => r.name.toLowerCase() === name.toLowerCase());
    const root = g?.rootId ? await getInstanceRow(db, g.rootId) : undefined;
    if (!root || root.deletedAt !== null) return undefined;
    return (await permissionsFor(db, caller, root)).has('upload') ? root : undefined;
  }

  return {
    start,
    handler,
    stop() {
      stopping = true;
      for (const c of running) c.abort(new Stopped());
    },
  };
}

/** Copies one remote tree into a local folder (see the file comment). */
class Importer {
  readonly #ctx: AppContext;
  readonly #row: PullRow;
  readonly #caller: Actor;
  readonly #userName: string;
  readonly #remote: RemoteDrive;
  readonly #signal: AbortSignal;

  constructor(ctx: AppContext, row: PullRow, caller: Actor, userName: string, remote: RemoteDrive, signal: AbortSignal) {
    this.#ctx = ctx;
    this.#row = row;
    this.#caller = caller;
    this.#userName = userName;
    this.#remote = remote;
    this.#signal = signal;
  }

  async folder(remoteId: string, local: InstanceRow): Promise<void> {
    for await (const child of this.#remote.children(remoteId, this.#signal)) {
      this.#signal.throwIfAborted();
      if (child.classifierId === 'Folder') await this.folder(child.instanceId, await this.#subfolder(local, child.instanceName));
      else await this.#file(local, child);
    }
  }

  /** The folder of that name here, made when missing (a file of that name here: the folder gets "name (n)"). */
  async #subfolder(parent: InstanceRow, name: string): Promise<InstanceRow> {
    const db = this.#ctx.db;
    const taken = await nameTaken(db, parent.id, name);
    if (taken?.isFolder) return (await getInstanceRow(db, taken.id))!;
    return insertInstance(db, { parent, name, isFolder: true, createdBy: this.#caller.userId, conflict: 'rename' });
  }

  async #file(folder: InstanceRow, f: RemoteInstance): Promise<void> {
    const { db } = this.#ctx;
    if (!(await isRunning(db, this.#row.id))) throw new Ended();
    const sha = f.fMd5 ?? '';
    if (!/^[0-9a-f]{64}$/.test(sha) || !(f.fSize >= 0)) {
      await countPull(db, this.#row.id, { failed: 1 });
      return;
    }
    if (await hasImported(db, folder.id, f.instanceName, sha)) {
      await countPull(db, this.#row.id, { skipped: 1 });
      return;
    }
    // Imported files are new uploads of their library: stored where its policy says.
    const places = await uploadPlaces(this.#ctx);
    const manifest: Manifest = { parentId: folder.id, conflict: 'keepBoth', files: [{ fName: encodeName(f.instanceName), fSize: f.fSize, fMd5: sha }] };
    const entries = entriesOf(manifest);
    const e = entries[0]!;
    await reserveBulk(db, this.#caller, places, manifest, entries);
    if (e.result) {
      if (e.result.code === 'SPACE_NOT_ENOUGH') throw new AppError('SPACE_NOT_ENOUGH', e.result.msg ?? 'not enough space');
      await countPull(db, this.#row.id, { failed: 1 });
      return;
    }
    const session = e.session!;
    try {
      const to = e.instant ? undefined : { store: await this.#ctx.store().at(session), key: session.objectKey, sse: places(session.libCode).sse };
      const digest = await this.#receive(f, to, () => (e.stored = true));
      if (digest !== sha) fail(e, 'HASH_MISMATCH', 'the other server\'s bytes do not have the SHA-256 it announced');
    } catch (err) {
      await deleteSessions(db, [session.id]);
      if (mayHoldObject(e) || !e.instant) await this.#discard([session.objectKey], session);
      throw err;
    }
    const redundant: string[] = [];
    try {
      // Checked again after the transfer, which may have taken long: an ended pull files nothing more.
      if (!(await isRunning(db, this.#row.id))) throw new Ended();
      await fileBulk(db, this.#caller.userId, entries, redundant);
    } catch (err) {
      await deleteSessions(db, [session.id]);
      if (mayHoldObject(e)) await this.#discard([session.objectKey], session);
      throw err;
    }
    await this.#discard(redundant, session);
    // fileBulk wrote the outcome (the check above narrowed the field to undefined).
    const result: FileResult = (e as Entry).result ?? { outcome: 'failed' };
    const origin = { userId: this.#caller.userId, userName: this.#userName, device: 'pull-sync', ip: '', traceId: `pull-${this.#row.id}` };
    await logBulk(db, origin, entries, [result]).catch((err: unknown) => this.#ctx.log.error({ err }, 'pull sync: operation log write failed'));
    const filed = result.outcome === 'uploaded' || result.outcome === 'instant';
    await countPull(db, this.#row.id, filed ? { files: 1, bytes: f.fSize } : { failed: 1 });
  }

  /**
   * Streams the remote file through a hash, into storage under `to.key` (or only through the hash when the content is
   * held here already); answers the hex digest.
   */
  async #receive(f: RemoteInstance, to: { store: ObjectStore; key: string; sse: Sse | undefined } | undefined, stored: () => void): Promise<string> {
    const hash = createHash('sha256');
    const body: Readable = await this.#remote.download(f.instanceId, this.#signal);
    const hashing = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    body.on('error', (err) => hashing.destroy(err));
    body.pipe(hashing);
    if (to === undefined) {
      for await (const chunk of hashing) void chunk;
    } else {
      await to.store.putObject(to.key, hashing, { contentLength: f.fSize, sse: to.sse });
      stored();
    }
    return hash.digest('hex');
  }

  /** Deletes staging objects from the place of the session that wrote them. */
  async #discard(keys: string[], at: StoreLocation): Promise<void> {
    if (keys.length === 0) return;
    const res = await this.#ctx.store().at(at).then((s) => s.deleteObjects(keys)).catch((err: unknown) => ({ errors: [{ key: '*', code: 'Error', message: String(err) }] }));
    if (res.errors.length) this.#ctx.log.warn({ count: res.errors.length }, 'pull sync: staging objects left for the sweeper');
  }
}
