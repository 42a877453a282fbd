// Users: the only SQL that reads or writes the users table. Password hashes leave this module only towards
// the verifier; the row type handed to handlers has no hash in it.
import { newId } from '../ids.ts';
import { sql, type Selectable } from 'kysely';
import { forUpdate, type Db } from './sql/tx.ts';
import type { UsersTable } from './sql/schema.ts';
import { asNameExists } from './sql/errors.ts';
import { AppError } from '../http/errors.ts';
import { hashPassword, assertPasswordPolicy } from '../auth/passwords.ts';

/** `expired_time` value meaning "never expires" (spec: userExpiredTime 1). */
export const NEVER_EXPIRES = 1;

export interface User {
  id: string;
  userName: string;
  realName: string;
  deptId: string | null;
  isEnabled: boolean;
  /** Epoch ms; NEVER_EXPIRES (1) = no expiry. */
  expiredTime: number;
  isAdmin: boolean;
  languageId: string | null;
  platformId: string;
  /** null = unlimited. */
  quotaBytes: number | null;
  usedBytes: number;
  mustChangePassword: boolean;
  passwordChangedAt: number;
  createdAt: number;
  updatedAt: number;
  /** The user has marked an item (a favourite or a label) at some time: false means no listing row is marked. */
  hasMarks: boolean;
}

/** Every column but the password hash, which leaves this module only towards the verifier. */
export const USER_COLUMNS = [
  'id', 'user_name', 'real_name', 'dept_id', 'is_enabled', 'expired_time', 'is_admin', 'language_id', 'platform_id',
  'quota_bytes', 'used_bytes', 'must_change_password', 'password_changed_at', 'created_at', 'updated_at', 'has_marks',
] as const;

export type UserRow = Pick<Selectable<UsersTable>, (typeof USER_COLUMNS)[number]>;

export function toUser(r: UserRow): User {
  return {
    id: r.id,
    userName: r.user_name,
    realName: r.real_name,
    deptId: r.dept_id,
    isEnabled: r.is_enabled === 1,
    expiredTime: r.expired_time,
    isAdmin: r.is_admin === 1,
    languageId: r.language_id,
    platformId: r.platform_id,
    quotaBytes: r.quota_bytes,
    usedBytes: r.used_bytes,
    mustChangePassword: r.must_change_password === 1,
    passwordChangedAt: r.password_changed_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    hasMarks: r.has_marks === 1,
  };
}

/**
 * Records that the user has marked an item, in the transaction that adds the mark (favourites-repo, labels-repo).
 * Only the first mark changes the row, and so tells every node's session cache (027).
 */
export async function noteUserMarks(trx: Db, userId: string): Promise<void> {
  await trx.updateTable('users').set({ has_marks: 1 }).where('id', '=', userId).where('has_marks', '=', 0).execute();
}

/** Names are compared case-insensitively (and after Unicode normalisation) everywhere. */
export function userNameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/** True when the account's expiry time has passed. */
export function isExpired(user: Pick<User, 'expiredTime'>, now = Date.now()): boolean {
  return user.expiredTime !== NEVER_EXPIRES && user.expiredTime < now;
}

export async function getUserById(db: Db, id: string): Promise<User | null> {
  const r = await db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return r ? toUser(r) : null;
}

export async function getUserByName(db: Db, name: string): Promise<User | null> {
  const r = await db.selectFrom('users').select(USER_COLUMNS).where('user_name_key', '=', userNameKey(name)).where('deleted_at', 'is', null).executeTakeFirst();
  return r ? toUser(r) : null;
}

