// Helpers the organisation screens share: the department tree as antd tree data, sizes typed in GB, expiry dates,
// passwords encrypted like the sign-in password, and the antd Form rules of the administration forms (spec 5 style:
// every message from the locale files).
import type { Rule } from 'antd/es/form';
import type { TFunction } from 'i18next';
import type { DeptTreeNode } from '../../api/gen/model/deptTreeNode.ts';
import { getPlatformInfo } from '../../api/gen/session/session.ts';
import { encryptPassword } from '../../shared/wire-encoding.ts';
import { nameProblem, PASSWORD_MIN_LENGTH, passwordStrength } from '../../shared/format.ts';
import { HcsError } from '../../api/hcs-error.ts';
import { codeMessage, errorMessage, type MessageParams } from '../../shared/error-message.ts';
import { i18n } from '../../shared/i18n.ts';

export interface DeptOption {
  value: string;
  title: string;
  key: string;
  disabled?: boolean;
  children: DeptOption[];
}

/** TreeSelect data; `exclude` and everything below it are disabled (a department never moves under itself). */
export function deptOptions(nodes: readonly DeptTreeNode[] | undefined, exclude?: string, rootName?: string, inside = false): DeptOption[] {
  return (nodes ?? []).map((n) => {
    const off = inside || n.id === exclude;
    return {
      value: n.id,
      key: n.id,
      title: n.parentId === null && rootName ? rootName : n.name,
      disabled: off,
      children: deptOptions(n.children, exclude, rootName, off),
    };
  });
}

/** The node with `id` anywhere in the tree. */
export function findDept(nodes: readonly DeptTreeNode[] | undefined, id: string | undefined): DeptTreeNode | undefined {
  if (!id) return undefined;
  for (const n of nodes ?? []) {
    if (n.id === id) return n;
    const below = findDept(n.children, id);
    if (below) return below;
  }
  return undefined;
}

const GiB = 1024 ** 3;

/** A quota typed in GB (decimals allowed) as bytes; empty = unlimited (null). */
export function gbToBytes(gb: number | null | undefined): number | null {
  return gb === null || gb === undefined ? null : Math.round(gb * GiB);
}

export function bytesToGb(bytes: number | null | undefined): number | null {
  return bytes === null || bytes === undefined ? null : Math.round((bytes / GiB) * 1000) / 1000;
}

/** 1 is the spec's "never expires". */
export const NEVER_EXPIRES = 1;

/** A YYYY-MM-DD day as the end of that day (UTC) in epoch ms, the way the CSV import reads it; empty = never. */
export function dayToExpiry(day: string | undefined): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day ?? '');
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 23, 59, 59, 999) : NEVER_EXPIRES;
}

export function expiryToDay(ms: number | undefined): string {
  return ms === undefined || ms === NEVER_EXPIRES ? '' : new Date(ms).toISOString().slice(0, 10);
}

export async function encryptForServer(password: string): Promise<string> {
  const info = (await getPlatformInfo({ quiet: true })).data;
  if (!info) throw new Error('no platform info');
  return encryptPassword(password, info.publicKey);
}

/** No whitespace and none of the characters names may not hold (spec 5). */
export const USER_NAME_PATTERN = /^[^\s\\/:*?"<>|]{1,128}$/;
export const PHONE_PATTERN = /^[0-9+() -]{3,32}$/;
export const LABEL_PATTERN = /^[^\u0000-\u001f,]{1,64}$/;

/** The antd Form rules of the organisation forms. */
export function orgRules(t: TFunction) {
  const deptName: Rule[] = [
    { required: true, whitespace: false, message: t('org.validation.deptNameRequired') },
    {
      validator: async (_r, v: string | undefined) => {
        if (!v) return;
        const problem = nameProblem(v);
        if (problem) throw new Error(t(`files.nameProblem.${problem}`));
      },
    },
  ];
  const userName: Rule[] = [
    { required: true, message: t('org.validation.userNameRequired') },
    { pattern: USER_NAME_PATTERN, message: t('org.validation.userNamePattern') },
  ];
  const password = (userName: () => string | undefined): Rule[] => [
    { required: true, message: t('account.password.inputPassword') },
    { min: PASSWORD_MIN_LENGTH, message: t('account.password.minLength', { count: PASSWORD_MIN_LENGTH }) },
    {
      validator: async (_r, value: string | undefined) => {
        if (value && value.length >= PASSWORD_MIN_LENGTH && passwordStrength(value, userName()) < 2) throw new Error(t('account.password.tooWeak'));
      },
    },
  ];
  const confirm = (field: string): Rule[] => [
    { required: true, message: t('account.password.enterAgain') },
    ({ getFieldValue }) => ({
      validator: async (_r, value: string | undefined) => {
        if (value && value !== getFieldValue(field)) throw new Error(t('account.password.inconsistent'));
      },
    }),
  ];
  const email: Rule[] = [{ type: 'email', message: t('org.validation.email') }];
  const phone: Rule[] = [{ pattern: PHONE_PATTERN, message: t('org.validation.phone') }];
  const quota: Rule[] = [{ type: 'number', min: 0, max: 1024 * 1024, message: t('org.validation.quota') }];
  const labels: Rule[] = [
    {
      validator: async (_r, v: string[] | undefined) => {
        if ((v ?? []).length > 50) throw new Error(t('org.validation.labelsTooMany'));
        const bad = (v ?? []).find((l) => !LABEL_PATTERN.test(l));
        if (bad !== undefined) throw new Error(t('org.validation.label', { label: bad }));
      },
    },
  ];
  const required = (key: string): Rule[] => [{ required: true, message: t(key) }];
  return { deptName, userName, password, confirm, email, phone, quota, labels, required };
}

/**
 * What went wrong, said for what the screen was doing: some codes mean something more precise here than their
 * general message (NAME_EXISTS is a taken user name, not a file; SPACE_NOT_ENOUGH is over the parent department's
 * remaining quota), from org.codes.<subject>.<CODE>; everything else is the general message by code.
 */
export type OrgSubject = 'user' | 'dept';

export function orgCodeMessage(subject: OrgSubject, code: string, params: MessageParams = {}): string {
  const key = `org.codes.${subject}.${code}`;
  return i18n.exists(key) ? i18n.t(key, params) : (codeMessage(code, params) ?? i18n.t('errors.unexpected'));
}

export function orgErrorMessage(subject: OrgSubject, err: unknown, params: MessageParams = {}): string {
  return err instanceof HcsError && i18n.exists(`org.codes.${subject}.${err.code}`) ? orgCodeMessage(subject, err.code, params) : errorMessage(err, params);
}
