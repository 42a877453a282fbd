// Public links and upload links (contract tag "shares", paths/share-links.yaml, issue #17 part 2). Owners' calls
// reach only their own links (administrators every link); a link of someone else answers NOT_FOUND as if it did
// not exist. Visitors' calls run with req.visitor (links/visitors.ts): the route layer has checked their token and
// that the link is still open, and every id they name goes through `reachable`.
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AppContext, Handlers } from '../context.ts';
import type { components } from '@hcs/openapi/schema';
import { done, ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { transaction } from '../db/sql/tx.ts';
import { callerOf } from '../files/access.ts';
import { assertSubtreeAllows, decide, hiddenChildren, permissionsFor, prepareAccess } from '../files/access-gate.ts';
import { contentDisposition, contentTypeOf, decodeWireName, nameKey } from '../files/names.ts';
import { issueTicket, redeemTicket } from '../files/tickets.ts';
import { sendZip } from '../files/zip-stream.ts';
import { assertFits } from '../db/quota.ts';
import { contentOf, downloadInfo, viewOf } from '../files/wire.ts';
import { isActiveContent } from '../http/hygiene.ts';
import { newId } from '../ids.ts';
import { childrenAfter, getInstanceRows, getWithAncestors, insertInstance, renameInstance, spaceOf, type InstanceRow } from '../db/instances-repo.ts';
import { getUserById, isExpired } from '../db/users-repo.ts';
import { PREVIEW_INLINE_LIMIT } from './download.ts';
import { uploadHandlers } from './upload.ts';
import {
  addGrant, addLinkSession, countDownload, countView, dropGrant, getLink, getLinkByKey, getLinks, getStoredPolicy, getToken, hasGrant, insertLink, isLinkSession, itemIdsOfLinks,
  linkItemIds, listLinkLogs, listLinks, liveLinksOn, recordUpload, releaseUpload, reserveUpload, revokeToken, setLinkKey, setLinkStatus, storePolicy, updateLinkSettings, uploadedBy,
  type LinkPolicy, type LinkRow, type LinkSettings,
} from '../db/links-repo.ts';
import {
  assertLinkOpen, assertMayList, checkLockout, codeHash, codeMatches, CAPTCHA_AFTER, drawCode, isExhausted, issueToken, linkStatus,
  logLinkEvent, newLinkKey, ownerCaller, reachable, recordFailure, visitorOf, type Visitor,
} from '../links/visitors.ts';
import type { SessionUser } from '../auth/types.ts';
import { createCaptchas } from '../auth/captcha.ts';
import { assertDlpCleared } from './dlp.ts';
import { WATERMARKABLE, watermarkText } from '../files/watermark.ts';
import { deleteCallback, deliveryStatuses, getCallback, insertDelivery, listCallbacks, upsertCallback } from '../db/share-callbacks-repo.ts';
import { callbackSecret, deliverCallback } from '../links/share-callback.ts';
import { nearestBlobStore, nearestCloudProvider } from '../replication/runner.ts';

type Schemas = components['schemas'];
const DAY = 24 * 60 * 60_000;
/** Presigned storage URLs for visitors: storage cannot ask whether the link still stands, so they live briefly. */
const SIGNED_URL_TTL_S = 60;
const PREVIEW_TICKET_MS = 2 * 60_000;
/** A visitor's zip URL: single-use and short, as the link may be cancelled in the meantime. */
const ZIP_TICKET_MS = 2 * 60_000;

interface ZipTicket { linkId: string; tokenId: string; ids: string[]; name: string }

/** The policy's defaults, from the environment (HCS_LINK_CODE_REQUIRED, HCS_LINK_MAX_EXPIRE_DAYS, HCS_LINK_ROLES). */
export function envLinkPolicy(env: NodeJS.ProcessEnv = process.env): LinkPolicy {
  const days = Number(env.HCS_LINK_MAX_EXPIRE_DAYS);
  return {
    codeRequired: env.HCS_LINK_CODE_REQUIRED === 'true',
    maxExpireDays: Number.isInteger(days) && days > 0 ? days : null,
    allowedRoles: (env.HCS_LINK_ROLES ?? '').split(',').map((s) => s.trim()).filter(Boolean),
  };
}

function itemView(r: InstanceRow): Schemas['ShareItem'] {
  return { instanceId: r.id, instanceName: r.name, classifierId: r.isFolder ? 'Folder' : 'File', fSize: r.isFolder ? 0 : (r.blobSize ?? r.size), fType: r.ext, createTime: r.createdAt };
}

function page(pageNo: number | undefined, pageSize: number | undefined) {
  const no = pageNo ?? 1;
  const size = pageSize ?? 20;
  return { pageNo: no, pageSize: size, limit: size, offset: (no - 1) * size };
}

export function shareLinksHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;
  // The sign-in CAPTCHA challenges (same table, same secret): verifyCode hands them out, loginShare spends them.
  const captchas = createCaptchas(db, ctx.secret);
  // Visitors' zip tickets are stored as the signed-in ones (kind zip) but tagged under their own key, so neither zip
  // route redeems the other's: a visitor's ticket never streams without the link's checks.
  const zipSecret = createHmac('sha256', ctx.secret).update('share-zip-ticket').digest();
  const origin = (req: FastifyRequest) => ctx.config.publicUrl ?? `${req.protocol}://${req.host}`;
  const fullLink = (req: FastifyRequest, key: string) => `${origin(req)}/drive/fileDownload?link=${key}`;

  async function policy(): Promise<LinkPolicy> {
    return (await getStoredPolicy(db)) ?? envLinkPolicy();
  }

  async function linkView(req: FastifyRequest, l: LinkRow, items?: InstanceRow[], code?: string): Promise<Schemas['FileShare']> {
    const rows = items ?? (await getInstanceRows(db, await linkItemIds(db, l.id)));
    const owner = await getUserById(db, l.ownerId);
    const link = fullLink(req, l.linkKey);
    return {
      shareId: l.id, link: l.linkKey, fullLink: link, shareUrl: link, shareType: l.shareType, status: linkStatus(l),
      hasCode: l.codeHash !== null, ...(code !== undefined ? { code } : {}),
      expireTime: l.expireAt, maxViews: l.maxViews, maxDownloads: l.maxDownloads, viewCount: l.viewCount, downloadCount: l.downloadCount,
      previewOnly: l.previewOnly, verifyCode: l.verifyCode, watermark: l.watermark, uploadMaxBytes: l.uploadMaxBytes, uploadMaxFiles: l.uploadMaxFiles,
      uploadAllowList: l.uploadAllowList, uploadCount: l.uploadCount, uploadBytes: l.uploadBytes,
      items: rows.filter((r) => r.deletedAt === null).map(itemView),
      createTime: l.createdAt, updateTime: l.updatedAt, userId: l.ownerId, userName: owner?.realName || owner?.userName || '',
      callbackStatus: (await deliveryStatuses(db, [l.id])).get(l.id) ?? null,
    };
  }

  /** One of the caller's links (administrators: any), else NOT_FOUND as if it did not exist. */
  async function ownLink(user: SessionUser, id: string): Promise<LinkRow> {
    const l = await getLink(db, id);
    if (!l || l.status === 'deleted' || (l.ownerId !== user.userId && !user.isAdmin)) throw new AppError('NOT_FOUND', 'no such share');
    return l;
  }

  /** The caller's roles on an item as the access gate decides them: owner, the deciding grants' roles or the default. */
  async function rolesOn(user: SessionUser, id: string): Promise<string[]> {
    const chain = await getWithAncestors(db, id);
    if (!chain) return [];
    await prepareAccess(db, user, [...chain.ancestors, chain.row]);
    const d = decide(user, chain.row, chain.ancestors);
    if (d.source === 'owner') return ['owner'];
    if (d.source === 'grant') return d.chain.find((c) => c.instanceId === d.decidedAt)?.grants.map((g) => g.roleCode) ?? [];
    return d.defaultRole ? [d.defaultRole] : [];
  }

  /** Settings from a create or modify body over `base`, checked against the policy; the new code if one was set. */
  function settingsFrom(
    b: Schemas['ShareSettings'], base: LinkSettings, linkId: string, p: LinkPolicy, now: number,
  ): { s: LinkSettings; code?: string; codeChanged: boolean } {
    const s: LinkSettings = { ...base };
    let code: string | undefined;
    if (b.code !== undefined && (b.generateCode || b.removeCode)) throw new AppError('VALIDATION_FAILED', 'give a code, or generateCode, or removeCode', { fields: [{ field: 'code', message: 'only one of code, generateCode, removeCode' }] });
    if (b.code !== undefined) code = b.code;
    else if (b.generateCode) code = drawCode();
    if (code !== undefined) s.codeHash = codeHash(ctx.secret, linkId, code);
    if (b.removeCode) s.codeHash = null;
    if (s.codeHash === null && p.codeRequired) throw new AppError('VALIDATION_FAILED', 'the link policy requires an extraction code', { fields: [{ field: 'code', message: 'required by policy' }] });
    if (b.expireTime !== undefined && b.days !== undefined) throw new AppError('VALIDATION_FAILED', 'give expireTime or days, not both', { fields: [{ field: 'days', message: 'with expireTime' }] });
    if (b.days !== undefined) s.expireAt = now + b.days * DAY;
    else if (b.expireTime !== undefined) s.expireAt = b.expireTime;
    if (s.expireAt !== null && s.expireAt <= now && (b.days !== undefined || b.expireTime !== undefined)) {
      throw new AppError('VALIDATION_FAILED', 'the expiry is in the past', { fields: [{ field: 'expireTime', message: 'in the past' }] });
    }
    if (p.maxExpireDays !== null && (s.expireAt === null || s.expireAt > now + p.maxExpireDays * DAY + 60_000)) {
      throw new AppError('VALIDATION_FAILED', `the link policy allows at most ${p.maxExpireDays} days`, { fields: [{ field: 'expireTime', message: `at most ${p.maxExpireDays} days` }] });
    }
    if (b.maxViews !== undefined) s.maxViews = b.maxViews;
    if (b.maxDownloads !== undefined) s.maxDownloads = b.maxDownloads;
    if (b.previewOnly !== undefined) s.previewOnly = b.previewOnly;
    if (b.verifyCode !== undefined) s.verifyCode = b.verifyCode;
    if (b.watermark !== undefined) s.watermark = b.watermark;
    // A watermark is drawn on previews only; a download would hand out the clean file.
    if (s.watermark) s.previewOnly = true;
    if (b.uploadMaxBytes !== undefined) s.uploadMaxBytes = b.uploadMaxBytes;
    if (b.uploadMaxFiles !== undefined) s.uploadMaxFiles = b.uploadMaxFiles;
    if (b.uploadAllowList !== undefined) s.uploadAllowList = b.uploadAllowList;
    return { s, code, codeChanged: code !== undefined || b.removeCode === true };
  }

  async function visitorShare(v: Visitor): Promise<Schemas['VisitorShare']> {
    const l = v.link;
    const owner = await getUserById(db, l.ownerId);
    const rows = (await getInstanceRows(db, v.itemIds)).filter((r) => r.deletedAt === null);
    return {
      shareType: l.shareType, previewOnly: l.previewOnly, watermark: l.watermark, uploadAllowList: l.uploadAllowList, expireTime: l.expireAt,
      downloadsLeft: l.maxDownloads === null ? null : Math.max(0, l.maxDownloads - l.downloadCount),
      uploadFilesLeft: l.uploadMaxFiles === null ? null : Math.max(0, l.uploadMaxFiles - l.uploadCount),
      uploadBytesLeft: l.uploadMaxBytes === null ? null : Math.max(0, l.uploadMaxBytes - l.uploadBytes),
      userName: owner?.realName || owner?.userName || '', items: rows.map(itemView),
    };
  }

  /** A file the visitor may download: reachable, and the link lets visitors download. */
  /** A link hands out no more than its maker may do now (a grantee who lost download takes it from their visitors). */
  async function assertMakerMay(v: Visitor, row: InstanceRow, permission: 'download' | 'preview'): Promise<void> {
    if (!(await permissionsFor(db, await ownerCaller(db, v.link), row)).has(permission)) {
      throw new AppError('FORBIDDEN', `the link's owner may no longer ${permission} this`);
    }
  }

  async function downloadable(v: Visitor, id: string): Promise<InstanceRow> {
    assertMayList(v.link);
    const row = await reachable(db, v, id);
    if (v.link.previewOnly) throw new AppError('SHARE_PREVIEW_ONLY', 'this link allows preview only');
    if (row.isFolder) throw new AppError('CONFLICT', 'a folder is downloaded file by file');
    await assertMakerMay(v, row, 'download');
    return row;
  }

  /** A file or folder the visitor may take as a zip: as `downloadable`, and nothing below it kept from the maker. */
  async function zippable(v: Visitor, id: string): Promise<InstanceRow> {
    assertMayList(v.link);
    const row = await reachable(db, v, id);
    if (v.link.previewOnly) throw new AppError('SHARE_PREVIEW_ONLY', 'this link allows preview only');
    await assertMakerMay(v, row, 'download');
    await assertSubtreeAllows(db, await ownerCaller(db, v.link), row, 'download');
    return row;
  }

  /**
   * Counts one download of `row` for the visitor's token, once: the grant is recorded first, so parallel requests
   * of one token count once, and the conditional UPDATE then holds the limit across every token and node.
   */
  async function grantDownload(req: FastifyRequest, v: Visitor, row: InstanceRow): Promise<boolean> {
    if (!(await addGrant(db, v.token.id, row.id))) return false;
    if (!(await countDownload(db, v.link.id))) {
      await dropGrant(db, v.token.id, row.id);
      throw new AppError('SHARE_LIMIT_REACHED', 'the link has no downloads left');
    }
    await logLinkEvent(ctx, req, v.link, 'download', { id: row.id, name: row.name });
    return true;
  }

  function grantView(v: Visitor, row: InstanceRow, token: string): Schemas['DownloadGrant'] {
    const l = v.link;
    return {
      instanceId: row.id, url: `/hcs/services/ShareAPI/shareDownload?instanceId=${row.id}&token=${encodeURIComponent(token)}`,
      expiresAt: v.token.expiresAt, downloadsLeft: l.maxDownloads === null ? null : Math.max(0, l.maxDownloads - l.downloadCount - 1),
    };
  }

  const rawToken = (req: FastifyRequest) => String(req.headers.sharetoken ?? (req.query as { token?: string }).token ?? '');

  async function previewFor(req: FastifyRequest, l: LinkRow, row: InstanceRow) {
    const blob = contentOf(row);
    const contentType = contentTypeOf(row.name);
    if (l.watermark) {
      // A protected link serves only marked copies, through the server whatever the size (a presigned URL would hand
      // out the clean object): images get the visitor's address and the time drawn on them, other types no preview.
      if (!WATERMARKABLE.has(contentType)) throw new AppError('SHARE_PREVIEW_ONLY', 'a protected link previews images only');
      const watermark = watermarkText(req.ip, new Date());
      const { ticket, expiresAt } = await issueTicket(db, ctx.secret, 'preview', l.ownerId, { instanceId: row.id, watermark }, PREVIEW_TICKET_MS);
      return { url: `/hcs/services/API/preview/${ticket}`, expiresAt, contentType, size: blob.size, inline: true };
    }
    if (blob.size < PREVIEW_INLINE_LIMIT || isActiveContent({ contentType })) {
      // The ticket is the owner's read of that one file, for two minutes: what a cancel still lets through is bounded.
      const { ticket, expiresAt } = await issueTicket(db, ctx.secret, 'preview', l.ownerId, { instanceId: row.id }, PREVIEW_TICKET_MS);
      return { url: `/hcs/services/API/preview/${ticket}`, expiresAt, contentType, size: blob.size, inline: true };
    }
    const at = await nearestBlobStore(ctx, blob.id, ctx.storageEndpoint(req));
    const url = await at.store.presignGet(blob.objectKey, {
      expiresIn: SIGNED_URL_TTL_S, endpoint: at.endpoint,
      responseContentDisposition: contentDisposition(isActiveContent({ name: row.name }) ? 'attachment' : 'inline', row.name), responseContentType: contentType,
    });
    return { url, expiresAt: Date.now() + SIGNED_URL_TTL_S * 1000, contentType, size: blob.size, inline: false };
  }

  // Upload links: the visitor's upload calls are the signed-in calls acting for the owner (whose quota is
  // charged), confined to the link's folder and to the upload sessions opened through the link.
  const uploads = uploadHandlers(ctx);
  /** The signed-in upload handler a visitor's call runs as the owner. */
  const upload = <K extends keyof typeof uploads>(name: K): NonNullable<(typeof uploads)[K]> => {
    const h = uploads[name];
    if (!h) throw new AppError('INTERNAL', `no handler ${String(name)}`);
    return h as NonNullable<(typeof uploads)[K]>;
  };

  async function actingOwner(req: FastifyRequest, v: Visitor): Promise<SessionUser> {
    if (v.link.shareType !== 'upload') throw new AppError('FORBIDDEN', 'this link takes no uploads');
    const u = await getUserById(db, v.link.ownerId);
    if (!u || !u.isEnabled || isExpired(u)) throw new AppError('SHARE_NOT_FOUND', 'no such link');
    const owner: SessionUser = {
      userId: u.id, userName: u.userName, realName: u.realName, deptId: u.deptId, isAdmin: u.isAdmin, languageId: u.languageId,
      sessionId: `link:${v.link.id}`, sessionKind: 'token', hasMarks: u.hasMarks,
    };
    req.user = owner;
    return owner;
  }

  /** The folder an upload goes to: the link's folder or one below it, where the owner may still upload. */
  async function uploadFolder(v: Visitor, owner: SessionUser, parentId: string | undefined): Promise<InstanceRow> {
    const folder = await reachable(db, v, parentId ?? v.itemIds[0]!);
    if (!folder.isFolder) throw new AppError('NOT_FOUND', 'no such folder');
    if (!(await permissionsFor(db, owner, folder)).has('upload')) throw new AppError('FORBIDDEN', 'the owner may no longer upload into this folder');
    return folder;
  }

  async function linkSession(v: Visitor, fId: string | undefined): Promise<void> {
    if (!fId || !(await isLinkSession(db, v.link.id, fId))) throw new AppError('UPLOAD_SESSION_MISSING', 'no such upload session for this link');
  }

  function assertRoom(l: LinkRow, bytes: number): void {
    if ((l.uploadMaxFiles !== null && l.uploadCount >= l.uploadMaxFiles) || (l.uploadMaxBytes !== null && l.uploadBytes + bytes > l.uploadMaxBytes)) {
      throw new AppError('SHARE_UPLOAD_LIMIT', 'the upload link has no room for this file');
    }
  }

  /** The query with parentId pinned to a checked folder (the signed-in handler then resolves exactly that folder). */
  function pinParent<T extends { parentId?: string }>(req: FastifyRequest, folder: InstanceRow): T {
    const q = { ...(req.query as T), parentId: folder.id };
    (req as { query: unknown }).query = q;
    return q;
  }

  return {
    // Owners.
    async createShare(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const ids = [...new Set(b.instanceIds)];
      const shareType = b.shareType ?? 'download';
      const rows = await getInstanceRows(db, ids);
      if (shareType === 'upload') {
        if (rows.length !== 1 || !rows[0]!.isFolder) throw new AppError('VALIDATION_FAILED', 'an upload link names exactly one folder', { fields: [{ field: 'instanceIds', message: 'one folder' }] });
      }
      for (const r of rows) if (r.parentId === null) throw new AppError('FORBIDDEN', 'a library root cannot be shared by link');
      const p = await policy();
      if (p.allowedRoles.length > 0 && !user.isAdmin) {
        for (const id of ids) {
          const roles = await rolesOn(user, id);
          if (!roles.some((r) => p.allowedRoles.includes(r))) throw new AppError('FORBIDDEN', 'the link policy does not let your role share this by link');
        }
      }
      if (shareType === 'upload') {
        if (!(await permissionsFor(db, user, rows[0]!)).has('upload')) throw new AppError('FORBIDDEN', 'you may not upload into this folder');
      }
      // What leaves through a download link passes the DLP rules or an approval; an upload link lets nothing out.
      else await assertDlpCleared(db, user.userId, ids);
      const now = Date.now();
      const id = newId();
      const base: LinkSettings = {
        codeHash: null, expireAt: null, maxViews: null, maxDownloads: null, previewOnly: false, verifyCode: false, watermark: false,
        uploadMaxBytes: null, uploadMaxFiles: null, uploadAllowList: false,
      };
      const { s, code } = settingsFrom(b, base, id, p, now);
      if (b.callback && !(await getCallback(db, b.callback.platformId))) {
        throw new AppError('VALIDATION_FAILED', 'no share callback is registered for this platform', { fields: [{ field: 'callback.platformId', message: 'not registered' }] });
      }
      const linkKey = newLinkKey();
      await transaction(db, async (trx) => {
        await insertLink(trx, { id, linkKey, ownerId: user.userId, shareType, settings: s, instanceIds: ids }, now);
        if (b.callback) await insertDelivery(trx, id, b.callback.platformId, now);
      });
      if (b.callback) {
        // After the link exists and without holding up its creator: the platform is told in the background.
        const shareUrl = fullLink(req, linkKey);
        void deliverCallback({ db, secret: ctx.secret, log: req.log }, b.callback.platformId, { token: b.callback.token, instanceIds: ids, fileId: ids[0]!, shareId: id, shareUrl });
      }
      return ok(await linkView(req, (await getLink(db, id))!, rows, code));
    },

    async getShare(req) {
      const l = await ownLink(callerOf(req.user), req.params.id);
      return ok(await linkView(req, l));
    },

    async modifyShare(req) {
      const user = callerOf(req.user);
      const l = await ownLink(user, req.params.id);
      if (l.status !== 'active') throw new AppError('CONFLICT', 'a cancelled link cannot be changed');
      const now = Date.now();
      const { s, code, codeChanged } = settingsFrom(req.body, l, l.id, await policy(), now);
      await updateLinkSettings(db, l.id, s, codeChanged, now);
      return ok(await linkView(req, (await getLink(db, l.id))!, undefined, code));
    },

    async getShareItem(req) {
      const l = await ownLink(callerOf(req.user), req.params.a);
      const ids = await linkItemIds(db, l.id);
      if (!ids.includes(req.params.b)) throw new AppError('NOT_FOUND', 'no such item in this share');
      return ok(await linkView(req, l, await getInstanceRows(db, [req.params.b])));
    },

    async pageShares(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const p = page(q.pageNo, q.pageSize);
      const all = q.all === true && user.isAdmin;
      let instanceIds: string[] | undefined;
      if (q.keyword?.trim()) {
        const key = q.keyword.trim().toLowerCase();
        const mine = await listLinks(db, { ownerId: all ? undefined : user.userId, limit: 10_000, offset: 0 });
        const items = await itemIdsOfLinks(db, mine.list.map((l) => l.id));
        const rows = await getInstanceRows(db, [...new Set([...items.values()].flat())]);
        instanceIds = rows.filter((r) => r.name.toLowerCase().includes(key)).map((r) => r.id);
      }
      // expired and exhausted are states of active rows: filter them after reading.
      const stored = q.status === 'cancelled' ? 'cancelled' : q.status === undefined ? undefined : 'active';
      const { list, total } = await listLinks(db, { ownerId: all ? undefined : user.userId, status: stored, shareType: q.shareType, instanceIds, limit: p.limit, offset: p.offset });
      const views = await Promise.all(list.map((l) => linkView(req, l)));
      const shown = q.status === undefined || q.status === 'cancelled' ? views : views.filter((v) => v.status === q.status);
      return ok({ list: shown, total: shown.length === views.length ? total : shown.length, pageNo: p.pageNo, pageSize: p.pageSize });
    },

    async deleteShares(req) {
      const user = callerOf(req.user);
      const ids = [...new Set(req.query.shareIds.split(','))];
      const links = await getLinks(db, ids);
      const mine = links.filter((l) => l.status !== 'deleted' && (l.ownerId === user.userId || user.isAdmin)).map((l) => l.id);
      const done_ = await setLinkStatus(db, mine, 'deleted');
      return ok({ done: done_, failed: ids.filter((i) => !done_.includes(i)).map((id) => ({ id, code: 'NOT_FOUND' })) });
    },

    async cancelShare(req) {
      const user = callerOf(req.user);
      const ids = [...new Set(req.body.shareIds)];
      const links = await getLinks(db, ids);
      const mine = links.filter((l) => l.status !== 'deleted' && (l.ownerId === user.userId || user.isAdmin));
      const changed = await setLinkStatus(db, mine.map((l) => l.id), 'cancelled');
      // Already cancelled counts as done: the caller's wish holds.
      const doneIds = mine.filter((l) => changed.includes(l.id) || l.status === 'cancelled').map((l) => l.id);
      return ok({ done: doneIds, failed: ids.filter((i) => !doneIds.includes(i)).map((id) => ({ id, code: 'NOT_FOUND' })) });
    },

    async addLink(req) {
      const user = callerOf(req.user);
      const l = await ownLink(user, req.body.shareId);
      if (l.status !== 'active') throw new AppError('CONFLICT', 'a cancelled link cannot be given a new address');
      await setLinkKey(db, l.id, newLinkKey());
      return ok(await linkView(req, (await getLink(db, l.id))!));
    },

    async getShareLinkText(req) {
      const l = await ownLink(callerOf(req.user), req.query.shareId);
      return ok({ shareId: l.id, link: l.linkKey, fullLink: fullLink(req, l.linkKey) });
    },

    async deleteParentShareInfo(req) {
      const user = callerOf(req.user);
      const chain = await getWithAncestors(db, req.query.instanceId);
      if (!chain) throw new AppError('NOT_FOUND', 'no such file or folder');
      const ids = await liveLinksOn(db, user.userId, [chain.row.id, ...chain.ancestors.map((a) => a.id)]);
      const changed = await setLinkStatus(db, ids, 'cancelled');
      return ok({ done: changed, failed: [] });
    },

    async pageShareLogs(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const l = await ownLink(user, q.shareId);
      const p = page(q.pageNo, q.pageSize);
      const r = await listLinkLogs(db, l.id, { optType: q.optType, limit: p.limit, offset: p.offset });
      return ok({ list: r.list.map((x) => ({ ...x, optType: x.optType as Schemas['ShareLogType'] })), total: r.total, pageNo: p.pageNo, pageSize: p.pageSize });
    },

    async getLinkPolicy(req) {
      callerOf(req.user);
      return ok(await policy());
    },

    async setLinkPolicy(req) {
      const b = req.body;
      const p: LinkPolicy = { codeRequired: b.codeRequired, maxExpireDays: b.maxExpireDays ?? null, allowedRoles: [...new Set(b.allowedRoles)] };
      await storePolicy(db, p);
      return ok(p);
    },

    async listShareCallbacks() {
      return ok((await listCallbacks(db)).map((c) => ({ platformId: c.platformId, url: c.url, createTime: c.createdAt, updateTime: c.updatedAt })));
    },

    async setShareCallback(req) {
      const b = req.body;
      let url: URL;
      try {
        url = new URL(b.url);
      } catch {
        throw new AppError('VALIDATION_FAILED', 'the callback URL is not a URL', { fields: [{ field: 'url', message: 'not a URL' }] });
      }
      if (url.username || url.password) throw new AppError('VALIDATION_FAILED', 'the callback URL must not carry credentials', { fields: [{ field: 'url', message: 'credentials' }] });
      const c = await upsertCallback(db, b.platformId, url.toString(), randomBytes(16).toString('base64url'));
      return ok({ platformId: c.platformId, url: c.url, secret: callbackSecret(ctx.secret, c), createTime: c.createdAt, updateTime: c.updatedAt });
    },

    async deleteShareCallback(req) {
      if (!(await deleteCallback(db, req.body.platformId))) throw new AppError('NOT_FOUND', 'no share callback for this platform');
      return done();
    },

    async fileSharePreview(req) {
      const user = callerOf(req.user);
      const l = await ownLink(user, req.query.shareId);
      const v: Visitor = { link: l, token: { id: '', linkId: l.id, epoch: l.tokenEpoch, ip: req.ip, expiresAt: 0, revoked: false }, itemIds: await linkItemIds(db, l.id) };
      const row = await reachable(db, v, req.query.instanceId);
      return ok(await previewFor(req, l, row));
    },

    // Visitors before the code.
    async checkLink(req) {
      const l = await getLinkByKey(db, req.query.link);
      assertLinkOpen(l);
      if (isExhausted(l)) throw new AppError('SHARE_LIMIT_REACHED', 'the link has no views or downloads left');
      const attempts = await checkLockout(db, l.id, req.ip);
      await logLinkEvent(ctx, req, l, 'visit');
      return ok({
        shareType: l.shareType, needCode: l.codeHash !== null,
        needVerifyCode: l.verifyCode || attempts.linkFailures >= CAPTCHA_AFTER || attempts.ipFailures >= CAPTCHA_AFTER,
      });
    },

    async getShareVerifyCode(req) {
      const l = await getLinkByKey(db, req.params.id);
      assertLinkOpen(l);
      return ok(await captchas.create(req.ip));
    },

    async loginShare(req) {
      const b = req.body;
      const l = await getLinkByKey(db, b.link);
      assertLinkOpen(l);
      // A lockout refuses before anything is compared, the right code included.
      const attempts = await checkLockout(db, l.id, req.ip);
      const fail = async (code: 'SHARE_CODE_WRONG' | 'CAPTCHA_REQUIRED' | 'CAPTCHA_INVALID', message: string): Promise<never> => {
        await recordFailure(db, l.id, req.ip);
        await logLinkEvent(ctx, req, l, 'codeWrong');
        throw new AppError(code, message);
      };
      const needCaptcha = l.verifyCode || attempts.linkFailures >= CAPTCHA_AFTER || attempts.ipFailures >= CAPTCHA_AFTER;
      if (needCaptcha) {
        if (!b.captchaId || !b.captchaAnswer) await fail('CAPTCHA_REQUIRED', 'enter the verify code (verifyCode) with the extraction code');
        if (!(await captchas.consume(b.captchaId!, b.captchaAnswer!))) await fail('CAPTCHA_INVALID', 'the verify code is wrong or expired');
      }
      if (!codeMatches(ctx.secret, l, b.code)) await fail('SHARE_CODE_WRONG', 'the extraction code is wrong');
      if (isExhausted(l) || !(await countView(db, l.id))) {
        assertLinkOpen(await getLink(db, l.id));
        throw new AppError('SHARE_LIMIT_REACHED', 'the link has no views left');
      }
      const { token, expiresAt } = await issueToken(db, l, req.ip);
      await logLinkEvent(ctx, req, l, 'codeRight');
      const fresh = (await getLink(db, l.id))!;
      return ok({ ...(await visitorShare({ link: fresh, token: { id: '', linkId: l.id, epoch: l.tokenEpoch, ip: req.ip, expiresAt, revoked: false }, itemIds: await linkItemIds(db, l.id) })), token, expiresAt });
    },

    // Visitors with a token.
    async loginShareToken(req) {
      const v = visitorOf(req);
      await revokeToken(db, v.token.id);
      const { token, expiresAt } = await issueToken(db, v.link, req.ip);
      return ok({ ...(await visitorShare(v)), token, expiresAt });
    },

    async getShareTokenState(req) {
      const v = visitorOf(req);
      return ok({ ...(await visitorShare(v)), token: rawToken(req), expiresAt: v.token.expiresAt });
    },

    async shareGetToken(req) {
      const v = visitorOf(req);
      return ok({ ...(await visitorShare(v)), token: rawToken(req), expiresAt: v.token.expiresAt });
    },

    async getLinkInfo(req) {
      return ok(await visitorShare(visitorOf(req)));
    },

    async pageShareInstances(req) {
      const v = visitorOf(req);
      const q = req.query;
      const p = page(q.pageNo, q.pageSize);
      if (q.parentId === undefined) {
        const rows = (await getInstanceRows(db, v.itemIds)).filter((r) => r.deletedAt === null);
        return ok({ list: rows.slice(p.offset, p.offset + p.limit).map(itemView), total: rows.length, pageNo: p.pageNo, pageSize: p.pageSize });
      }
      assertMayList(v.link);
      const folder = await reachable(db, v, q.parentId);
      if (!folder.isFolder) throw new AppError('NOT_FOUND', 'no such folder');
      // Only what the link's maker sees: a grantee's link must not list what a deny hides from them.
      const hidden = await hiddenChildren(db, await ownerCaller(db, v.link), folder);
      const rows = (await childrenAfter(db, folder.id, undefined, p.offset + p.limit + hidden.size)).filter((r) => !hidden.has(r.id));
      const total = folder.childFolders + folder.childFiles - hidden.size;
      return ok({ list: rows.slice(p.offset, p.offset + p.limit).map(itemView), total, pageNo: p.pageNo, pageSize: p.pageSize });
    },

    async renameShareInstance(req) {
      const v = visitorOf(req);
      const row = await reachable(db, v, req.body.instanceId);
      const by = await uploadedBy(db, v.link.id, row.id);
      if (by === undefined || by !== v.token.id) throw new AppError('FORBIDDEN', 'visitors rename only what they uploaded');
      const name = decodeWireName(req.body.instanceName);
      const renamed = await renameInstance(db, row, name);
      await logLinkEvent(ctx, req, v.link, 'rename', { id: row.id, name });
      return ok(await viewOf(db, renamed));
    },

    async triggerShareLimit(req) {
      const v = visitorOf(req);
      const row = await downloadable(v, req.query.instanceId);
      await grantDownload(req, v, row);
      return ok(grantView(v, row, rawToken(req)));
    },

    async shareGetCdnDownload(req) {
      const v = visitorOf(req);
      const row = await downloadable(v, req.query.instanceId);
      await grantDownload(req, v, row);
      return ok(grantView(v, row, rawToken(req)));
    },

    async shareDownload(req, reply) {
      const v = visitorOf(req);
      const row = await downloadable(v, req.query.instanceId);
      const blob = contentOf(row);
      const range = parseRange(req.headers.range, blob.size);
      // Without a grant this request is a new download and counts; with one it resumes the counted download.
      if (!(await hasGrant(db, v.token.id, row.id))) await grantDownload(req, v, row);
      const obj = await (await nearestBlobStore(ctx, blob.id, ctx.storageEndpoint(req))).store.getObject(blob.objectKey, range ?? undefined);
      reply
        .header('content-type', 'application/octet-stream')
        .header('content-disposition', contentDisposition('attachment', row.name))
        .header('accept-ranges', 'bytes')
        .header('cache-control', 'no-store')
        .header('content-length', String(obj.contentLength));
      if (range) reply.code(206).header('content-range', obj.contentRange ?? `bytes ${range.start}-${range.end}/${blob.size}`);
      return reply.send(obj.body);
    },

    async shareGetZipDownloadUrl(req) {
      const v = visitorOf(req);
      const ids = [...new Set(req.body.instanceIds)];
      const rows: InstanceRow[] = [];
      for (const id of ids) rows.push(await zippable(v, id));
      let name = req.body.name?.trim() || (rows.length === 1 ? rows[0]!.name : 'download');
      if (/[\u0000-\u001f\u007f/\\]/.test(name)) throw new AppError('BAD_REQUEST', 'name contains forbidden characters');
      name = name.replace(/\.zip$/i, '');
      // One download for the whole zip, taken before the ticket exists: a refused count hands out nothing.
      if (!(await countDownload(db, v.link.id))) throw new AppError('SHARE_LIMIT_REACHED', 'the link has no downloads left');
      await logLinkEvent(ctx, req, v.link, 'download', { id: ids.join(','), name: `${name}.zip` });
      const payload: ZipTicket = { linkId: v.link.id, tokenId: v.token.id, ids, name };
      const { ticket, expiresAt } = await issueTicket(db, zipSecret, 'zip', v.link.ownerId, payload, ZIP_TICKET_MS);
      const l = v.link;
      return ok({ url: `/hcs/services/ShareAPI/zip/${ticket}`, expiresAt, downloadsLeft: l.maxDownloads === null ? null : Math.max(0, l.maxDownloads - l.downloadCount - 1) });
    },

    async shareDownloadZip(req, reply) {
      const t = await redeemTicket<ZipTicket>(db, zipSecret, 'zip', req.params.ticket, { singleUse: true });
      // The link and the visitor's token as they stand now: a cancel, an expiry or a new code since the ticket wins.
      const link = await getLink(db, t.payload.linkId);
      assertLinkOpen(link);
      const token = await getToken(db, t.payload.tokenId);
      if (!token || token.revoked || token.expiresAt <= Date.now() || token.epoch !== link.tokenEpoch) throw new AppError('SHARE_TOKEN_INVALID', 'the share token is expired or revoked');
      const v: Visitor = { link, token, itemIds: await linkItemIds(db, link.id) };
      // Every entry before the first byte, so a refusal is still a proper error envelope.
      for (const id of t.payload.ids) await zippable(v, id);
      await sendZip(ctx, req, reply, await ownerCaller(db, link), t.payload.ids, t.payload.name);
    },

    async shareGetDownloadFileInfo(req) {
      const v = visitorOf(req);
      const row = await downloadable(v, req.query.instanceId);
      const at = await nearestBlobStore(ctx, contentOf(row).id, ctx.storageEndpoint(req));
      return ok(downloadInfo(at.store, row, at.endpoint));
    },

    async shareGetCloudProvider(req) {
      visitorOf(req);
      return ok(await nearestCloudProvider(ctx, ctx.storageEndpoint(req)));
    },

    async shareSignDownloadRequest(req) {
      const v = visitorOf(req);
      const row = await downloadable(v, req.query.instanceId);
      if (!(await hasGrant(db, v.token.id, row.id))) throw new AppError('FORBIDDEN', 'start the download first (triggerShareLimit)');
      const blob = contentOf(row);
      const m = /^bytes=(\d+)-(\d+)$/.exec(req.query.range)!;
      const start = Number(m[1]);
      const end = Math.min(Number(m[2]), blob.size - 1);
      if (start > end) throw new AppError('VALIDATION_FAILED', 'the range is outside the file', { fields: [{ field: 'range', message: 'outside the file' }] });
      const at = await nearestBlobStore(ctx, blob.id, ctx.storageEndpoint(req));
      const url = await at.store.presignGet(blob.objectKey, {
        expiresIn: SIGNED_URL_TTL_S, range: { start, end }, endpoint: at.endpoint,
        responseContentDisposition: contentDisposition('attachment', row.name), responseContentType: 'application/octet-stream',
      });
      return ok({ url, expiresAt: Date.now() + SIGNED_URL_TTL_S * 1000, contentType: 'application/octet-stream', size: end - start + 1, inline: false });
    },

    async shareGetPreview(req) {
      const v = visitorOf(req);
      if (v.link.shareType === 'upload') assertMayList(v.link);
      const row = await reachable(db, v, req.query.instanceId);
      await assertMakerMay(v, row, 'preview');
      const out = await previewFor(req, v.link, row);
      await logLinkEvent(ctx, req, v.link, 'preview', { id: row.id, name: row.name });
      return ok(out);
    },

    async shareGetFileInfoById(req) {
      const v = visitorOf(req);
      return ok(itemView(await reachable(db, v, req.params.id)));
    },

    // Upload links (the anonymous upload endpoints).
    async shareGetUploadToken(req) {
      const v = visitorOf(req);
      if (v.link.shareType !== 'upload') throw new AppError('FORBIDDEN', 'this link takes no uploads');
      return ok({ ...(await visitorShare(v)), token: rawToken(req), expiresAt: v.token.expiresAt });
    },

    async shareCheckFileExist(req, reply) {
      const v = visitorOf(req);
      const owner = await actingOwner(req, v);
      pinParent(req, await uploadFolder(v, owner, req.query.parentId));
      return upload('checkFileExist')(req as never, reply);
    },

    async shareGetFileUploadable(req, reply) {
      const v = visitorOf(req);
      const owner = await actingOwner(req, v);
      const q = pinParent<typeof req.query>(req, await uploadFolder(v, owner, req.query.parentId));
      assertRoom(v.link, q.fSize);
      const out = (await upload('getFileUploadable')(req as never, reply)) as { data: Record<string, unknown> };
      if (typeof out.data.fId === 'string') await addLinkSession(db, v.link.id, out.data.fId, v.token.id);
      // Never instant transfer through a link: the answer would tell a visitor that the owner holds this content.
      if (out.data.uploadflag === 1) {
        delete out.data.proof;
        out.data.uploadflag = 3;
      }
      return out as never;
    },

    async shareSignStorageRequest(req, reply) {
      const v = visitorOf(req);
      await actingOwner(req, v);
      if (req.query.action === 'getObject' || req.query.action === 'headObject') throw new AppError('FORBIDDEN', 'upload links sign uploads only');
      await linkSession(v, req.query.fId);
      return upload('signStorageRequest')(req as never, reply);
    },

    async shareSecondTransfer(req) {
      visitorOf(req);
      throw new AppError('FORBIDDEN', 'instant transfer is not offered through a link');
    },

    async shareInitPartInfo(req, reply) {
      const v = visitorOf(req);
      await actingOwner(req, v);
      await linkSession(v, req.body.fId);
      return upload('initPartInfo')(req as never, reply);
    },

    async shareSetPartInfo(req, reply) {
      const v = visitorOf(req);
      await actingOwner(req, v);
      await linkSession(v, req.body.fId);
      return upload('setPartInfo')(req as never, reply);
    },

    async shareGetPartInfo(req, reply) {
      const v = visitorOf(req);
      const owner = await actingOwner(req, v);
      if (req.query.fId) await linkSession(v, req.query.fId);
      else pinParent(req, await uploadFolder(v, owner, req.query.parentId));
      const out = (await upload('getPartInfo')(req as never, reply)) as { data: { fId?: string } | null };
      // Found by content and name: only a session of this link is the visitor's to resume.
      if (out.data?.fId && !(await isLinkSession(db, v.link.id, out.data.fId))) return ok(null) as never;
      return out as never;
    },

    async shareDestroyPartInfo(req, reply) {
      const v = visitorOf(req);
      await actingOwner(req, v);
      await linkSession(v, req.body.fId);
      return upload('destroyPartInfo')(req as never, reply);
    },

    async shareSaveInstance(req, reply) {
      const v = visitorOf(req);
      await actingOwner(req, v);
      await linkSession(v, req.body.fId);
      // The caps are taken before the file is filed (one conditional UPDATE) and given back if filing fails.
      if (!(await reserveUpload(db, v.link.id, req.body.fSize))) throw new AppError('SHARE_UPLOAD_LIMIT', 'the upload link has no room for this file');
      let out: { data: { instanceId: string; instanceName: string } };
      try {
        out = (await upload('saveInstance')(req as never, reply)) as typeof out;
      } catch (err) {
        await releaseUpload(db, v.link.id, req.body.fSize);
        throw err;
      }
      await recordUpload(db, v.link.id, out.data.instanceId, v.token.id);
      await logLinkEvent(ctx, req, v.link, 'upload', { id: out.data.instanceId, name: out.data.instanceName });
      return out as never;
    },

    async shareCreateFolders(req) {
      const v = visitorOf(req);
      const owner = await actingOwner(req, v);
      const b = req.body;
      const base = await uploadFolder(v, owner, b.parentId);
      // Every name first: one bad name ('..', a slash) creates nothing.
      const paths = b.folders.map((p, i) => p.map((wire, j) => decodeWireName(wire, `folders[${i}][${j}]`)));
      const l = v.link;
      if ((l.uploadMaxFiles !== null && l.uploadCount + b.files > l.uploadMaxFiles) || (l.uploadMaxBytes !== null && l.uploadBytes + b.bytes > l.uploadMaxBytes)) {
        throw new AppError('SHARE_UPLOAD_LIMIT', 'the upload link has no room for this folder');
      }
      const made = await transaction(db, async (trx) => {
        await assertFits(trx, spaceOf(base), b.bytes);
        const byPath = new Map<string, InstanceRow>();
        const ensure = async (path: string[]): Promise<InstanceRow> => {
          const key = path.map(nameKey).join('/');
          const known = byPath.get(key);
          if (known) return known;
          const parent = path.length === 1 ? base : await ensure(path.slice(0, -1));
          // Only a top folder can meet a name already there; below it everything is new.
          const row = await insertInstance(trx, { parent, name: path.at(-1)!, isFolder: true, createdBy: owner.userId, ...(path.length === 1 ? { conflict: 'rename' as const } : {}) });
          byPath.set(key, row);
          return row;
        };
        const out: InstanceRow[] = [];
        for (const p of paths) out.push(await ensure(p));
        return { out, all: [...byPath.entries()] };
      });
      for (const [key, row] of made.all) {
        await recordUpload(db, l.id, row.id, v.token.id);
        if (!key.includes('/')) await logLinkEvent(ctx, req, l, 'upload', { id: row.id, name: row.name });
      }
      return ok({ folders: made.out.map((r) => ({ instanceId: r.id, instanceName: r.name })) });
    },

    async addShareLog(req) {
      const v = visitorOf(req);
      const b = req.body;
      let obj = { id: '', name: '' };
      if (b.optObj) {
        const row = await reachable(db, v, b.optObj);
        obj = { id: row.id, name: row.name };
      }
      await logLinkEvent(ctx, req, v.link, b.optType, obj, b.optSubject?.trim() || 'visitor');
      return done();
    },
  };
}

/** A single bytes range of the Range header (the only form a download client sends), or null for the whole file. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) throw new AppError('BAD_REQUEST', 'unsupported Range');
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start > end || start >= size) throw new AppError('BAD_REQUEST', 'the range is outside the file', { status: 416 });
  return { start, end };
}
