// DLP and approval (contract tag "dlp", issue #17 part 4). checkDLP and checkAuth are gated by the contract
// (shareExternal on every item); who may see or decide an approval request is decided here: its requester sees it,
// managers of its approving department (or of one above) and administrators see and decide it, and nobody decides
// their own request. Anyone else gets NOT_FOUND, as if it did not exist.
import type { AppContext, Handlers } from '../context.ts';
import { done, ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { callerOf } from '../files/access.ts';
import { getInstanceRows, type InstanceRow } from '../db/instances-repo.ts';
import { getDepts, managedDeptIds, manages } from '../db/departments-repo.ts';
import {
  approvedCovering, approvingDept, createCheck, decideCheck, deleteRules, enabledRules, evaluate, getCheck, pageChecks, pageRules, saveRule,
  type CheckRow, type Hit, type RuleKind, type RuleRow,
} from '../db/dlp-repo.ts';
import type { Db } from '../db/sql/tx.ts';
import { getLink, updateLinkSettings, type LinkRow } from '../db/links-repo.ts';
import type { SessionUser } from '../auth/types.ts';
import type { components } from '@hcs/openapi/schema';

type Schemas = components['schemas'];

const shieldView = (l: LinkRow): Schemas['HikShield'] => ({ shareId: l.id, watermark: l.watermark, previewOnly: l.previewOnly || l.watermark });

const ruleView = (r: RuleRow): Schemas['DlpRule'] => ({ ruleId: r.id, kind: r.kind, value: r.value, enabled: r.enabled, remark: r.remark, updateTime: r.updatedAt });

function checkView(c: CheckRow): Schemas['DlpCheck'] {
  return {
    checkId: c.id, status: c.status, requesterId: c.requesterId, requesterName: c.requesterName, deptId: c.deptId, deptName: c.deptName,
    instanceIds: c.instanceIds, items: c.items, hits: c.hits, reason: c.reason, comment: c.comment,
    ...(c.deciderName !== null ? { deciderName: c.deciderName } : {}), createTime: c.createdAt, ...(c.decidedAt !== null ? { decideTime: c.decidedAt } : {}),
  };
}

const page = (pageNo: number | undefined, pageSize: number | undefined) => {
  const size = pageSize ?? 20;
  return { limit: size, offset: ((pageNo ?? 1) - 1) * size, pageNo: pageNo ?? 1, pageSize: size };
};

/** A rule's value as its kind reads it (see the contract's DlpRuleKind). */
function ruleValue(kind: RuleKind, raw: string): string {
  const value = raw.trim();
  const bad = (message: string) => new AppError('VALIDATION_FAILED', `value: ${message}`, { fields: [{ field: 'value', message }] });
  if (value === '') throw bad('blank');
  if (kind === 'maxSize' && (!/^\d{1,16}$/.test(value) || Number(value) <= 0)) throw bad('a positive number of bytes');
  if (kind === 'extension') {
    const exts = value.split(',').map((x) => x.trim().replace(/^\./, '').toLowerCase());
    if (exts.some((x) => !/^[a-z0-9_-]{1,16}$/.test(x))) throw bad('comma-separated extensions (letters and digits)');
    return exts.join(',');
  }
  return value;
}

/** The items in the order asked (the gate has checked they exist and the caller may share them externally). */
async function itemsOf(db: Db, ids: readonly string[]): Promise<InstanceRow[]> {
  const rows = new Map((await getInstanceRows(db, ids)).map((r) => [r.id, r]));
  return ids.map((id) => {
    const r = rows.get(id);
    if (!r || r.deletedAt !== null) throw new AppError('NOT_FOUND', 'no such instance');
    return r;
  });
}

/**
 * Whether the items may be shared externally now: no enabled rule hits them, or an approved request of the caller
 * covers them all. The link calls use this to refuse a blocked share (DLP_BLOCKED) whatever the client did.
 */
export async function dlpVerdict(db: Db, userId: string, rows: readonly InstanceRow[]): Promise<{ pass: boolean; hits: Hit[]; approvedCheckId?: string }> {
  const hits = await evaluate(db, rows, await enabledRules(db));
  if (hits.length === 0) return { pass: true, hits };
  const approved = await approvedCovering(db, userId, rows.map((r) => r.id));
  return approved ? { pass: true, hits, approvedCheckId: approved } : { pass: false, hits };
}

/** Throws DLP_BLOCKED unless the items may be shared externally now (see dlpVerdict). */
export async function assertDlpCleared(db: Db, userId: string, instanceIds: readonly string[]): Promise<void> {
  const v = await dlpVerdict(db, userId, await itemsOf(db, instanceIds));
  if (!v.pass) throw new AppError('DLP_BLOCKED', `blocked by ${v.hits.length} DLP hit(s); request approval (checkAuth)`);
}

export function dlpHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  /** Paths of the departments the user manages: the subtrees whose requests they decide. */
  async function managedPaths(user: SessionUser): Promise<string[]> {
    const ids = await managedDeptIds(db, user.userId);
    return [...(await getDepts(db, ids)).values()].map((d) => d.path);
  }

  async function mayDecide(user: SessionUser, c: CheckRow): Promise<boolean> {
    if (c.requesterId === user.userId) return false;
    if (user.isAdmin) return true;
    const managed = new Set(await managedDeptIds(db, user.userId));
    return manages(managed, { chain: c.deptPath.split('/').filter((s) => s !== '') });
  }

  /** One of the caller's links (administrators: any), else NOT_FOUND as if it did not exist. */
  async function ownLink(user: SessionUser, id: string): Promise<LinkRow> {
    const l = await getLink(db, id);
    if (!l || l.status === 'deleted' || (l.ownerId !== user.userId && !user.isAdmin)) throw new AppError('NOT_FOUND', 'no such share');
    return l;
  }

  /** The request when the caller may see it; NOT_FOUND otherwise. */
  async function visible(user: SessionUser, id: string): Promise<CheckRow> {
    const c = await getCheck(db, id);
    if (!c || (c.requesterId !== user.userId && !(await mayDecide(user, c)))) throw new AppError('NOT_FOUND', 'no such approval request');
    return c;
  }

  return {
    async checkDLP(req) {
      const user = callerOf(req.user);
      return ok(await dlpVerdict(db, user.userId, await itemsOf(db, req.body.instanceIds)));
    },

    async checkAuth(req) {
      const user = callerOf(req.user);
      const rows = await itemsOf(db, req.body.instanceIds);
      const hits = await evaluate(db, rows, await enabledRules(db));
      if (hits.length === 0) throw new AppError('CONFLICT', 'the items pass the DLP rules: no approval is needed');
      const deptId = await approvingDept(db, rows);
      return ok(checkView(await createCheck(db, { requesterId: user.userId, deptId, rows, hits, reason: req.body.reason ?? '' })));
    },

    async getCheckStatus(req) {
      const user = callerOf(req.user);
      return ok(checkView(await visible(user, req.body.checkId)));
    },

    async pageDlpChecks(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const p = page(q.pageNo, q.pageSize);
      const filter = q.box === 'mine' ? { mineOf: user.userId } : { managedPaths: user.isAdmin ? null : await managedPaths(user) };
      const { rows, total } = await pageChecks(db, { ...filter, ...(q.status ? { status: q.status } : {}), limit: p.limit, offset: p.offset });
      return ok({ list: rows.map(checkView), total, pageNo: p.pageNo, pageSize: p.pageSize });
    },

    async decideDlpCheck(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const c = await visible(user, b.checkId);
      if (!(await mayDecide(user, c))) throw new AppError('FORBIDDEN', 'nobody decides their own approval request');
      return ok(checkView(await decideCheck(db, c.id, user.userId, b.approve, b.comment ?? '')));
    },

    async pageDlpRules(req) {
      const p = page(req.query.pageNo, req.query.pageSize);
      const { rows, total } = await pageRules(db, p.limit, p.offset);
      return ok({ list: rows.map(ruleView), total, pageNo: p.pageNo, pageSize: p.pageSize });
    },

    async saveDlpRule(req) {
      const b = req.body;
      const saved = await saveRule(db, {
        ...(b.ruleId ? { id: b.ruleId } : {}), kind: b.kind, value: ruleValue(b.kind, b.value), enabled: b.enabled ?? true, remark: b.remark ?? '',
      });
      return ok(ruleView(saved));
    },

    async deleteDlpRules(req) {
      await deleteRules(db, req.body.ruleIds);
      return done();
    },

    async getHikShield(req) {
      const l = await ownLink(callerOf(req.user), req.body.shareId);
      return ok(shieldView(l));
    },

    async upHikShield(req) {
      const l = await ownLink(callerOf(req.user), req.body.shareId);
      if (l.status === 'cancelled') throw new AppError('CONFLICT', 'the link is cancelled');
      const on = req.body.watermark;
      // The watermark is drawn on previews only: a protected link that still allowed downloads would hand out clean copies.
      await updateLinkSettings(db, l.id, { ...l, watermark: on, previewOnly: on || l.previewOnly }, false);
      return ok(shieldView((await getLink(db, l.id))!));
    },
  };
}
