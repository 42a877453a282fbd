// Users: the only SQL that reads or writes the users table. Password hashes leave this module only towards
// the verifier; the row type handed to handlers has no hash in it.
import { randomBytes } from 'node:crypto';
import type { Db } from './database.ts';
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

interface UserRow {
  id: string;
  user_name: string;
  real_name: string;
  dept_id: string | null;
  is_enabled: number;
  expired_time: number;
  is_admin: number;
  language_id: string | null;
  platform_id: string;
  quota_bytes: number | null;
  used_bytes: number;
  must_change_password: number;
  password_changed_at: number;
  created_at: number;
  updated_at: number;
}

const COLUMNS = `id, user_name, real_name, dept_id, is_enabled, expired_time, is_admin, language_id, platform_id,
  quota_bytes, used_bytes, must_change_password, password_changed_at, created_at, updated_at`;

function toUser(r: UserRow): User {
  return {
    id: r.id,
    userName: r.user_name,
    realName: r.real_name,
    deptId: r.dept_id,
    isEnabled: r.is_enabled === 1,
    expiredTime: Number(r.expired_time),
    isAdmin: r.is_admin === 1,
    languageId: r.language_id,
    platformId: r.platform_id,
    quotaBytes: r.quota_bytes === null ? null : Number(r.quota_bytes),
    usedBytes: Number(r.used_bytes),
    mustChangePassword: r.must_change_password === 1,
    passwordChangedAt: Number(r.password_changed_at),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
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

export function getUserById(db: Db, id: string): User | null {
  const r = db.prepare(`SELECT ${COLUMNS} FROM users WHERE id = ? AND deleted_at IS NULL`).get(id) as UserRow | undefined;
  return r ? toUser(r) : null;
}

export function getUserByName(db: Db, name: string): User | null {
  const r = db
    .prepare(`SELECT ${COLUMNS} FROM users WHERE user_name_key = ? AND deleted_at IS NULL`)
    .get(userNameKey(name)) as UserRow | undefined;
  return r ? toUser(r) : null;
}

/** The stored hash for sign-in and password change; undefined when no live account has that id. */
export function getPasswordHash(db: Db, userId: string): string | undefined {
  const r = db.prepare('SELECT password_hash FROM users WHERE id = ? AND deleted_at IS NULL').get(userId) as
    | { password_hash: string }
    | undefined;
  return r?.password_hash;
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
    db.prepare(
      `INSERT INTO users (id, user_name, user_name_key, real_name, dept_id, password_hash, is_enabled, expired_time, is_admin,
         language_id, quota_bytes, must_change_password, password_changed_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      userName,
      userNameKey(userName),
      input.realName ?? userName,
      input.deptId ?? null,
      hash,
      input.isEnabled === false ? 0 : 1,
      input.expiredTime ?? NEVER_EXPIRES,
      input.isAdmin ? 1 : 0,
      input.languageId ?? null,
      input.quotaBytes === undefined ? null : input.quotaBytes,
      input.mustChangePassword ? 1 : 0,
      now,
      now,
      now,
    );
  } catch (err) {
    if (String((err as Error).message).includes('UNIQUE constraint failed: users.user_name_key')) {
      throw new AppError('NAME_EXISTS', `a user named ${userName} already exists`);
    }
    throw err;
  }
  return getUserById(db, id) as User;
}

/** Replaces the hash (already computed by the caller, outside any transaction). */
export function setPasswordHash(db: Db, userId: string, hash: string, mustChange: boolean, now = Date.now()): void {
  db.prepare('UPDATE users SET password_hash = ?, must_change_password = ?, password_changed_at = ?, updated_at = ? WHERE id = ?').run(
    hash,
    mustChange ? 1 : 0,
    now,
    now,
    userId,
  );
}

export function setUserLanguage(db: Db, userId: string, languageId: string, now = Date.now()): void {
  db.prepare('UPDATE users SET language_id = ?, updated_at = ? WHERE id = ?').run(languageId, now, userId);
}

export function setUserEnabled(db: Db, userId: string, enabled: boolean, now = Date.now()): void {
  db.prepare('UPDATE users SET is_enabled = ?, updated_at = ? WHERE id = ?').run(enabled ? 1 : 0, now, userId);
}

export function setUserExpiredTime(db: Db, userId: string, expiredTime: number, now = Date.now()): void {
  db.prepare('UPDATE users SET expired_time = ?, updated_at = ? WHERE id = ?').run(expiredTime, now, userId);
}

/** Bytes; null = unlimited. */
export function setUserQuota(db: Db, userId: string, quotaBytes: number | null, now = Date.now()): void {
  db.prepare('UPDATE users SET quota_bytes = ?, updated_at = ? WHERE id = ?').run(quotaBytes, now, userId);
}
