// Public links (migration 010_links): the links, their items, visitor tokens and download grants, the share log,
// wrong-code lockouts and the link policy. Every counter changes by one conditional UPDATE, so a limit holds with
// any number of requests on any number of nodes.
import type { Db } from './sql/tx.ts';
import type { Flag } from './sql/schema.ts';
import type { LinksTable } from './sql/schema-links.ts';

export interface LinkRow {
  id: string;
  linkKey: string;
  ownerId: string;
  shareType: 'download' | 'upload';
  codeHash: string | null;
  expireAt: number | null;
  maxViews: number | null;
  maxDownloads: number | null;
  viewCount: number;
  downloadCount: number;
  previewOnly: boolean;
  verifyCode: boolean;
  watermark: boolean;
  uploadMaxBytes: number | null;
  uploadMaxFiles: number | null;
  uploadAllowList: boolean;
  uploadCount: number;
  uploadBytes: number;
  status: 'active' | 'cancelled' | 'deleted';
  tokenEpoch: number;
  createdAt: number;
  updatedAt: number;
}

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toLink(r: Record<string, unknown>): LinkRow {
  return {
    id: String(r.id),
    linkKey: String(r.link_key),
    ownerId: String(r.owner_id),
    shareType: r.share_type as LinkRow['shareType'],
    codeHash: (r.code_hash as string | null) ?? null,
    expireAt: numOrNull(r.expire_at),
    maxViews: numOrNull(r.max_views),
    maxDownloads: numOrNull(r.max_downloads),
    viewCount: num(r.view_count),
    downloadCount: num(r.download_count),
    previewOnly: num(r.preview_only) === 1,
    verifyCode: num(r.verify_code) === 1,
    watermark: num(r.watermark) === 1,
    uploadMaxBytes: numOrNull(r.upload_max_bytes),
    uploadMaxFiles: numOrNull(r.upload_max_files),
    uploadAllowList: num(r.upload_allow_list) === 1,
    uploadCount: num(r.upload_count),
    uploadBytes: num(r.upload_bytes),
    status: r.status as LinkRow['status'],
    tokenEpoch: num(r.token_epoch),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

const flag = (b: boolean): Flag => (b ? 1 : 0);

export interface LinkSettings {
  codeHash: string | null;
  expireAt: number | null;
  maxViews: number | null;
  maxDownloads: number | null;
  previewOnly: boolean;
  verifyCode: boolean;
  watermark: boolean;
  uploadMaxBytes: number | null;
  uploadMaxFiles: number | null;
  uploadAllowList: boolean;
}

function settingsColumns(s: LinkSettings) {
  return {
    code_hash: s.codeHash,
    expire_at: s.expireAt,
    max_views: s.maxViews,
    max_downloads: s.maxDownloads,
    preview_only: flag(s.previewOnly),
    verify_code: flag(s.verifyCode),
    watermark: flag(s.watermark),
    upload_max_bytes: s.uploadMaxBytes,
    upload_max_files: s.uploadMaxFiles,
    upload_allow_list: flag(s.uploadAllowList),
  } satisfies Partial<Record<keyof LinksTable, unknown>>;
}

export async function insertLink(
  db: Db,
  l: { id: string; linkKey: string; ownerId: string; shareType: LinkRow['shareType']; settings: LinkSettings; instanceIds: string[] },
  now = Date.now(),
): Promise<void> {
  await db
    .insertInto('links')
    .values({ id: l.id, link_key: l.linkKey, owner_id: l.ownerId, share_type: l.shareType, status: 'active', created_at: now, updated_at: now, ...settingsColumns(l.settings) })
    .execute();
  await db
    .insertInto('link_items')
    .values(l.instanceIds.map((instanceId, position) => ({ link_id: l.id, instance_id: instanceId, position })))
    .execute();
}

/** Applies new settings; `revokeTokens` (a new code) moves the epoch so every earlier visitor token dies. */
export async function updateLinkSettings(db: Db, id: string, s: LinkSettings, revokeTokens: boolean, now = Date.now()): Promise<void> {
  await db
    .updateTable('links')
    .set((eb) => ({ ...settingsColumns(s), updated_at: now, token_epoch: revokeTokens ? eb('token_epoch', '+', 1) : eb.ref('token_epoch') }))
    .where('id', '=', id)
    .execute();
}

export async function setLinkKey(db: Db, id: string, linkKey: string, now = Date.now()): Promise<void> {
  await db
    .updateTable('links')
    .set((eb) => ({ link_key: linkKey, updated_at: now, token_epoch: eb('token_epoch', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

/** Cancels (or deletes) live links; returns the ids it changed. */
export async function setLinkStatus(db: Db, ids: readonly string[], status: 'cancelled' | 'deleted', now = Date.now()): Promise<string[]> {
  if (ids.length === 0) return [];
  const from = status === 'cancelled' ? ['active'] : ['active', 'cancelled'];
  const rows = await db
    .updateTable('links')
    .set({ status, updated_at: now })
    .where('id', 'in', ids)
    .where('status', 'in', from as LinkRow['status'][])
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function getLink(db: Db, id: string): Promise<LinkRow | undefined> {
  const r = await db.selectFrom('links').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toLink(r);
}

export async function getLinkByKey(db: Db, linkKey: string): Promise<LinkRow | undefined> {
  const r = await db.selectFrom('links').selectAll().where('link_key', '=', linkKey).executeTakeFirst();
  return r && toLink(r);
}

export async function getLinks(db: Db, ids: readonly string[]): Promise<LinkRow[]> {
  if (ids.length === 0) return [];
  return (await db.selectFrom('links').selectAll().where('id', 'in', ids).execute()).map(toLink);
}

export async function linkItemIds(db: Db, linkId: string): Promise<string[]> {
  const rows = await db.selectFrom('link_items').select('instance_id').where('link_id', '=', linkId).orderBy('position').execute();
  return rows.map((r) => r.instance_id);
}

export async function itemIdsOfLinks(db: Db, linkIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (linkIds.length === 0) return out;
  const rows = await db.selectFrom('link_items').select(['link_id', 'instance_id']).where('link_id', 'in', linkIds).orderBy('link_id').orderBy('position').execute();
  for (const r of rows) out.set(r.link_id, [...(out.get(r.link_id) ?? []), r.instance_id]);
  return out;
}

export interface LinkQuery {
  ownerId?: string;
  status?: 'active' | 'cancelled';
  shareType?: LinkRow['shareType'];
  /** Ids of instances whose name matched a keyword (the caller resolves names). */
  instanceIds?: readonly string[];
  limit: number;
  offset: number;
}

export async function listLinks(db: Db, q: LinkQuery): Promise<{ list: LinkRow[]; total: number }> {
  let base = db.selectFrom('links').where('status', '<>', 'deleted');
  if (q.ownerId !== undefined) base = base.where('owner_id', '=', q.ownerId);
  if (q.status !== undefined) base = base.where('status', '=', q.status);
  if (q.shareType !== undefined) base = base.where('share_type', '=', q.shareType);
  if (q.instanceIds !== undefined) {
    const ids = q.instanceIds.length ? q.instanceIds : [''];
    base = base.where('id', 'in', db.selectFrom('link_items').select('link_id').where('instance_id', 'in', ids));
  }
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute();
  return { list: rows.map(toLink), total: Number(total.n) };
}

/** Links of an owner sharing any of `instanceIds` that are still live. */
export async function liveLinksOn(db: Db, ownerId: string, instanceIds: readonly string[]): Promise<string[]> {
  if (instanceIds.length === 0) return [];
  const rows = await db
    .selectFrom('links')
    .select('id')
    .where('owner_id', '=', ownerId)
    .where('status', '=', 'active')
    .where('id', 'in', db.selectFrom('link_items').select('link_id').where('instance_id', 'in', instanceIds))
    .execute();
  return rows.map((r) => r.id);
}

/** Counts one view if the link is active and under its view limit (one statement: limits hold under concurrency). */
export async function countView(db: Db, id: string, now = Date.now()): Promise<boolean> {
  const r = await db
    .updateTable('links')
    .set((eb) => ({ view_count: eb('view_count', '+', 1) }))
    .where('id', '=', id)
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('expire_at', 'is', null), eb('expire_at', '>', now)]))
    .where((eb) => eb.or([eb('max_views', 'is', null), eb('view_count', '<', eb.ref('max_views'))]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Counts one download if the link is active and under its download limit; with limit N exactly N calls succeed. */
export async function countDownload(db: Db, id: string, now = Date.now()): Promise<boolean> {
  const r = await db
    .updateTable('links')
    .set((eb) => ({ download_count: eb('download_count', '+', 1) }))
    .where('id', '=', id)
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('expire_at', 'is', null), eb('expire_at', '>', now)]))
    .where((eb) => eb.or([eb('max_downloads', 'is', null), eb('download_count', '<', eb.ref('max_downloads'))]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Reserves one file of `bytes` on an upload link within its caps; false when that would pass either. */
export async function reserveUpload(db: Db, id: string, bytes: number): Promise<boolean> {
  const r = await db
    .updateTable('links')
    .set((eb) => ({ upload_count: eb('upload_count', '+', 1), upload_bytes: eb('upload_bytes', '+', bytes) }))
    .where('id', '=', id)
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('upload_max_files', 'is', null), eb('upload_count', '<', eb.ref('upload_max_files'))]))
    .where((eb) => eb.or([eb('upload_max_bytes', 'is', null), eb(eb('upload_bytes', '+', bytes), '<=', eb.ref('upload_max_bytes'))]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function releaseUpload(db: Db, id: string, bytes: number): Promise<void> {
  await db
    .updateTable('links')
    .set((eb) => ({ upload_count: eb('upload_count', '-', 1), upload_bytes: eb('upload_bytes', '-', bytes) }))
    .where('id', '=', id)
    .execute();
}

export async function recordUpload(db: Db, linkId: string, instanceId: string, tokenId: string, now = Date.now()): Promise<void> {
  await db.insertInto('link_uploads').values({ link_id: linkId, instance_id: instanceId, token_id: tokenId, created_at: now }).onConflict((oc) => oc.doNothing()).execute();
}

export async function uploadedBy(db: Db, linkId: string, instanceId: string): Promise<string | undefined> {
  const r = await db.selectFrom('link_uploads').select('token_id').where('link_id', '=', linkId).where('instance_id', '=', instanceId).executeTakeFirst();
  return r?.token_id;
}

/** An upload session the owner's space opened through the link (its visitors reach no other session). */
export async function addLinkSession(db: Db, linkId: string, sessionId: string, tokenId: string, now = Date.now()): Promise<void> {
  await db.insertInto('link_sessions').values({ session_id: sessionId, link_id: linkId, token_id: tokenId, created_at: now }).onConflict((oc) => oc.doNothing()).execute();
}

export async function isLinkSession(db: Db, linkId: string, sessionId: string): Promise<boolean> {
  return (await db.selectFrom('link_sessions').select('session_id').where('session_id', '=', sessionId).where('link_id', '=', linkId).executeTakeFirst()) !== undefined;
}

// Visitor tokens.
export interface TokenRow {
  id: string;
  linkId: string;
  epoch: number;
  ip: string;
  expiresAt: number;
  revoked: boolean;
}

export async function insertToken(db: Db, t: { id: string; linkId: string; epoch: number; ip: string; expiresAt: number }, now = Date.now()): Promise<void> {
  await db.insertInto('link_tokens').values({ id: t.id, link_id: t.linkId, epoch: t.epoch, ip: t.ip, created_at: now, expires_at: t.expiresAt }).execute();
}

export async function getToken(db: Db, id: string): Promise<TokenRow | undefined> {
  const r = await db.selectFrom('link_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  return r && { id: r.id, linkId: r.link_id, epoch: Number(r.epoch), ip: r.ip, expiresAt: Number(r.expires_at), revoked: Number(r.revoked) === 1 };
}

export async function revokeToken(db: Db, id: string): Promise<void> {
  await db.updateTable('link_tokens').set({ revoked: 1 }).where('id', '=', id).execute();
}

/**
 * Drops what no request can use any more: expired visitor tokens (their grants go with them) and wrong-code counts
 * whose window and lockout have both passed. Returns how many rows went.
 */
export async function pruneLinkState(db: Db, failWindowMs: number, now = Date.now()): Promise<number> {
  const tokens = await db.deleteFrom('link_tokens').where('expires_at', '<', now).executeTakeFirst();
  const locks = await db.deleteFrom('link_lockouts').where('last_at', '<=', now - failWindowMs).where('locked_until', '<=', now).executeTakeFirst();
  return Number(tokens.numDeletedRows) + Number(locks.numDeletedRows);
}

/** Records a counted download for the token; false when it already had one for the file. */
export async function addGrant(db: Db, tokenId: string, instanceId: string, now = Date.now()): Promise<boolean> {
  const r = await db
    .insertInto('link_grants')
    .values({ token_id: tokenId, instance_id: instanceId, created_at: now })
    .onConflict((oc) => oc.doNothing())
    .returning('token_id')
    .executeTakeFirst();
  return r !== undefined;
}

export async function hasGrant(db: Db, tokenId: string, instanceId: string): Promise<boolean> {
  return (await db.selectFrom('link_grants').select('token_id').where('token_id', '=', tokenId).where('instance_id', '=', instanceId).executeTakeFirst()) !== undefined;
}

export async function dropGrant(db: Db, tokenId: string, instanceId: string): Promise<void> {
  await db.deleteFrom('link_grants').where('token_id', '=', tokenId).where('instance_id', '=', instanceId).execute();
}

// The share log.
export interface LinkLogEntry {
  linkId: string;
  ownerId: string;
  optSubject: string;
  optType: string;
  optObj: string;
  optObjName: string;
  optDevice: string;
  ip: string;
}

export async function insertLinkLog(db: Db, e: LinkLogEntry, now = Date.now()): Promise<void> {
  await db
    .insertInto('link_logs')
    .values({
      link_id: e.linkId, owner_id: e.ownerId, opt_subject: e.optSubject, opt_type: e.optType, opt_obj: e.optObj,
      opt_obj_name: e.optObjName, opt_device: e.optDevice.slice(0, 512), ip: e.ip, created_at: now,
    })
    .execute();
}

export async function listLinkLogs(db: Db, linkId: string, q: { optType?: string; limit: number; offset: number }) {
  let base = db.selectFrom('link_logs').where('link_id', '=', linkId);
  if (q.optType !== undefined) base = base.where('opt_type', '=', q.optType);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await base.selectAll().orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute();
  return {
    total: Number(total.n),
    list: rows.map((r) => ({
      id: String(r.id), shareId: r.link_id, optSubject: r.opt_subject, optType: r.opt_type, optObj: r.opt_obj,
      optObjName: r.opt_obj_name, optDevice: r.opt_device, ip: r.ip, createTime: Number(r.created_at),
    })),
  };
}

// Wrong-code lockouts.
export interface LockoutState {
  failures: number;
  lockedUntil: number;
}

export async function readLockouts(db: Db, keys: readonly string[], windowMs: number, now = Date.now()): Promise<Map<string, LockoutState>> {
  const out = new Map<string, LockoutState>();
  if (keys.length === 0) return out;
  const rows = await db.selectFrom('link_lockouts').selectAll().where('key', 'in', keys).execute();
  for (const r of rows) {
    const stale = Number(r.last_at) <= now - windowMs;
    out.set(r.key, { failures: stale ? 0 : Number(r.failures), lockedUntil: Number(r.locked_until) });
  }
  return out;
}

/**
 * Counts one failure against `key` (failures older than the window start a new count) in one atomic upsert, and
 * returns the count; the caller then extends the lockout with lockUntil.
 */
export async function hitLockout(db: Db, key: string, windowMs: number, now = Date.now()): Promise<number> {
  const over = now - windowMs;
  const r = await db
    .insertInto('link_lockouts')
    .values({ key, failures: 1, last_at: now, locked_until: 0 })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet((eb) => ({
        failures: eb.case().when('link_lockouts.last_at', '<=', over).then(1).else(eb('link_lockouts.failures', '+', 1)).end(),
        last_at: now,
      })),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  return Number(r.failures);
}

/** Moves the key's lockout to `until` unless it already ends later. */
export async function lockUntil(db: Db, key: string, until: number): Promise<void> {
  await db.updateTable('link_lockouts').set({ locked_until: until }).where('key', '=', key).where('locked_until', '<', until).execute();
}

// The link policy.
export interface LinkPolicy {
  codeRequired: boolean;
  maxExpireDays: number | null;
  allowedRoles: string[];
}

export async function getStoredPolicy(db: Db): Promise<LinkPolicy | undefined> {
  const r = await db.selectFrom('link_policy').selectAll().where('id', '=', 1).executeTakeFirst();
  if (!r) return undefined;
  return { codeRequired: Number(r.code_required) === 1, maxExpireDays: numOrNull(r.max_expire_days), allowedRoles: JSON.parse(r.allowed_roles) as string[] };
}

export async function storePolicy(db: Db, p: LinkPolicy, now = Date.now()): Promise<void> {
  const v = { code_required: flag(p.codeRequired), max_expire_days: p.maxExpireDays, allowed_roles: JSON.stringify(p.allowedRoles), updated_at: now };
  await db.insertInto('link_policy').values({ id: 1, ...v }).onConflict((oc) => oc.column('id').doUpdateSet(v)).execute();
}

