// "Share with colleagues" (issue #17 part 1): pick users, departments or groups and a share role, and share one file
// or folder (fileSharing). Opened from the files list and from /fileShare (a reshare passes its fileSharingId), so it
// lives in shared/: features do not import each other. The server decides who may share and which roles they may
// hand out; its refusal is shown by code in the user's language.
import { useMemo, useState } from 'react';
import { Form, Modal, Segmented, Select, Spin } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { createFileSharing } from '../api/gen/shares/shares.ts';
import { fileSharingRoleList } from '../api/gen/roles/roles.ts';
import { getDeptTree, pickDeptUsers } from '../api/gen/org/org.ts';
import { searchGroup } from '../api/gen/groups/groups.ts';
import type { DeptTreeNode } from '../api/gen/model/deptTreeNode.ts';
import type { Role } from '../api/gen/model/role.ts';
import type { ShareRecipientKind } from '../api/gen/model/shareRecipientKind.ts';
import type { ShareRoleCode } from '../api/gen/model/shareRoleCode.ts';
import { errorMessage } from './error-message.ts';
import { toastError, toastSuccess } from './notify.ts';

export interface ShareDialogProps {
  /** The item to share; undefined: closed. */
  item: { instanceId: string; instanceName: string } | undefined;
  /** Resharing from inside a share: the share through which the caller reaches the item. */
  fileSharingId?: string;
  onClose: () => void;
}

type Option = { value: string; label: string };

/** A role's name in the user's language. */
export function roleLabel(role: Pick<Role, 'roleName' | 'roleNameEn'>, language: string): string {
  return language.startsWith('zh') ? role.roleName : role.roleNameEn;
}

/** The share roles (fileSharingRoleList kind=groupShare), loaded once per session. */
export function useShareRoles() {
  return useQuery({
    queryKey: ['shares', 'roles'],
    queryFn: async ({ signal }) => (await fileSharingRoleList({ kind: 'groupShare' }, { signal, quiet: true })).data ?? [],
    staleTime: Infinity,
  });
}

function flattenDepts(nodes: readonly DeptTreeNode[], trail: string[] = []): Option[] {
  return nodes.flatMap((n) => [{ value: n.id, label: [...trail, n.name].join(' / ') }, ...flattenDepts(n.children, [...trail, n.name])]);
}

async function candidates(kind: ShareRecipientKind, keyword: string, signal: AbortSignal): Promise<Option[]> {
  if (kind === 'user') {
    const users = (await pickDeptUsers({ ...(keyword ? { keyword } : {}), limit: 50 }, { signal, quiet: true })).data ?? [];
    return users.map((u) => ({ value: u.userId, label: u.realName ? `${u.realName} (${u.userName})` : u.userName }));
  }
  if (kind === 'dept') {
    const all = flattenDepts((await getDeptTree(undefined, { signal, quiet: true })).data ?? []);
    const k = keyword.toLowerCase();
    return k ? all.filter((d) => d.label.toLowerCase().includes(k)) : all;
  }
  const groups = (await searchGroup({ ...(keyword ? { keyword } : {}), pageNo: 1, pageSize: 50 }, { signal, quiet: true })).data?.list ?? [];
  return groups.map((g) => ({ value: g.groupId, label: g.groupName }));
}

export function ShareDialog({ item, fileSharingId, onClose }: ShareDialogProps) {
  const { t, i18n } = useTranslation();
  const [kind, setKind] = useState<ShareRecipientKind>('user');
  const [keyword, setKeyword] = useState('');
  const [chosen, setChosen] = useState<Array<{ kind: ShareRecipientKind; id: string; label: string }>>([]);
  const [role, setRole] = useState<ShareRoleCode | undefined>();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const roles = useShareRoles();
  const found = useQuery({
    queryKey: ['shares', 'candidates', kind, keyword],
    queryFn: ({ signal }) => candidates(kind, keyword, signal),
    enabled: item !== undefined,
  });
  const options = useMemo(() => (found.data ?? []).map((o) => ({ ...o, value: `${kind}:${o.value}` })), [found.data, kind]);

  const close = () => {
    setChosen([]);
    setRole(undefined);
    setProblem(undefined);
    onClose();
  };

  const submit = async () => {
    if (!item) return;
    if (chosen.length === 0) return setProblem(t('shares.noRecipients'));
    if (!role) return setProblem(t('shares.noRole'));
    setBusy(true);
    try {
      await createFileSharing(
        { instanceId: item.instanceId, recipients: chosen.map((c) => ({ kind: c.kind, id: c.id, roleCode: role })), ...(fileSharingId ? { fileSharingId } : {}) },
        { quiet: true },
      );
      toastSuccess(t('shares.shared', { count: chosen.length }));
      close();
    } catch (err) {
      toastError(errorMessage(err, { name: item.instanceName }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={item !== undefined}
      title={t('shares.dialogTitle', { name: item?.instanceName ?? '' })}
      okText={t('shares.ok')}
      cancelText={t('shares.close')}
      onOk={() => void submit()}
      onCancel={close}
      confirmLoading={busy}
      okButtonProps={{ 'data-testid': 'share-dialog-ok' } as never}
      destroyOnHidden
    >
      <Form layout="vertical" data-testid="share-dialog">
        <Form.Item label={t('shares.pickRecipients')} validateStatus={problem ? 'error' : undefined} help={problem}>
          <Segmented
            value={kind}
            onChange={(v) => { setKind(v as ShareRecipientKind); setKeyword(''); }}
            options={(['user', 'dept', 'group'] as const).map((k) => ({ value: k, label: t(`shares.kind.${k}`) }))}
            style={{ marginBottom: 8 }}
            data-testid="share-kind"
          />
          <Select
            mode="multiple"
            showSearch
            filterOption={false}
            onSearch={(v) => setKeyword(v.trim())}
            placeholder={t('shares.searchPlaceholder')}
            notFoundContent={found.isFetching ? <Spin size="small" /> : undefined}
            options={options}
            value={chosen.map((c) => `${c.kind}:${c.id}`)}
            labelInValue={false}
            onChange={(values: string[]) => {
              setProblem(undefined);
              setChosen(values.map((v) => {
                const [k, ...rest] = v.split(':');
                const id = rest.join(':');
                const known = chosen.find((c) => c.kind === k && c.id === id);
                return known ?? { kind: k as ShareRecipientKind, id, label: options.find((o) => o.value === v)?.label ?? id };
              }));
            }}
            optionRender={(o) => <span data-testid={`share-candidate-${String(o.value)}`}>{o.label}</span>}
            tagRender={undefined}
            data-testid="share-recipients"
          />
        </Form.Item>
        <Form.Item label={t('shares.role')}>
          <Select
            value={role}
            onChange={(v: ShareRoleCode) => { setProblem(undefined); setRole(v); }}
            placeholder={t('shares.pickRole')}
            loading={roles.isLoading}
            options={(roles.data ?? []).map((r) => ({ value: r.roleCode, label: roleLabel(r, i18n.language) }))}
            optionRender={(o) => <span data-testid={`share-role-${String(o.value)}`}>{o.label}</span>}
            data-testid="share-role"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
