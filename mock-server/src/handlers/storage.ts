// Storage connections, buckets, library storage policies, nodes, clusters and sites (contract tag "storage", issue #20
// part 1). Every call is marked admin in the contract, so the route layer has refused everyone else already.
import type { AppContext, Handlers } from '../context.ts';
import { done, ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { getBusinessLib, listBusinessLibs } from '../db/libraries-repo.ts';
import {
  DOWN_AFTER_BEATS, EMBEDDED_CONNECTION, createConnection, deleteCluster, deleteConnection, deleteNode, deleteSite, getCluster, getConnection,
  getSite, listClusters, resealSecrets, listConnections, listNodes, listPolicies, listSites, newConnectionId, saveCluster, saveSite, setClusterSite,
  setPolicy, updateConnection, updateNode, type ClusterRow, type ConnectionRow, type NodeRow, type PolicyRow, type SiteRow,
} from '../db/storage-repo.ts';
import { createBucket, listBuckets, sealSecret, secretAad, storeOf, testConnection } from '../storage/connections.ts';
import { inForceOf } from '../storage/routing.ts';
import { MasterKeyError, openString, type Keyring } from '../storage/master-key.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import { EmbeddedObjectStore } from '../storage/embedded-object-store.ts';
import type { components } from '@hcs/openapi/schema';

type Schemas = components['schemas'];
type Sse = 'AES256' | 'aws:kms';

const EMBEDDED_NAME = 'embedded';

function sseList(text: string): Sse[] {
  return text.split(',').filter((s): s is Sse => s === 'AES256' || s === 'aws:kms');
}

function accessKeyHint(key: string): string {
  return key.length <= 4 ? '' : key.slice(-4);
}

function connectionView(c: ConnectionRow): Schemas['CloudConnection'] {
  return {
    cloudId: c.id, name: c.name, endpoint: c.endpoint, region: c.region, defaultBucket: c.bucket, embedded: false, hasSecret: c.secret_enc !== '',
    accessKeyHint: accessKeyHint(c.access_key), sse: sseList(c.sse), createTime: c.created_at,
  };
}

export function storageHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  /** Connection zero as the admin screens show it: the server's own store, whatever it is. */
  function zeroView(): Schemas['CloudConnection'] {
    const s = ctx.store();
    const embedded = !ctx.config.s3.endpoint;
    return {
      cloudId: EMBEDDED_CONNECTION, name: EMBEDDED_NAME, endpoint: embedded ? '/s3' : s.publicEndpoint, region: s.region, defaultBucket: s.bucket,
      embedded, hasSecret: true, accessKeyHint: '', sse: [], createTime: 0,
    };
  }

  async function connection(id: string): Promise<ConnectionRow> {
    const c = await getConnection(db, id);
    if (!c) throw new AppError('NOT_FOUND', `no storage connection ${id}`);
    return c;
  }

  /** An ObjectStore of the connection (connection zero: the server's own), on `bucket` when given. */
  async function storeFor(id: string, bucket?: string): Promise<{ store: ObjectStore; owned: boolean }> {
    if (id === EMBEDDED_CONNECTION) {
      const own = ctx.store();
      if (bucket === undefined || bucket === own.bucket) return { store: own, owned: false };
      // A second bucket of connection zero: the same endpoint and credentials, through the S3 API.
      return { store: own.forBucket(bucket), owned: true };
    }
    return { store: storeOf(ctx.keyring, await connection(id), bucket), owned: true };
  }

  async function withStore<T>(id: string, bucket: string | undefined, fn: (s: ObjectStore) => Promise<T>): Promise<T> {
    const { store, owned } = await storeFor(id, bucket);
    try {
      return await fn(store);
    } finally {
      if (owned) store.destroy();
    }
  }

  /** A policy as the admin screen shows it, with what is in force as it is (storage/routing.ts), not as asked. */
  function policyView(p: Omit<PolicyRow, 'updated_at'>, cloudName: string): Schemas['StoragePolicy'] {
    return {
      libCode: p.lib_code, cloudId: p.connection_id, cloudName, bucketName: p.bucket, encryption: p.encryption, kmsKeyId: p.kms_key_id,
      inForce: inForceOf(ctx.store(), p),
    };
  }

  function nodeView(n: NodeRow, now: number): Schemas['Node'] {
    const live = n.heartbeat_at >= now - DOWN_AFTER_BEATS * ctx.config.node.heartbeatMs;
    return {
      nodeId: n.id, name: n.name, address: n.address, site: n.site, version: n.version, heartbeat: n.heartbeat_at, startTime: n.started_at,
      status: live ? 'up' : 'down', clusterId: n.cluster_id,
    };
  }

  async function clusterViews(filter?: (c: ClusterRow) => boolean): Promise<Schemas['Cluster'][]> {
    const now = Date.now();
    const [clusters, nodes] = await Promise.all([listClusters(db), listNodes(db)]);
    return clusters.filter(filter ?? (() => true)).map((c) => ({
      clusterId: c.id, name: c.name, siteId: c.site_id, createTime: c.created_at,
      nodes: nodes.filter((n) => n.cluster_id === c.id).map((n) => nodeView(n, now)),
    }));
  }

  async function siteView(s: SiteRow): Promise<Schemas['Site']> {
    const cloudName = s.connection_id === EMBEDDED_CONNECTION ? EMBEDDED_NAME : (await getConnection(db, s.connection_id))?.name ?? '';
    return {
      siteId: s.id, name: s.name, region: s.region, cloudId: s.connection_id, cloudName, createTime: s.created_at,
      clusters: await clusterViews((c) => c.site_id === s.id),
    };
  }

  async function requireConnection(id: string): Promise<void> {
    if (id !== EMBEDDED_CONNECTION) await connection(id);
  }

  async function clusterById(id: string): Promise<Schemas['Cluster']> {
    if (!(await getCluster(db, id))) throw new AppError('NOT_FOUND', `no cluster ${id}`);
    return (await clusterViews((c) => c.id === id))[0]!;
  }

  return {
    async cloudConnectPage(req) {
      const pageNo = req.query.pageNo ?? 1;
      const pageSize = req.query.pageSize ?? 20;
      const all = [zeroView(), ...(await listConnections(db)).map(connectionView)];
      return ok({ list: all.slice((pageNo - 1) * pageSize, pageNo * pageSize), total: all.length, pageNo, pageSize });
    },

    async addCloud(req) {
      const b = req.body;
      const id = newConnectionId();
      const row = await createConnection(db, id, {
        name: b.name.trim(), endpoint: b.endpoint.replace(/\/+$/, ''), region: b.region ?? 'us-east-1', bucket: b.bucket, accessKey: b.accessKey,
        secretEnc: sealSecret(ctx.keyring, id, b.secretKey), sse: [...new Set(b.sse ?? [])],
      });
      return ok(connectionView(row));
    },

    async editCloud(req) {
      const id = req.params.id;
      if (id === EMBEDDED_CONNECTION) throw new AppError('CONFLICT', 'the embedded store is configured by the server, not here');
      const b = req.body;
      await connection(id);
      const row = await updateConnection(db, id, {
        name: b.name?.trim(), endpoint: b.endpoint?.replace(/\/+$/, ''), region: b.region, bucket: b.bucket, accessKey: b.accessKey,
        secretEnc: b.secretKey === undefined ? undefined : sealSecret(ctx.keyring, id, b.secretKey), sse: b.sse ? [...new Set(b.sse)] : undefined,
      });
      return ok(connectionView(row));
    },

    async deleteCloud(req) {
      if (req.body.cloudId === EMBEDDED_CONNECTION) throw new AppError('CONFLICT', 'the embedded store cannot be deleted');
      await deleteConnection(db, req.body.cloudId);
      return done();
    },

    async testCloudConnection(req) {
      return ok(await withStore(req.body.cloudId, undefined, testConnection));
    },

    async listBuckets(req) {
      return ok({ list: await withStore(req.query.cloudId, undefined, listBuckets) });
    },

    async createBucket(req) {
      await withStore(req.body.cloudId, undefined, (s) => createBucket(s, req.body.bucketName));
      return done();
    },

    async listStoragePolicies() {
      const [libs, policies, conns] = await Promise.all([listBusinessLibs(db, { includeAdminOnly: true }), listPolicies(db), listConnections(db)]);
      const byLib = new Map(policies.map((p) => [p.lib_code, p]));
      const names = new Map([[EMBEDDED_CONNECTION, EMBEDDED_NAME], ...conns.map((c) => [c.id, c.name] as const)]);
      const bucket = ctx.store().bucket;
      return ok({
        list: libs.map((l) => {
          const p = byLib.get(l.libCode) ?? { lib_code: l.libCode, connection_id: EMBEDDED_CONNECTION, bucket, encryption: 'none' as const, kms_key_id: '' };
          return policyView(p, names.get(p.connection_id) ?? '');
        }),
      });
    },

    async setStoragePolicy(req) {
      const b = req.body;
      if (!(await getBusinessLib(db, b.libCode))) throw new AppError('NOT_FOUND', `no business library ${b.libCode}`);
      const own = ctx.store();
      const zero = b.cloudId === EMBEDDED_CONNECTION;
      const conn = zero ? undefined : await connection(b.cloudId);
      const bucket = b.bucketName ?? conn?.bucket ?? own.bucket;
      const encryption = b.encryption ?? 'none';
      const invalid = (field: string, message: string) => new AppError('VALIDATION_FAILED', message, { fields: [{ field, message }] });
      if (encryption === 'aes256-gcm' && !(zero && bucket === own.bucket && own instanceof EmbeddedObjectStore)) {
        throw invalid('encryption', 'aes256-gcm is done by the embedded store, in its default bucket, only');
      }
      if (encryption === 'sse-s3' || encryption === 'sse-kms') {
        const mode = encryption === 'sse-s3' ? 'AES256' : 'aws:kms';
        // Sent to a store that ignores or refuses it, the header would be a promise nobody keeps (radosgw without a key).
        if (!conn || !sseList(conn.sse).includes(mode)) throw invalid('encryption', `the connection does not offer server-side encryption ${mode}`);
      }
      if (b.kmsKeyId && encryption !== 'sse-kms') throw invalid('kmsKeyId', 'a KMS key goes with sse-kms only');
      if (!(zero && bucket === own.bucket)) {
        // New uploads would fail one by one at storage: refuse the place now instead.
        const probe = await withStore(b.cloudId, bucket, testConnection);
        if (!probe.reachable) throw new AppError('STORAGE_ERROR', `the storage does not answer: ${probe.detail ?? ''}`);
        if (!probe.bucketExists) throw invalid('bucketName', `the connection has no bucket ${bucket}`);
      }
      const row = await setPolicy(db, { lib_code: b.libCode, connection_id: b.cloudId, bucket, encryption, kms_key_id: encryption === 'sse-kms' ? b.kmsKeyId ?? '' : '' });
      if (own instanceof EmbeddedObjectStore) {
        // Libraries share the bucket: it encrypts while any of them asks for it.
        const wanted = (await listPolicies(db)).some((p) => p.connection_id === EMBEDDED_CONNECTION && p.bucket === own.bucket && p.encryption === 'aes256-gcm');
        await own.setEncryption(wanted);
      }
      return ok(policyView(row, conn?.name ?? EMBEDDED_NAME));
    },

    async rotateMasterKey() {
      let next: Keyring;
      try {
        next = ctx.keyring.source === 'file' ? ctx.keyring.rotateFile() : ctx.keyring;
      } catch (err) {
        if (err instanceof MasterKeyError) throw new AppError('CONFLICT', err.message);
        throw err;
      }
      // From here on everything new is sealed under the new key; the old one still opens what is not re-wrapped yet.
      ctx.keyring = next;
      const own = ctx.store();
      const objects = own instanceof EmbeddedObjectStore ? await own.rewrapKeys() : 0;
      let secrets: number;
      try {
        secrets = await resealSecrets(db, (row) => sealSecret(next, row.id, openString(next, row.secret_enc, secretAad(row.id))));
      } catch (err) {
        // Sealed by a node with another key: nothing was re-sealed (one transaction), and the previous key is kept.
        if (err instanceof MasterKeyError) throw new AppError('CONFLICT', `a stored secret is sealed under a key this node does not have: ${err.message}`);
        throw err;
      }
      if (next.source === 'file') ctx.keyring = next.forgetPrevious();
      return ok({ keyId: next.current.id, objects, secrets });
    },

    async listNodes() {
      const now = Date.now();
      return ok({ list: (await listNodes(db)).map((n) => nodeView(n, now)) });
    },

    async listUnMatchNodes() {
      const now = Date.now();
      return ok({ list: (await listNodes(db, { unmatched: true })).map((n) => nodeView(n, now)) });
    },

    async addOrUpdateNode(req) {
      await updateNode(db, req.body.nodeId, { name: req.body.name?.trim(), clusterId: req.body.clusterId });
      return done();
    },

    async deleteNode(req) {
      await deleteNode(db, req.body.nodeId, Date.now() - DOWN_AFTER_BEATS * ctx.config.node.heartbeatMs);
      return done();
    },

    async listClusters() {
      return ok({ list: await clusterViews() });
    },

    async addOrUpdateCluster(req) {
      const c = await saveCluster(db, { id: req.body.clusterId, name: req.body.name.trim() });
      return ok(await clusterById(c.id));
    },

    async deleteCluster(req) {
      await deleteCluster(db, req.body.clusterId);
      return done();
    },

    async clusterConfig(req) {
      return ok(await clusterById(req.query.clusterId));
    },

    async listSites() {
      const sites = await listSites(db);
      const list: Schemas['Site'][] = [];
      for (const s of sites) list.push(await siteView(s));
      return ok({ list });
    },

    async addOrUpdateSite(req) {
      const b = req.body;
      await requireConnection(b.cloudId);
      const s = await saveSite(db, { id: b.siteId, name: b.name.trim(), region: b.region ?? '', connectionId: b.cloudId });
      return ok(await siteView(s));
    },

    async deleteSite(req) {
      await deleteSite(db, req.body.siteId);
      return done();
    },

    async siteConfig(req) {
      const s = await getSite(db, req.query.siteId);
      if (!s) throw new AppError('NOT_FOUND', `no site ${req.query.siteId}`);
      return ok(await siteView(s));
    },

    async joinCluster(req) {
      await setClusterSite(db, req.body.clusterId, req.body.siteId, true);
      return done();
    },

    async removeRegionFromSite(req) {
      await setClusterSite(db, req.body.clusterId, req.body.siteId, false);
      return done();
    },
  };
}