/** The stored hash for sign-in and password change; undefined when no live account has that id. */
export async function getPasswordHash(db: Db, userId: string): Promise<string | undefined> {
  const r = await db.selectFrom('users').select('password_hash').where('id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
  return r?.password_hash;
}

/**
 * Locks the user's row until the transaction `db` ends (PostgreSQL; SQLite serialises writers anyway): per-user
 * limits that are checked and then added to (open uploads) hold across nodes.
 */
export async function lockUser(db: Db, userId: string): Promise<void> {
  await forUpdate(db, db.selectFrom('users').select('id').where('id', '=', userId)).execute();
}

/** What a bearer link needs to act for its user: the user's department, if the account may still be used. */
export async function getLinkCaller(db: Db, userId: string): Promise<{ userId: string; deptId: string | null; isAdmin: boolean } | undefined> {
  const r = await db.selectFrom('users').select(['id', 'dept_id', 'is_enabled', 'is_admin']).where('id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
  // isAdmin: the access decision gives administrators `manager` on department spaces, tickets included.
  return r && r.is_enabled === 1 ? { userId: r.id, deptId: r.dept_id, isAdmin: r.is_admin === 1 } : undefined;
}

export interface NewUser {
  userName: string;
  /** Plaintext; hashed here and never kept. */
  password: string;
  realName?: string;
  deptId?: string | null;
  isAdmin?: boolean;
  isEnabled?: boolean;
  /** Epoch ms or NEVER_EXPIRES. */
  expiredTime?: number;
  languageId?: string | null;
  /** Bytes; null or omitted = unlimited. New ordinary users get config.defaultQuotaBytes (0 there = unlimited). */
  quotaBytes?: number | null;
  mustChangePassword?: boolean;
  /** Skip the strength rule (only for passwords an operator set through configuration). */
  skipPolicy?: boolean;
  email?: string;
  phone?: string;
}

 
const NAME_RE = /^[^\u0000-\u001f\u007f\\/:*?"<>|]{1,128}$/u;

/** Creates an account; NAME_INVALID for a bad name, NAME_EXISTS when the name is taken (case-insensitively). */
export async function createUser(db: Db, input: NewUser, now = Date.now()): Promise<User> {
  const userName = input.userName.normalize('NFC');
  if (!NAME_RE.test(userName) || userName.trim() !== userName) {
    throw new AppError('NAME_INVALID', 'the user name must be 1-128 characters without control characters or \\ / : * ? " < > | and without leading or trailing spaces');
  }
  if (!input.skipPolicy) assertPasswordPolicy(input.password, userName);
  const hash = await hashPassword(input.password);
  const id = newId();
  try {
    await db
      .insertInto('users')
      .values({
        id,
        user_name: userName,
        user_name_key: userNameKey(userName),
        real_name: input.realName ?? userName,
        dept_id: input.deptId ?? null,
        password_hash: hash,
        is_enabled: input.isEnabled === false ? 0 : 1,
        expired_time: input.expiredTime ?? NEVER_EXPIRES,
        is_admin: input.isAdmin ? 1 : 0,
        language_id: input.languageId ?? null,
        quota_bytes: input.quotaBytes === undefined ? null : input.quotaBytes,
        must_change_password: input.mustChangePassword ? 1 : 0,
        email: input.email ?? '',
        phone: input.phone ?? '',
        password_changed_at: now,
        created_at: now,
        updated_at: now,
      })
      .execute();
  } catch (err) {
    throw asNameExists(err, 'user-name', `a user named ${userName} already exists`);
  }
  return (await getUserById(db, id)) as User;
}

/** Replaces the hash (already computed by the caller, outside any transaction). */
export async function setPasswordHash(db: Db, userId: string, hash: string, mustChange: boolean, now = Date.now()): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: hash, must_change_password: mustChange ? 1 : 0, password_changed_at: now, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

/**
 * Replaces a stored hash by one of the same password at a higher cost (a sign-in upgrading it), only while the row
 * still holds `from`: a password changed meanwhile is never overwritten. Leaves the change time and flags alone.
 */
export async function upgradePasswordHash(db: Db, userId: string, from: string, to: string): Promise<boolean> {
  const r = await db.updateTable('users').set({ password_hash: to }).where('id', '=', userId).where('password_hash', '=', from).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function setUserLanguage(db: Db, userId: string, languageId: string, now = Date.now()): Promise<void> {
  await db.updateTable('users').set({ language_id: languageId, updated_at: now }).where('id', '=', userId).execute();
}

export async function setUserEnabled(db: Db, userId: string, enabled: boolean, now = Date.now()): Promise<void> {
  await db.updateTable('users').set({ is_enabled: enabled ? 1 : 0, updated_at: now }).where('id', '=', userId).execute();
}

export async function setUserExpiredTime(db: Db, userId: string, expiredTime: number, now = Date.now()): Promise<void> {
  await db.updateTable('users').set({ expired_time: expiredTime, updated_at: now }).where('id', '=', userId).execute();
}

/** Bytes; null = unlimited. */
export async function setUserQuota(db: Db, userId: string, quotaBytes: number | null, now = Date.now()): Promise<void> {
  await db.updateTable('users').set({ quota_bytes: quotaBytes, updated_at: now }).where('id', '=', userId).execute();
}

// ---- Administration of accounts (issue #14): listing, editing, deletion into the deleted-users list, labels. ----

/** An account as administrators see it, deleted ones included. */
export interface AdminUser extends User {
  email: string;
  phone: string;
  deletedAt: number | null;
}

const ADMIN_COLUMNS = [...USER_COLUMNS, 'email', 'phone', 'deleted_at'] as const;
type AdminRow = Pick<Selectable<UsersTable>, (typeof ADMIN_COLUMNS)[number]>;

function toAdminUser(r: AdminRow): AdminUser {
  return { ...toUser(r), email: r.email, phone: r.phone, deletedAt: r.deleted_at };
}

/** Any account by id, deleted or not. */
export async function getAdminUser(db: Db, id: string): Promise<AdminUser | null> {
  const r = await db.selectFrom('users').select(ADMIN_COLUMNS).where('id', '=', id).executeTakeFirst();
  return r ? toAdminUser(r) : null;
}

export async function getAdminUsers(db: Db, ids: readonly string[]): Promise<Map<string, AdminUser>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('users').select(ADMIN_COLUMNS).where('id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, toAdminUser(r)]));
}

export type AccountFilter = 'all' | 'active' | 'disabled' | 'expired' | 'deleted';

export interface UserQuery {
  /** Accounts in any of these departments (null: everywhere). */
  deptIds: readonly string[] | null;
  state: AccountFilter;
  label?: string;
  keyword?: string;
  pageNo: number;
  pageSize: number;
}

/** A page of accounts ordered by user name (deleted ones: newest deletion first), with the total. */
export async function listAdminUsers(db: Db, q: UserQuery, now = Date.now()): Promise<{ list: AdminUser[]; total: number }> {
  let base = db.selectFrom('users');
  if (q.deptIds !== null) {
    if (q.deptIds.length === 0) return { list: [], total: 0 };
    base = base.where('dept_id', 'in', [...q.deptIds]);
  }
  base = q.state === 'deleted' ? base.where('deleted_at', 'is not', null) : base.where('deleted_at', 'is', null);
  if (q.state === 'active') base = base.where('is_enabled', '=', 1).where((eb) => eb.or([eb('expired_time', '=', NEVER_EXPIRES), eb('expired_time', '>=', now)]));
  if (q.state === 'disabled') base = base.where('is_enabled', '=', 0);
  if (q.state === 'expired') base = base.where('expired_time', '<>', NEVER_EXPIRES).where('expired_time', '<', now);
  if (q.keyword) {
    const k = `%${q.keyword.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where((eb) => eb.or([sql<boolean>`user_name_key like ${k} escape '\\'`, sql<boolean>`lower(real_name) like ${k} escape '\\'`]));
  }
  if (q.label) {
    const key = q.label.normalize('NFC').toLowerCase();
    base = base.where('id', 'in', (eb) => eb.selectFrom('user_labels').select('user_id').where('label_key', '=', key));
  }
  const total = Number((await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  let page = base.select(ADMIN_COLUMNS);
  page = q.state === 'deleted' ? page.orderBy('deleted_at', 'desc').orderBy('id') : page.orderBy('user_name_key');
  const rows = await page.limit(q.pageSize).offset((q.pageNo - 1) * q.pageSize).execute();
  return { list: rows.map(toAdminUser), total };
}

export interface UserChanges {
  realName?: string;
  deptId?: string;
  email?: string;
  phone?: string;
  expiredTime?: number;
  quotaBytes?: number | null;
  isEnabled?: boolean;
  isAdmin?: boolean;
}

export async function updateUser(db: Db, userId: string, c: UserChanges, now = Date.now()): Promise<void> {
  await db
    .updateTable('users')
    .set({
      updated_at: now,
      ...(c.realName !== undefined ? { real_name: c.realName } : {}),
      ...(c.deptId !== undefined ? { dept_id: c.deptId } : {}),
      ...(c.email !== undefined ? { email: c.email } : {}),
      ...(c.phone !== undefined ? { phone: c.phone } : {}),
      ...(c.expiredTime !== undefined ? { expired_time: c.expiredTime } : {}),
      ...(c.quotaBytes !== undefined ? { quota_bytes: c.quotaBytes } : {}),
      ...(c.isEnabled !== undefined ? { is_enabled: c.isEnabled ? 1 : 0 } : {}),
      ...(c.isAdmin !== undefined ? { is_admin: c.isAdmin ? 1 : 0 } : {}),
    })
    .where('id', '=', userId)
    .execute();
}

/** Into the deleted-users list: the account stops working (sign-in and sessions) and keeps everything else. */
export async function markUserDeleted(db: Db, userId: string, now = Date.now()): Promise<boolean> {
  const res = await db.updateTable('users').set({ deleted_at: now, updated_at: now }).where('id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function restoreUser(db: Db, userId: string, now = Date.now()): Promise<boolean> {
  const res = await db.updateTable('users').set({ deleted_at: null, updated_at: now }).where('id', '=', userId).where('deleted_at', 'is not', null).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export function labelKey(label: string): string {
  return label.normalize('NFC').toLowerCase();
}

export async function getLabels(db: Db, userIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return out;
  const rows = await db.selectFrom('user_labels').select(['user_id', 'label']).where('user_id', 'in', [...new Set(userIds)]).orderBy('label_key').execute();
  for (const r of rows) out.get(r.user_id)?.push(r.label);
  return out;
}

/** Replaces an account's labels (duplicates by case collapse to the first spelling). */
export async function setLabels(db: Db, userId: string, labels: readonly string[]): Promise<string[]> {
  const byKey = new Map<string, string>();
  for (const l of labels) {
    const label = l.normalize('NFC').trim();
    if (label !== '' && !byKey.has(labelKey(label))) byKey.set(labelKey(label), label);
  }
  await db.deleteFrom('user_labels').where('user_id', '=', userId).execute();
  if (byKey.size > 0) await db.insertInto('user_labels').values([...byKey].map(([label_key, label]) => ({ user_id: userId, label, label_key }))).execute();
  return [...byKey.values()].sort((a, b) => labelKey(a).localeCompare(labelKey(b)));
}
