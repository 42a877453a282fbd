// Storage connections, library storage policies, nodes, clusters and sites (migration 015_storage). Names are unique
// case-insensitively through name_key (a unique index, so two administrators racing get one NAME_EXISTS, not two rows).
import { newId } from '../ids.ts';
import type { Selectable } from 'kysely';
import type { Db } from './sql/tx.ts';
import { transaction } from './sql/tx.ts';
import { uniqueViolation } from './sql/errors.ts';
import { AppError } from '../http/errors.ts';
import type { ClustersTable, NodesTable, SitesTable, StorageConnectionsTable, StoragePoliciesTable } from './sql/schema-storage.ts';

/** The embedded store: connection zero, never a row. */
export const EMBEDDED_CONNECTION = '0';

export type ConnectionRow = Selectable<StorageConnectionsTable>;
export type PolicyRow = Selectable<StoragePoliciesTable>;
export type NodeRow = Selectable<NodesTable>;
export type ClusterRow = Selectable<ClustersTable>;
export type SiteRow = Selectable<SitesTable>;

function nameKey(name: string): string {
  return name.trim().toLowerCase();
}

function nameExists(field: string): AppError {
  return new AppError('NAME_EXISTS', 'the name is taken', { fields: [{ field, message: 'exists' }] });
}

async function uniqueName<T>(field: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw uniqueViolation(err) !== undefined ? nameExists(field) : err;
  }
}

// ----- connections

