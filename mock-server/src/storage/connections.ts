// Storage connections as ObjectStores: connection zero is the server's own store (embedded, or the S3 of
// HCS_S3_ENDPOINT); the others are rows of storage_connections whose secret is opened with the master key only here,
// in memory, to sign requests. Bucket listing, creation and the connection test speak plain S3 through the SDK.
import { CreateBucketCommand, HeadBucketCommand, ListBucketsCommand, S3ServiceException } from '@aws-sdk/client-s3';
import { AppError } from '../http/errors.ts';
import { EMBEDDED_CONNECTION, type ConnectionRow } from '../db/storage-repo.ts';
import { MasterKeyError, openString, sealString, type Keyring } from './master-key.ts';
import { ObjectStore, StorageError } from './object-store.ts';
import { EmbeddedObjectStore } from './embedded-object-store.ts';

/** What the sealing binds a connection's secret to: a sealed value copied to another row does not open. */
export function secretAad(connectionId: string): string {
  return `storage-connection:${connectionId}:secret`;
}

export function sealSecret(ring: Keyring, connectionId: string, secret: string): string {
  return sealString(ring, secret, secretAad(connectionId));
}

export function storeOf(ring: Keyring, row: ConnectionRow, bucket = row.bucket): ObjectStore {
  let secretAccessKey: string;
  try {
    secretAccessKey = openString(ring, row.secret_enc, secretAad(row.id));
  } catch (err) {
    // Every node on one database must share the master key; a node started with its own cannot use what others sealed.
    if (err instanceof MasterKeyError) {
      throw new AppError('CONFLICT', `this node cannot open the connection's secret: ${err.message}; give every node the same HCS_MASTER_KEY (or DATA_DIR/master.key)`);
    }
    throw err;
  }
  return new ObjectStore({ endpoint: row.endpoint, region: row.region, bucket, accessKeyId: row.access_key, secretAccessKey });
}

function s3Code(err: unknown): string {
  if (err instanceof StorageError) return err.code;
  if (err instanceof S3ServiceException) return err.name;
  const code = (err as NodeJS.ErrnoException).code;
  return typeof code === 'string' ? code : 'NetworkError';
}

function storageFailure(err: unknown, what: string): AppError {
  return new AppError('STORAGE_ERROR', `${what}: ${s3Code(err)}`);
}

export async function listBuckets(store: ObjectStore): Promise<Array<{ bucketName: string; createTime: number | null }>> {
  try {
    const out = await store.client.send(new ListBucketsCommand({}));
    return (out.Buckets ?? []).map((b) => ({ bucketName: b.Name ?? '', createTime: b.CreationDate ? b.CreationDate.getTime() : null }));
  } catch (err) {
    throw storageFailure(err, 'the storage refused to list its buckets');
  }
}

export async function createBucket(store: ObjectStore, name: string): Promise<void> {
  try {
    await store.client.send(new CreateBucketCommand({ Bucket: name }));
  } catch (err) {
    const code = s3Code(err);
    if (code === 'BucketAlreadyOwnedByYou') return;
    if (code === 'BucketAlreadyExists') throw new AppError('NAME_EXISTS', 'another account owns a bucket of that name', { fields: [{ field: 'bucketName', message: 'exists' }] });
    throw storageFailure(err, 'the storage refused to create the bucket');
  }
}

export interface ConnectionTest {
  reachable: boolean;
  bucketExists: boolean;
  detail?: string;
  server: 's3' | 'minio';
  minio?: { live: boolean; clusterHealthy: boolean };
}

/** How long a MinIO health check may take before it counts as failed. */
const HEALTH_TIMEOUT_MS = 5000;

/**
 * MinIO's own health checks, which plain S3 has no counterpart of: GET /minio/health/live answers 200 while the
 * process serves, and /minio/health/cluster 200 while the cluster has write quorum (503 when it has lost it). They
 * need no credentials and are plain HTTP (the minio client library has no call for them). On any other S3 server the
 * path names a bucket, answered with an S3 error, so a 200 from MinIO's Server header is what marks MinIO.
 * Undefined when the endpoint is not MinIO.
 */
export async function minioHealth(endpoint: string): Promise<{ live: boolean; clusterHealthy: boolean } | undefined> {
  const base = endpoint.replace(/\/+$/, '');
  const probe = async (path: string): Promise<Response | undefined> => {
    try {
      return await fetch(`${base}${path}`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS), redirect: 'manual' });
    } catch {
      return undefined;
    }
  };
  const live = await probe('/minio/health/live');
  await live?.body?.cancel();
  if (!live || live.status !== 200 || !/minio/i.test(live.headers.get('server') ?? '')) return undefined;
  const cluster = await probe('/minio/health/cluster');
  await cluster?.body?.cancel();
  return { live: true, clusterHealthy: cluster?.status === 200 };
}

/**
 * Whether the endpoint answers with these credentials, whether the connection's bucket exists, and whether it is
 * MinIO (with MinIO's health checks).
 */
export async function testConnection(store: ObjectStore): Promise<ConnectionTest> {
  try {
    await store.client.send(new ListBucketsCommand({}));
  } catch (err) {
    return { reachable: false, bucketExists: false, detail: s3Code(err), server: 's3' };
  }
  const health = await minioHealth(store.endpoint);
  const server = health ? { server: 'minio' as const, minio: health } : { server: 's3' as const };
  try {
    await store.client.send(new HeadBucketCommand({ Bucket: store.bucket }));
    return { reachable: true, bucketExists: true, ...server };
  } catch (err) {
    const status = (err as S3ServiceException).$metadata?.httpStatusCode;
    return { reachable: true, bucketExists: false, detail: status === 404 ? 'NoSuchBucket' : s3Code(err), ...server };
  }
}

export function isEmbeddedConnection(id: string): boolean {
  return id === EMBEDDED_CONNECTION;
}

/** Whether the store encrypts new objects at rest (file-uploadable's storeEncryption, the admin screen's inForce). */
export function encryptedAtRest(store: ObjectStore): boolean {
  return store instanceof EmbeddedObjectStore && store.isEncrypted();
}
