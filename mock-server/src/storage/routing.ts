// Per-library storage routing (issue #20 parts 1 and 5). A library's policy names the connection and bucket its NEW
// uploads go to (and the SSE an external S3 is asked for); every blob and upload session records where its bytes are,
// and everything that reads, copies or deletes them goes there (ObjectStore.at), whatever the policy says today.
//
// Stores of other locations are cached per connection and bucket, so a download does not build an S3 client each
// time. The connection's row is read on each lookup (one primary-key read): an edit made on any node (new endpoint,
// new secret) is seen by the next request, which gets a store built from the edited row.
import type { AppContext } from '../context.ts';
import { EMBEDDED_CONNECTION, getConnection, getPolicy, listPolicies, type PolicyRow } from '../db/storage-repo.ts';
import type { Db } from '../db/sql/tx.ts';
import { encryptedAtRest, storeOf } from './connections.ts';
import type { ObjectStore, Sse, StoreLocation } from './object-store.ts';

export type { StoreLocation } from './object-store.ts';

/** Where a library's new uploads go and how they are protected at rest. */
export interface UploadPlace extends StoreLocation {
  store: ObjectStore;
  /** What the external S3 is asked for on each new object (undefined: nothing). */
  sse: Sse | undefined;
  /** What protects the new objects at rest, as it is: the admin screen's inForce and file-uploadable's storeEncryption. */
  inForce: InForce;
}

export type InForce = 'aes256-gcm' | 'sse-s3' | 'sse-kms' | 'none';

/** The SSE a policy asks an external S3 for; connection zero is never asked (the embedded store encrypts itself). */
export function policySse(p: Pick<PolicyRow, 'connection_id' | 'encryption' | 'kms_key_id'> | undefined): Sse | undefined {
  if (!p || p.connection_id === EMBEDDED_CONNECTION) return undefined;
  if (p.encryption === 'sse-s3') return { mode: 'AES256' };
  if (p.encryption === 'sse-kms') return { mode: 'aws:kms', ...(p.kms_key_id ? { kmsKeyId: p.kms_key_id } : {}) };
  return undefined;
}

/**
 * What is in force for a policy's new objects: on connection zero, the embedded store's own encryption (on for the
 * whole bucket while any library asks for it); elsewhere the SSE the server sends with every write.
 */
export function inForceOf(own: ObjectStore, p: Pick<PolicyRow, 'connection_id' | 'bucket' | 'encryption' | 'kms_key_id'> | undefined): InForce {
  if (!p || p.connection_id === EMBEDDED_CONNECTION) return p?.bucket !== undefined && p.bucket !== own.bucket ? 'none' : encryptedAtRest(own) ? 'aes256-gcm' : 'none';
  const sse = policySse(p);
  return sse?.mode === 'AES256' ? 'sse-s3' : sse?.mode === 'aws:kms' ? 'sse-kms' : 'none';
}

interface Cached { version: number; store: ObjectStore }

/** The locator connection zero's store routes with (ObjectStore.routeWith): every other location, cached. */
export function connectionLocator(ctx: Pick<AppContext, 'db' | 'store' | 'keyring'>): (at: StoreLocation) => Promise<ObjectStore> {
  const cache = new Map<string, Cached>();
  return async (at) => {
    const key = `${at.connectionId}\n${at.bucket}`;
    if (at.connectionId === EMBEDDED_CONNECTION) {
      // Another bucket of the server's own store: the same endpoint and credentials.
      let hit = cache.get(key);
      if (!hit) {
        hit = { version: 0, store: ctx.store().forBucket(at.bucket) };
        cache.set(key, hit);
      }
      return hit.store;
    }
    const row = await getConnection(ctx.db, at.connectionId);
    if (!row) throw new Error(`storage connection ${at.connectionId} no longer exists`);
    const hit = cache.get(key);
    if (hit && hit.version === row.updated_at) return hit.store;
    // A replaced store is left to the collector rather than destroyed: a download may still be streaming from it.
    const store = storeOf(ctx.keyring, row, at.bucket);
    cache.set(key, { version: row.updated_at, store });
    return store;
  };
}

