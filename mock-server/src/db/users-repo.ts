// Users: the only SQL that reads or writes the users table. Password hashes leave this module only towards
// the verifier; the row type handed to handlers has no hash in it.
import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
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
}

/** Every column but the password hash, which leaves this module only towards the verifier. */
export const USER_COLUMNS = [
  'id', 'user_name', 'real_name', 'dept_id', 'is_enabled', 'expired_time', 'is_admin', 'language_id', 'platform_id',
  'quota_bytes', 'used_bytes', 'must_change_password', 'password_changed_at', 'created_at', 'updated_at',
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
  };
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
export async function getLinkCaller(db: Db, userId: string): Promise<{ userId: string; deptId: string | null } | undefined> {
  const r = await db.selectFrom('users').select(['id', 'dept_id', 'is_enabled']).where('id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
  return r && r.is_enabled === 1 ? { userId: r.id, deptId: r.dept_id } : undefined;
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
  const id = randomBytes(12).toString('base64url');
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
