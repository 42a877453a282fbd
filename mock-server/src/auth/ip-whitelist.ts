// The IP white list (/ipWhiteList): which addresses an account may use the drive (scope drive) or the
// administration calls (scope console) from. Enforced on sign-in and on every call of a session (contract/routes.ts),
// read through the database with the ipWhitelist change counter, so an entry saved on one node holds on all of them
// within a second. HCS_IP_WHITELIST_OFF=1 switches enforcement off: the recovery for an administrator who locked
// everyone out (README).
import { BlockList, isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/sql/tx.ts';
import { AppError } from '../http/errors.ts';
import { Versioned } from '../config-store.ts';
import type { IpWhitelistTable } from '../db/sql/schema.ts';

export type IpScope = 'console' | 'drive';
export type IpTargetType = IpWhitelistTable['target_type'];

export interface IpRuleRow {
  id: string;
  ipValue: string;
  kind: 'single' | 'cidr' | 'range';
  targetType: IpTargetType;
  targetId: string;
  scope: IpScope;
  enabled: boolean;
  remark: string;
  updatedAt: number;
}

/** Who an account is, as far as the white list's targets go. */
export interface IpSubject {
  userId: string;
  isAdmin: boolean;
  /** Its department and every one above it. */
  deptChain: readonly string[];
  /** It manages some department. */
  isManager: boolean;
}

export const SYSTEM_ROLES = ['administrator', 'manager', 'user'] as const;

/** Addresses as Node reports them for IPv4 clients of a dual-stack socket (::ffff:a.b.c.d) are plain IPv4. */
export function normaliseIp(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip;
}

const family = (ip: string) => (isIP(ip) === 6 ? 'ipv6' : 'ipv4');

/** Parses a white-list value (single, CIDR or a-b range); null when it is none of them. */
export function parseIpValue(raw: string): { kind: IpRuleRow['kind']; list: BlockList } | null {
  const v = raw.trim();
  const list = new BlockList();
  try {
    if (v.includes('/')) {
      const [net, bits] = v.split('/');
      const f = isIP(net!);
      const prefix = Number(bits);
      if (!f || !/^\d{1,3}$/.test(bits!) || prefix > (f === 4 ? 32 : 128)) return null;
      list.addSubnet(net!, prefix, f === 4 ? 'ipv4' : 'ipv6');
      return { kind: 'cidr', list };
    }
    if (v.includes('-')) {
      const [a, b] = v.split('-').map((s) => s.trim());
      if (!isIP(a!) || isIP(a!) !== isIP(b!)) return null;
      // BlockList refuses a backwards range with a throw; that is a validation problem here.
      list.addRange(a!, b!, family(a!));
      return { kind: 'range', list };
    }
    if (!isIP(v)) return null;
    list.addAddress(v, family(v));
    return { kind: 'single', list };
  } catch {
    return null;
  }
}

function matches(rule: IpRuleRow, ip: string): boolean {
  const parsed = parseIpValue(rule.ipValue);
  return parsed !== null && isIP(ip) !== 0 && parsed.list.check(ip, family(ip));
}

function covers(rule: IpRuleRow, who: IpSubject): boolean {
  switch (rule.targetType) {
    case 'all':
      return true;
    case 'user':
      return rule.targetId === who.userId;
    case 'dept':
      return who.deptChain.includes(rule.targetId);
    case 'role':
      return (
        (rule.targetId === 'administrator' && who.isAdmin) ||
        (rule.targetId === 'manager' && who.isManager) ||
        (rule.targetId === 'user' && !who.isAdmin)
      );
  }
}

/**
 * Whether `rules` admit `who` from `ip` for a call of `scope`. An account held to no enabled entry is not
 * restricted; held to some, the address must match one. Console calls are held to the drive's entries too.
 */
export function admits(rules: readonly IpRuleRow[], who: IpSubject, ip: string, scope: IpScope): boolean {
  const held = rules.filter((r) => r.enabled && (r.scope === 'drive' || scope === 'console') && covers(r, who));
  if (held.length === 0) return true;
  const addr = normaliseIp(ip);
  return held.some((r) => matches(r, addr));
}

export async function loadIpRules(db: Db): Promise<IpRuleRow[]> {
  const rows = await db.selectFrom('ip_whitelist').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => ({
    id: r.id, ipValue: r.ip_value, kind: r.kind, targetType: r.target_type, targetId: r.target_id, scope: r.scope,
    enabled: Number(r.enabled) === 1, remark: r.remark, updatedAt: Number(r.updated_at),
  }));
}

/** What the white list needs to know about an account, read only when some entry targets departments or managers. */
async function subjectOf(db: Db, user: { userId: string; isAdmin: boolean; deptId: string | null }, rules: readonly IpRuleRow[]): Promise<IpSubject> {
  const who: IpSubject = { userId: user.userId, isAdmin: user.isAdmin, deptChain: [], isManager: false };
  if (user.deptId && rules.some((r) => r.targetType === 'dept')) {
    const d = await db.selectFrom('departments').select('path').where('id', '=', user.deptId).executeTakeFirst();
    who.deptChain = (d?.path ?? `/${user.deptId}/`).split('/').filter(Boolean);
  }
  if (rules.some((r) => r.targetType === 'role' && r.targetId === 'manager')) {
    who.isManager = (await db.selectFrom('dept_managers').select('dept_id').where('user_id', '=', user.userId).limit(1).executeTakeFirst()) !== undefined;
  }
  return who;
}

export interface IpGate {
  /** Refuses with IP_FORBIDDEN when the list does not admit the account from the request's address. */
  assert(req: FastifyRequest, user: { userId: string; isAdmin: boolean; deptId: string | null }, scope: IpScope): Promise<void>;
  /** Whether `rules` (the list as it is, or as it would be) admit the account from `ip` for `scope`. */
  admitsWith(rules: readonly IpRuleRow[], user: { userId: string; isAdmin: boolean; deptId: string | null }, ip: string, scope: IpScope): Promise<boolean>;
  rules(): Promise<IpRuleRow[]>;
  enforced: boolean;
  invalidate(): void;
}

const gates = new WeakMap<Db, IpGate>();

export function ipGate(ctx: { db: Db; config: { ipWhitelistOff?: boolean } }): IpGate {
  let gate = gates.get(ctx.db);
  if (gate) return gate;
  const { db } = ctx;
  const cache = new Versioned(db, 'ipWhitelist', loadIpRules);
  const enforced = ctx.config.ipWhitelistOff !== true;
  const admitsWith: IpGate['admitsWith'] = async (rules, user, ip, scope) => {
    const live = rules.filter((r) => r.enabled);
    if (live.length === 0) return true;
    return admits(live, await subjectOf(db, user, live), ip, scope);
  };
  gate = {
    enforced,
    rules: () => cache.get(),
    invalidate: () => cache.invalidate(),
    admitsWith,
    async assert(req, user, scope) {
      if (!enforced) return;
      if (!(await admitsWith(await cache.get(), user, req.ip, scope))) {
        throw new AppError('IP_FORBIDDEN', `the IP white list does not admit this account from ${normaliseIp(req.ip)}`);
      }
    },
  };
  gates.set(db, gate);
  return gate;
}