/** Where a library's new uploads go: its policy's connection and bucket, else connection zero's default bucket. */
export async function uploadPlace(ctx: Pick<AppContext, 'db' | 'store'>, libCode: string): Promise<UploadPlace> {
  const own = ctx.store();
  const policy = await getPolicy(ctx.db, libCode);
  const at: StoreLocation = policy ? { connectionId: policy.connection_id, bucket: policy.bucket } : { connectionId: EMBEDDED_CONNECTION, bucket: own.bucket };
  return { ...at, store: await own.at(at), sse: policySse(policy), inForce: inForceOf(own, policy) };
}

/**
 * Every library's upload place at once, looked up without a query: a bulk upload files into folders of any library
 * inside one transaction, where another query on the database would wait for that transaction.
 */
export async function uploadPlaces(ctx: Pick<AppContext, 'db' | 'store'>): Promise<(libCode: string) => StoreLocation & { sse: Sse | undefined }> {
  const own = ctx.store().bucket;
  const byLib = new Map((await listPolicies(ctx.db)).map((p) => [p.lib_code, p]));
  return (libCode) => {
    const p = byLib.get(libCode);
    return p ? { connectionId: p.connection_id, bucket: p.bucket, sse: policySse(p) } : { connectionId: EMBEDDED_CONNECTION, bucket: own, sse: undefined };
  };
}

/** Where a blob's bytes are (its row), or undefined when there is no such blob. */
export async function blobLocation(db: Db, blobId: string): Promise<StoreLocation | undefined> {
  const r = await db.selectFrom('blobs').select(['connection_id', 'bucket']).where('id', '=', blobId).executeTakeFirst();
  return r && { connectionId: r.connection_id, bucket: r.bucket };
}

/**
 * The store holding a blob and the endpoint its clients send S3 requests to: connection zero's follows the host the
 * caller reached the server at (ctx.storageEndpoint), another connection's is its own endpoint.
 */
export async function blobStore(ctx: Pick<AppContext, 'db' | 'store'>, blobId: string, callerEndpoint?: string): Promise<{ store: ObjectStore; endpoint: string }> {
  const at = await blobLocation(ctx.db, blobId);
  const own = ctx.store();
  const store = at ? await own.at(at) : own;
  const endpoint = (!at || at.connectionId === EMBEDDED_CONNECTION) && callerEndpoint !== undefined ? callerEndpoint : store.publicEndpoint;
  return { store, endpoint };
}

/** blobStore for many blobs (a folder's download listing) in few queries: by blob id; a missing id is not in the map. */
export async function blobStores(
  ctx: Pick<AppContext, 'db' | 'store'>, blobIds: readonly string[], callerEndpoint: string,
): Promise<Map<string, { store: ObjectStore; endpoint: string }>> {
  const own = ctx.store();
  const out = new Map<string, { store: ObjectStore; endpoint: string }>();
  const ids = [...new Set(blobIds)];
  for (let i = 0; i < ids.length; i += 400) {
    const rows = await ctx.db.selectFrom('blobs').select(['id', 'connection_id', 'bucket']).where('id', 'in', ids.slice(i, i + 400)).execute();
    for (const r of rows) {
      const at = { connectionId: r.connection_id, bucket: r.bucket };
      const store = await own.at(at);
      out.set(r.id, { store, endpoint: clientEndpoint(at, store, callerEndpoint) });
    }
  }
  return out;
}

/** The endpoint clients send a location's S3 requests to (see blobStore). */
export function clientEndpoint(at: StoreLocation, store: ObjectStore, callerEndpoint: string): string {
  return at.connectionId === EMBEDDED_CONNECTION ? callerEndpoint : store.publicEndpoint;
}

/** The query behind keyLocation (exported so a test can EXPLAIN it: it must use blobs_object_key, migration 025). */
export function keyLocationQuery(db: Db, key: string, bucket: string) {
  return db.selectFrom('blobs').select(['id', 'connection_id', 'bucket']).where('object_key', '=', key).where('bucket', '=', bucket);
}

/** Where the content stored at `key` in a bucket of that name is (a client names content by bucket and key). */
export async function keyLocation(db: Db, key: string, bucket: string): Promise<StoreLocation | undefined> {
  const r = await keyLocationQuery(db, key, bucket).executeTakeFirst();
  return r && { connectionId: r.connection_id, bucket: r.bucket };
}