export async function listConnections(db: Db): Promise<ConnectionRow[]> {
  return db.selectFrom('storage_connections').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function getConnection(db: Db, id: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('storage_connections').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findConnectionByName(db: Db, name: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('storage_connections').selectAll().where('name_key', '=', nameKey(name)).executeTakeFirst();
}

export interface ConnectionInput {
  name: string;
  endpoint: string;
  region: string;
  bucket: string;
  accessKey: string;
  /** Sealed by the caller (the sealing binds the row id, so the caller gets the id first). */
  secretEnc: string;
  sse: string[];
}

export async function createConnection(db: Db, id: string, c: ConnectionInput, now = Date.now()): Promise<ConnectionRow> {
  const row: ConnectionRow = {
    id, name: c.name, name_key: nameKey(c.name), endpoint: c.endpoint, region: c.region, bucket: c.bucket, access_key: c.accessKey,
    secret_enc: c.secretEnc, sse: c.sse.join(','), created_at: now, updated_at: now,
  };
  await uniqueName('name', () => db.insertInto('storage_connections').values(row).execute());
  return row;
}

export function newConnectionId(): string {
  return newId(9);
}

export async function updateConnection(db: Db, id: string, c: Partial<ConnectionInput>, now = Date.now()): Promise<ConnectionRow> {
  const set: Partial<ConnectionRow> = { updated_at: now };
  if (c.name !== undefined) Object.assign(set, { name: c.name, name_key: nameKey(c.name) });
  if (c.endpoint !== undefined) set.endpoint = c.endpoint;
  if (c.region !== undefined) set.region = c.region;
  if (c.bucket !== undefined) set.bucket = c.bucket;
  if (c.accessKey !== undefined) set.access_key = c.accessKey;
  if (c.secretEnc !== undefined) set.secret_enc = c.secretEnc;
  if (c.sse !== undefined) set.sse = c.sse.join(',');
  const out = await uniqueName('name', () => db.updateTable('storage_connections').set(set).where('id', '=', id).executeTakeFirst());
  if (Number(out.numUpdatedRows) === 0) throw new AppError('NOT_FOUND', `no storage connection ${id}`);
  return (await getConnection(db, id))!;
}

/** Re-seals every stored secret (master key rotation): `reseal` maps a sealed value to its re-sealed form. */
export async function resealSecrets(db: Db, reseal: (row: ConnectionRow) => string): Promise<number> {
  return transaction(db, async (trx) => {
    const rows = await trx.selectFrom('storage_connections').selectAll().execute();
    for (const r of rows) await trx.updateTable('storage_connections').set({ secret_enc: reseal(r) }).where('id', '=', r.id).execute();
    return rows.length;
  });
}

/** Deletes a connection nothing uses: no blob, upload session, library policy or site (CONFLICT naming what holds it). */
export async function deleteConnection(db: Db, id: string): Promise<void> {
  await transaction(db, async (trx) => {
    if (!(await getConnection(trx, id))) throw new AppError('NOT_FOUND', `no storage connection ${id}`);
    const blob = await trx.selectFrom('blobs').select('id').where('connection_id', '=', id).limit(1).executeTakeFirst();
    if (blob) throw new AppError('CONFLICT', 'files are stored on this connection');
    // Until the janitor removes a session's row, its staging bytes (or a signed write still in flight) may be there.
    const upload = await trx.selectFrom('upload_sessions').select('id').where('connection_id', '=', id).limit(1).executeTakeFirst();
    if (upload) throw new AppError('CONFLICT', 'unfinished uploads are stored on this connection; try again once they are finished or expired');
    const policy = await trx.selectFrom('storage_policies').select('lib_code').where('connection_id', '=', id).limit(1).executeTakeFirst();
    if (policy) throw new AppError('CONFLICT', `library ${policy.lib_code} stores new uploads on this connection`);
    const site = await trx.selectFrom('sites').select('name').where('connection_id', '=', id).limit(1).executeTakeFirst();
    if (site) throw new AppError('CONFLICT', `site ${site.name} uses this connection as its default storage`);
    await trx.deleteFrom('storage_connections').where('id', '=', id).execute();
  });
}

// ----- library policies

export async function listPolicies(db: Db): Promise<PolicyRow[]> {
  return db.selectFrom('storage_policies').selectAll().orderBy('lib_code').execute();
}

export async function getPolicy(db: Db, libCode: string): Promise<PolicyRow | undefined> {
  return db.selectFrom('storage_policies').selectAll().where('lib_code', '=', libCode).executeTakeFirst();
}

export async function setPolicy(db: Db, p: Omit<PolicyRow, 'updated_at'>, now = Date.now()): Promise<PolicyRow> {
  const row: PolicyRow = { ...p, updated_at: now };
  await db.insertInto('storage_policies').values(row)
    .onConflict((oc) => oc.column('lib_code').doUpdateSet({
      connection_id: row.connection_id, bucket: row.bucket, encryption: row.encryption, kms_key_id: row.kms_key_id, updated_at: now,
    }))
    .execute();
  return row;
}

// ----- nodes

/** A node silent for this many heartbeat intervals is down. */
export const DOWN_AFTER_BEATS = 3;

export async function beat(db: Db, n: Omit<NodeRow, 'heartbeat_at' | 'cluster_id' | 'name'> & { name?: string }, now = Date.now()): Promise<void> {
  await db.insertInto('nodes').values({ ...n, name: n.name ?? n.id, heartbeat_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_at: now, address: n.address, site: n.site, version: n.version }))
    .execute();
}

export async function listNodes(db: Db, opts: { unmatched?: boolean } = {}): Promise<NodeRow[]> {
  let q = db.selectFrom('nodes').selectAll().orderBy('started_at').orderBy('id');
  if (opts.unmatched) q = q.where('cluster_id', 'is', null);
  return q.execute();
}

export async function getNode(db: Db, id: string): Promise<NodeRow | undefined> {
  return db.selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateNode(db: Db, id: string, set: { name?: string; clusterId?: string | null }): Promise<void> {
  await transaction(db, async (trx) => {
    if (!(await getNode(trx, id))) throw new AppError('NOT_FOUND', `no node ${id}`);
    if (set.clusterId && !(await getCluster(trx, set.clusterId))) throw new AppError('NOT_FOUND', `no cluster ${set.clusterId}`);
    const patch: Partial<NodeRow> = {};
    if (set.name !== undefined) patch.name = set.name;
    if (set.clusterId !== undefined) patch.cluster_id = set.clusterId;
    if (Object.keys(patch).length) await trx.updateTable('nodes').set(patch).where('id', '=', id).execute();
  });
}

export async function deleteNode(db: Db, id: string, liveSince: number): Promise<void> {
  await transaction(db, async (trx) => {
    const n = await getNode(trx, id);
    if (!n) throw new AppError('NOT_FOUND', `no node ${id}`);
    if (n.heartbeat_at >= liveSince) throw new AppError('CONFLICT', 'the node is up: stop it first, or it registers again');
    await trx.deleteFrom('nodes').where('id', '=', id).execute();
  });
}

// ----- clusters

export async function listClusters(db: Db): Promise<ClusterRow[]> {
  return db.selectFrom('clusters').selectAll().orderBy('name_key').execute();
}

export async function getCluster(db: Db, id: string): Promise<ClusterRow | undefined> {
  return db.selectFrom('clusters').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function saveCluster(db: Db, c: { id?: string; name: string }, now = Date.now()): Promise<ClusterRow> {
  return uniqueName('name', async () => {
    if (c.id === undefined) {
      const row: ClusterRow = { id: newId(9), name: c.name, name_key: nameKey(c.name), site_id: null, created_at: now };
      await db.insertInto('clusters').values(row).execute();
      return row;
    }
    const out = await db.updateTable('clusters').set({ name: c.name, name_key: nameKey(c.name) }).where('id', '=', c.id).executeTakeFirst();
    if (Number(out.numUpdatedRows) === 0) throw new AppError('NOT_FOUND', `no cluster ${c.id}`);
    return (await getCluster(db, c.id))!;
  });
}

export async function deleteCluster(db: Db, id: string): Promise<void> {
  await transaction(db, async (trx) => {
    if (!(await getCluster(trx, id))) throw new AppError('NOT_FOUND', `no cluster ${id}`);
    await trx.updateTable('nodes').set({ cluster_id: null }).where('cluster_id', '=', id).execute();
    await trx.deleteFrom('clusters').where('id', '=', id).execute();
  });
}

// ----- sites

export async function listSites(db: Db): Promise<SiteRow[]> {
  return db.selectFrom('sites').selectAll().orderBy('name_key').execute();
}

export async function getSite(db: Db, id: string): Promise<SiteRow | undefined> {
  return db.selectFrom('sites').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findSiteByName(db: Db, name: string): Promise<SiteRow | undefined> {
  return db.selectFrom('sites').selectAll().where('name_key', '=', nameKey(name)).executeTakeFirst();
}

export async function saveSite(db: Db, s: { id?: string; name: string; region: string; connectionId: string }, now = Date.now()): Promise<SiteRow> {
  return uniqueName('name', async () => {
    if (s.id === undefined) {
      const row: SiteRow = { id: newId(9), name: s.name, name_key: nameKey(s.name), region: s.region, connection_id: s.connectionId, created_at: now };
      await db.insertInto('sites').values(row).execute();
      return row;
    }
    const out = await db.updateTable('sites').set({ name: s.name, name_key: nameKey(s.name), region: s.region, connection_id: s.connectionId })
      .where('id', '=', s.id).executeTakeFirst();
    if (Number(out.numUpdatedRows) === 0) throw new AppError('NOT_FOUND', `no site ${s.id}`);
    return (await getSite(db, s.id))!;
  });
}

export async function deleteSite(db: Db, id: string): Promise<void> {
  await transaction(db, async (trx) => {
    if (!(await getSite(trx, id))) throw new AppError('NOT_FOUND', `no site ${id}`);
    await trx.updateTable('clusters').set({ site_id: null }).where('site_id', '=', id).execute();
    await trx.deleteFrom('sites').where('id', '=', id).execute();
  });
}

export async function setClusterSite(db: Db, clusterId: string, siteId: string, join: boolean): Promise<void> {
  await transaction(db, async (trx) => {
    if (!(await getSite(trx, siteId))) throw new AppError('NOT_FOUND', `no site ${siteId}`);
    const c = await getCluster(trx, clusterId);
    if (!c) throw new AppError('NOT_FOUND', `no cluster ${clusterId}`);
    if (!join && c.site_id !== siteId) throw new AppError('NOT_FOUND', 'the cluster is not in this site');
    await trx.updateTable('clusters').set({ site_id: join ? siteId : null }).where('id', '=', clusterId).execute();
  });
}
