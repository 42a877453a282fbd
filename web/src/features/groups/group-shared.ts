// What the groups screens share: the name rule of the contract (GroupName), capacity in GB, role options, and
// messages by code said for a group (NAME_EXISTS is a taken group name here, not a file).
import type { Rule } from 'antd/es/form';
import type { TFunction } from 'i18next';
import { i18n } from '../../shared/i18n.ts';
import { HcsError } from '../../api/hcs-error.ts';
import { errorMessage, type MessageParams } from '../../shared/error-message.ts';
import type { Group } from '../../api/gen/model/group.ts';
import type { GroupRoleCode } from '../../api/gen/model/groupRoleCode.ts';

export const GROUP_PARAM = 'group';
export const GROUP_NAME_MAX = 64;
export const DESCRIPTION_MAX = 500;
const GiB = 1024 ** 3;
/** GroupCapacity's bounds (1 MiB to 1 PiB), in GB as typed. */
export const CAPACITY_MIN_GB = 0.001;
export const CAPACITY_MAX_GB = 1024 * 1024;

/** GroupName: not blank, no leading or trailing whitespace, none of \ [ ] / : * ? " < > | (it heads remote paths). */
export function groupNameProblem(name: string): 'required' | 'invalid' | 'tooLong' | undefined {
  if (name.trim() === '') return 'required';
  if ([...name].length > GROUP_NAME_MAX) return 'tooLong';
  if (name !== name.trim() || /[\\[\]/:*?"<>|]/.test(name)) return 'invalid';
  return undefined;
}

export function groupRules(t: TFunction) {
  const name: Rule[] = [
    {
      validator: async (_r, v: string | undefined) => {
        const problem = groupNameProblem(v ?? '');
        if (problem === 'required') throw new Error(t('groups.validation.nameRequired'));
        if (problem === 'tooLong') throw new Error(t('groups.validation.nameTooLong'));
        if (problem === 'invalid') throw new Error(t('groups.validation.nameInvalid'));
      },
    },
  ];
  const description: Rule[] = [{ max: DESCRIPTION_MAX, message: t('groups.validation.descriptionTooLong') }];
  const capacity: Rule[] = [
    {
      validator: async (_r, v: number | null | undefined) => {
        if (v === null || v === undefined) return;
        if (!(v >= CAPACITY_MIN_GB && v <= CAPACITY_MAX_GB)) throw new Error(t('groups.validation.capacityRange'));
      },
    },
  ];
  return { name, description, capacity };
}

/** A capacity typed in GB as the contract's bytes; empty: none sent (the server's default). */
export const gbToBytes = (gb: number | null | undefined): number | undefined => (gb === null || gb === undefined ? undefined : Math.round(gb * GiB));
export const bytesToGb = (bytes: number | null | undefined): number | null => (bytes === null || bytes === undefined ? null : Math.round((bytes / GiB) * 1000) / 1000);

export function formatGb(bytes: number): string {
  const gb = bytes / GiB;
  return gb >= 1 ? `${Math.round(gb * 100) / 100} GB` : `${Math.round((bytes / 1024 ** 2) * 100) / 100} MB`;
}

export function groupErrorMessage(err: unknown, params: MessageParams = {}): string {
  const key = err instanceof HcsError ? `groups.codes.${err.code}` : '';
  return key && i18n.exists(key) ? i18n.t(key, params) : errorMessage(err, params);
}

export const ROLE_CODES: readonly GroupRoleCode[] = ['group_administrator', 'group_leader', 'file_leader', 'group_ordinary_members', 'groupdefaultrole'];

/** What the caller's group role lets the screen offer; the server decides anyway (a refusal shows by its code). */
export function abilities(group: Pick<Group, 'myRole' | 'myLevel'>, isAdmin: boolean) {
  const role = group.myLevel === 1 ? group.myRole : null;
  const administrator = isAdmin || role === 'group_administrator';
  const leader = administrator || role === 'group_leader';
  return { administrator, leader, member: group.myRole != null };
}
