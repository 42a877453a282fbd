// Chooses the object storage: an external S3 when HCS_S3_ENDPOINT is set, otherwise the embedded
// store served by this server under /s3. Either way handlers get an ObjectStore speaking S3.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { EmbeddedS3Control, embeddedS3 } from './embedded/index.ts';
import { EmbeddedObjectStore } from './embedded-object-store.ts';
import { ObjectStore } from './object-store.ts';
import type { Keyring } from './master-key.ts';

export { ObjectStore, StorageError } from './object-store.ts';
export { EmbeddedS3Control } from './embedded/index.ts';

export const EMBEDDED_PREFIX = '/s3';

export interface StorageConfig {
  dataDir: string;
  /** Origin users reach the server at; the embedded store is offered to clients under it. */
  publicUrl?: string | undefined;
  /** Extra browser origins allowed to call the embedded store. */
  corsOrigins?: string[];
  /** Age after which abandoned multipart uploads of the embedded store are removed (default 24 h). */
  multipartMaxAgeMs?: number;
  s3: {
    endpoint?: string | undefined;
    publicEndpoint?: string | undefined;
    region: string;
    bucket: string;
    accessKeyId?: string | undefined;
    secretAccessKey?: string | undefined;
  };
}

export interface Storage {
  embedded: boolean;
  /** Present for the embedded store: on-demand sweeps of abandoned uploads. */
  control: EmbeddedS3Control | undefined;
  /** Call once the server listens, with its own address (`http://127.0.0.1:PORT`); ensures the bucket exists. */
  connect(serverUrl: string): Promise<ObjectStore>;
}

interface Credentials { accessKeyId: string; secretAccessKey: string }

/** Embedded-store credentials: from the config, else generated once and kept 0600 in the data dir. */
async function embeddedCredentials(config: StorageConfig): Promise<Credentials> {
  const { accessKeyId, secretAccessKey } = config.s3;
  if (accessKeyId && secretAccessKey) return { accessKeyId, secretAccessKey };
  if (accessKeyId || secretAccessKey) throw new Error('set both HCS_S3_ACCESS_KEY and HCS_S3_SECRET_KEY, or neither');
  const file = join(config.dataDir, 's3-credentials.json');
  try {
    const stored = JSON.parse(await readFile(file, 'utf8')) as Credentials;
    if (stored.accessKeyId && stored.secretAccessKey) {
      await chmod(file, 0o600);
      return stored;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`unreadable ${file}: ${(err as Error).message}`, { cause: err });
  }
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const generated: Credentials = {
    accessKeyId: 'HCS' + [...randomBytes(17)].map((b) => alphabet[b % 32]).join(''),
    secretAccessKey: randomBytes(30).toString('base64'),
  };
  await mkdir(config.dataDir, { recursive: true });
  await writeFile(file, JSON.stringify(generated, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  return generated;
}

export async function createStorage(config: StorageConfig, app: FastifyInstance, keyring?: () => Keyring): Promise<Storage> {
  const { region, bucket } = config.s3;
  if (config.s3.endpoint) {
    const { endpoint, publicEndpoint, accessKeyId, secretAccessKey } = config.s3;
    if (!accessKeyId || !secretAccessKey) throw new Error('HCS_S3_ENDPOINT is set: HCS_S3_ACCESS_KEY and HCS_S3_SECRET_KEY are required');
    return {
      embedded: false,
      control: undefined,
      async connect() {
        const store = new ObjectStore({ endpoint, publicEndpoint, region, bucket, accessKeyId, secretAccessKey });
        await store.ensureBucket();
        return store;
      },
    };
  }

  const credentials = await embeddedCredentials(config);
  const root = join(config.dataDir, 'objects');
  // Every user's files: created private (the store makes its subdirectories inside with the default mode).
  await mkdir(root, { recursive: true, mode: 0o700 });
  const control = new EmbeddedS3Control();
  const origins = [...(config.publicUrl ? [new URL(config.publicUrl).origin] : []), ...(config.corsOrigins ?? [])];
  await app.register(embeddedS3, {
    prefix: EMBEDDED_PREFIX,
    root,
    region,
    credentials,
    corsOrigins: origins,
    limits: {
      maxPartSize: 5 * 1024 ** 3,
      maxSinglePut: 5 * 1024 ** 3,
      maxObjectSize: 5 * 1024 ** 4,
      maxParts: 10000,
    },
    abandonedUploadAgeMs: config.multipartMaxAgeMs ?? 24 * 3600_000,
    control,
    ...(keyring ? { keyring } : {}),
  });
  return {
    embedded: true,
    control,
    async connect(serverUrl: string) {
      const internal = new URL(serverUrl);
      const publicBase = config.s3.publicEndpoint ?? `${config.publicUrl ?? `http://localhost:${internal.port}`}${EMBEDDED_PREFIX}`;
      const store = new EmbeddedObjectStore({
        endpoint: `${internal.origin}${EMBEDDED_PREFIX}`, publicEndpoint: publicBase, region, bucket, ...credentials,
      }, control);
      await store.ensureBucket();
      return store;
    },
  };
}
