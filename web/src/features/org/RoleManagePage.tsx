// /roleManage: the role catalogue with each role's authorities as checkboxes (builtin roles read-only, custom roles
// editable and deletable), who holds each role, and the grants on a space or folder: grant a role to a user or a
// department, revoke a grant.
import { useState } from 'react';
import { App, Button, Card, Checkbox, Drawer, Space, Table, Tabs, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { PlusOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { deleteRoleInfo, getAllRoleInfo, pageGroupRoleGroupList, pageGroupRoleList } from '../../api/gen/roles/roles.ts';
import type { Role } from '../../api/gen/model/role.ts';
import type { RoleKind } from '../../api/gen/model/roleKind.ts';
import type { Grant } from '../../api/gen/model/grant.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate } from '../../shared/format.ts';
import { toastError, toastSuccess } from '../../shared/notify.ts';
import { PERMISSIONS, RoleDialog, type RoleDialogState } from './RoleDialog.tsx';
import { GrantsPanel, SubjectLabel } from './GrantsPanel.tsx';
import { useRoleName } from './role-name.ts';

export default function RoleManagePage() {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const roleName = useRoleName();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<RoleKind>('file');
  const roles = useQuery({ queryKey: ['roles', 'all'], queryFn: async ({ signal }) => (await getAllRoleInfo(undefined, { signal, quiet: true })).data ?? [] });
  const [dialog, setDialog] = useState<RoleDialogState>();
  const [members, setMembers] = useState<Role>();
  const reload = () => void queryClient.invalidateQueries({ queryKey: ['roles'] });

  const remove = (r: Role) =>
    modal.confirm({
      title: t('common.prompt'),
      content: t('org.role.confirmDelete', { name: roleName(r) }),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      okButtonProps: { danger: true, 'data-testid': 'confirm-ok' } as never,
      onOk: async () => {
        try {
          await deleteRoleInfo({ roleId: r.roleId }, { quiet: true });
          toastSuccess(t('org.role.deleted'));
          reload();
        } catch (err) {
          toastError(errorMessage(err, { name: roleName(r) }));
        }
      },
    });

  const columns: ColumnsType<Role> = [
    {
      title: t('org.role.name'),
      key: 'name',
      width: 200,
      render: (_: unknown, r) => (
        <Space direction="vertical" size={0}>
          <span data-testid={`role-row-${r.roleCode}`}>{roleName(r)}</span>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {r.roleCode}
          </Typography.Text>
        </Space>
      ),
    },
    {
      title: t('org.role.type'),
      key: 'type',
      width: 110,
      render: (_: unknown, r) => (
        <Space size={4} wrap>
          {r.builtin ? <Tag>{t('org.role.builtin')}</Tag> : <Tag color="blue">{t('org.role.custom')}</Tag>}
          {r.deny && <Tag color="red">{t('org.role.denyTag')}</Tag>}
        </Space>
      ),
    },
    {
      title: t('org.role.authorities'),
      key: 'authorities',
      // Read-only here: a custom role changes through its dialog, a builtin one never.
      render: (_: unknown, r) => (
        <Checkbox.Group value={r.authorities} disabled options={PERMISSIONS.map((p) => ({ value: p, label: t(`org.auth.${p}`) }))} data-testid={`role-auths-${r.roleCode}`} />
      ),
    },
    { title: t('org.role.grantCount'), dataIndex: 'grantCount', width: 90 },
    {
      title: t('files.actions'),
      key: 'actions',
      width: 170,
      render: (_: unknown, r) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => setMembers(r)} data-testid={`role-members-${r.roleCode}`}>
            {t('org.role.members')}
          </Button>
          {!r.builtin && (
            <>
              <Button type="link" size="small" onClick={() => setDialog({ mode: 'edit', role: r })} data-testid={`role-edit-${r.roleCode}`}>
                {t('org.edit')}
              </Button>
              <Button type="link" size="small" danger onClick={() => remove(r)} data-testid={`role-delete-${r.roleCode}`}>
                {t('org.delete')}
              </Button>
            </>
          )}
        </Space>
      ),
    },
  ];

  return (
    <div data-testid="role-manage">
      <Typography.Title level={4} style={{ marginTop: 0 }}>
        {t('routes.roleManage')}
      </Typography.Title>
      <Tabs
        items={[
          {
            key: 'roles',
            label: <span data-testid="tab-roles">{t('org.role.tab')}</span>,
            children: (
              <Card size="small">
                <Space style={{ marginBottom: 12 }} wrap>
                  <Tabs
                    activeKey={kind}
                    onChange={(k) => setKind(k as RoleKind)}
                    items={(['file', 'group', 'groupShare'] as const).map((k) => ({ key: k, label: t(`org.role.kinds.${k}`) }))}
                  />
                  <Button type="primary" icon={<PlusOutlined />} onClick={() => setDialog({ mode: 'create' })} data-testid="role-create">
                    {t('org.role.create')}
                  </Button>
                </Space>
                {roles.isError ? (
                  <Typography.Text type="danger">{errorMessage(roles.error)}</Typography.Text>
                ) : (
                  <Table<Role>
                    rowKey="roleId"
                    size="small"
                    loading={roles.isFetching}
                    columns={columns}
                    dataSource={(roles.data ?? []).filter((r) => r.kind === kind)}
                    pagination={{ pageSize: 20, hideOnSinglePage: true }}
                    scroll={{ x: 1000 }}
                    data-testid="roles-table"
                  />
                )}
              </Card>
            ),
          },
          {
            key: 'grants',
            label: <span data-testid="tab-grants">{t('org.grant.tab')}</span>,
            children: <GrantsPanel roles={(roles.data ?? []).filter((r) => r.kind === 'file')} />,
          },
        ]}
      />
      <RoleDialog state={dialog} onClose={() => setDialog(undefined)} onSaved={reload} />
      <RoleMembers role={members} onClose={() => setMembers(undefined)} />
    </div>
  );
}

/** Who holds a role, on which item (administrators list the grants of a role across every item). */
function RoleMembers({ role, onClose }: { role: Role | undefined; onClose: () => void }) {
  const { t } = useTranslation();
  const roleName = useRoleName();
  const q = useQuery({
    queryKey: ['roles', 'members', role?.roleId],
    enabled: role !== undefined,
    queryFn: async ({ signal }) => {
      const params = { roleId: role!.roleId, pageNo: 1, pageSize: 100 };
      const [users, depts] = await Promise.all([pageGroupRoleList(params, { signal, quiet: true }), pageGroupRoleGroupList(params, { signal, quiet: true })]);
      return [...(users.data?.list ?? []), ...(depts.data?.list ?? [])];
    },
  });
  const columns: ColumnsType<Grant> = [
    { title: t('org.grant.subject'), key: 'subject', render: (_: unknown, g) => <SubjectLabel grant={g} /> },
    { title: t('org.grant.on'), dataIndex: 'instanceName' },
    { title: t('files.createTime'), dataIndex: 'createTime', render: (v: number) => formatDate(v) },
  ];
  return (
    <Drawer open={role !== undefined} onClose={onClose} title={role ? t('org.role.membersOf', { name: roleName(role) }) : ''} size="large" destroyOnHidden>
      {q.isError ? (
        <Typography.Text type="danger">{errorMessage(q.error)}</Typography.Text>
      ) : (
        <Table<Grant> rowKey="grantId" size="small" loading={q.isFetching} columns={columns} dataSource={q.data ?? []} pagination={{ pageSize: 20, hideOnSinglePage: true }} data-testid="role-members" />
      )}
    </Drawer>
  );
}
