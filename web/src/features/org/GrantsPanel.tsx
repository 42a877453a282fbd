// Grants on a space or folder: pick a department space (or your personal space), walk into a folder, see the grants
// on it, grant a role to users or a department, revoke, and ask the server why a user holds what they hold there.
import { useState } from 'react';
import { App, Breadcrumb, Button, Card, Col, Form, Radio, Row, Select, Space, Table, Tag, TreeSelect, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { FolderFilled } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { listInstances } from '../../api/gen/files/files.ts';
import { getAllBusinessLibs, getGetAllBusinessLibsQueryKey } from '../../api/gen/business-libs/business-libs.ts';
import { getDeptTree, listReachableDepts } from '../../api/gen/org/org.ts';
import { delGroupRoleUser, explainAccess, pageGroupRoleGroupList, pageGroupRoleList, setGroupRoleGroup, setGroupRoleUser } from '../../api/gen/roles/roles.ts';
import type { Grant } from '../../api/gen/model/grant.ts';
import type { Role } from '../../api/gen/model/role.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { AccessExplanationView } from '../../shared/AccessExplanationView.tsx';
import { toastError, toastSuccess } from '../../shared/notify.ts';
import { deptOptions } from './org-shared.ts';
import { UserPicker } from './UserPicker.tsx';
import { useRoleName } from './role-name.ts';

const PERSONAL = '__personal__';
/** A business library's space: its one root, shared by everyone the grants let in (business-libs-repo.ts). */
const LIB = 'lib:';

interface GrantValues {
  roleId?: string;
  subjectKind: 'user' | 'dept';
  userIds?: string[];
  deptIds?: string[];
}

export function GrantsPanel({ roles }: { roles: Role[] }) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const roleName = useRoleName();
  const queryClient = useQueryClient();
  const [space, setSpace] = useState<string>();
  const [folder, setFolder] = useState<string>();
  const [form] = Form.useForm<GrantValues>();
  const subjectKind = Form.useWatch('subjectKind', form) ?? 'user';
  const [busy, setBusy] = useState(false);
  const [explainFor, setExplainFor] = useState<string>();

  const depts = useQuery({ queryKey: ['org', 'reachable'], queryFn: async ({ signal }) => (await listReachableDepts({ signal, quiet: true })).data ?? [] });
  const tree = useQuery({ queryKey: ['org', 'tree'], queryFn: async ({ signal }) => (await getDeptTree(undefined, { signal, quiet: true })).data ?? [] });
  const libs = useQuery({ queryKey: getGetAllBusinessLibsQueryKey(), queryFn: async ({ signal }) => (await getAllBusinessLibs({ signal, quiet: true })).data ?? [] });
  const spaceId = space ?? depts.data?.[0]?.id;
  const libCode = spaceId?.startsWith(LIB) ? spaceId.slice(LIB.length) : undefined;
  const listing = useQuery({
    queryKey: ['roles', 'folders', spaceId, folder],
    enabled: spaceId !== undefined,
    queryFn: async ({ signal }) =>
      (
        await listInstances(
          {
            libCode: libCode ?? 'NetDisk',
            instanceType: spaceId === PERSONAL ? '1' : '3',
            ...(spaceId !== PERSONAL && !libCode && !folder ? { deptId: spaceId } : {}),
            ...(folder ? { parentId: folder } : {}),
            fileFilter: 1,
            pageSize: 100,
          },
          { signal, quiet: true },
        )
      ).data,
  });
  const instanceId = listing.data?.parentId;
  const grants = useQuery({
    queryKey: ['roles', 'grants', instanceId],
    enabled: !!instanceId,
    queryFn: async ({ signal }) => {
      const params = { instanceId: instanceId!, pageNo: 1, pageSize: 200 };
      const [users, deptGrants] = await Promise.all([pageGroupRoleList(params, { signal, quiet: true }), pageGroupRoleGroupList(params, { signal, quiet: true })]);
      return [...(users.data?.list ?? []), ...(deptGrants.data?.list ?? [])];
    },
  });
  const explained = useQuery({
    queryKey: ['roles', 'explain', instanceId, explainFor],
    enabled: !!instanceId && !!explainFor,
    queryFn: async ({ signal }) => (await explainAccess({ instanceId: instanceId!, userId: explainFor! }, { signal, quiet: true })).data,
  });
  const reload = () => void queryClient.invalidateQueries({ queryKey: ['roles'] });

  const grant = async (v: GrantValues) => {
    if (!instanceId || !v.roleId) return;
    setBusy(true);
    try {
      if (v.subjectKind === 'dept') await setGroupRoleGroup({ instanceId, roleId: v.roleId, deptIds: v.deptIds ?? [] }, { quiet: true });
      else await setGroupRoleUser({ instanceId, roleId: v.roleId, userIds: v.userIds ?? [] }, { quiet: true });
      toastSuccess(t('org.grant.granted'));
      form.resetFields(['userIds', 'deptIds']);
      reload();
    } catch (err) {
      toastError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const revoke = (g: Grant) =>
    modal.confirm({
      title: t('common.prompt'),
      content: t('org.grant.confirmRevoke', { role: roleName(g), subject: g.subjectName }),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      okButtonProps: { danger: true, 'data-testid': 'confirm-ok' } as never,
      onOk: async () => {
        try {
          await delGroupRoleUser({ instanceId: g.instanceId, grantIds: [g.grantId] }, { quiet: true });
          toastSuccess(t('org.grant.revoked'));
          reload();
        } catch (err) {
          toastError(errorMessage(err));
        }
      },
    });

  const crumbs = listing.data?.breadcrumbs ?? [];
  const spaceOptions = [
    ...(depts.data ?? []).map((d) => ({ value: d.id, label: t('org.grant.deptSpace', { name: d.pathNames.slice(1).join(' / ') || t('org.dept.company') }) })),
    { value: PERSONAL, label: t('org.grant.personalSpace') },
    ...(libs.data ?? []).filter((l) => l.custom === 1).map((l) => ({ value: `${LIB}${l.libCode}`, label: t('bizlibs.grantSpace', { name: l.libName, code: l.libCode }) })),
  ];
  // The space's root is named after the space (a department, or the caller's personal files).
  const rootLabel = spaceOptions.find((o) => o.value === spaceId)?.label ?? t('files.rootFolder');
  const columns: ColumnsType<Grant> = [
    { title: t('org.grant.subject'), key: 'subject', render: (_: unknown, g) => <SubjectLabel grant={g} /> },
    { title: t('org.grant.role'), key: 'role', render: (_: unknown, g) => <span data-testid={`grant-row-${g.subjectName}`}>{roleName(g)}</span> },
    {
      title: t('files.actions'),
      key: 'actions',
      width: 180,
      render: (_: unknown, g) => (
        <Space size={0}>
          {g.subjectKind === 'user' && (
            <Button type="link" size="small" onClick={() => setExplainFor(g.subjectId)}>
              {t('org.access.explain')}
            </Button>
          )}
          <Button type="link" size="small" danger onClick={() => revoke(g)} data-testid={`grant-revoke-${g.subjectName}`}>
            {t('org.grant.revoke')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <Row gutter={16}>
      <Col span={10}>
        <Card size="small" title={t('org.grant.target')}>
          <Select
            style={{ width: '100%', marginBottom: 12 }}
            value={spaceId}
            onChange={(v: string) => {
              setSpace(v);
              setFolder(undefined);
            }}
            options={spaceOptions}
            loading={depts.isLoading}
            data-testid="grant-space"
            aria-label={t('org.grant.target')}
          />
          <Breadcrumb
            style={{ marginBottom: 8 }}
            items={crumbs.map((c, i) => ({
              key: c.instanceId,
              title: <a onClick={() => setFolder(i === 0 ? undefined : c.instanceId)}>{i === 0 ? rootLabel : c.instanceName}</a>,
            }))}
          />
          {listing.isError ? (
            <Typography.Text type="danger">{errorMessage(listing.error)}</Typography.Text>
          ) : (
            <Table
              size="small"
              rowKey="instanceId"
              showHeader={false}
              loading={listing.isFetching}
              pagination={false}
              dataSource={(listing.data?.list ?? []).filter((r) => r.classifierId === 'Folder')}
              locale={{ emptyText: t('org.grant.noSubfolders') }}
              columns={[
                {
                  key: 'name',
                  render: (_: unknown, r) => (
                    <a onClick={() => setFolder(r.instanceId)} data-testid={`grant-folder-${r.instanceName}`}>
                      <FolderFilled style={{ color: '#e8a33d', marginRight: 6 }} />
                      {r.instanceName}
                    </a>
                  ),
                },
              ]}
            />
          )}
        </Card>
      </Col>
      <Col span={14}>
        <Card size="small" title={t('org.grant.on', { name: crumbs.length > 1 ? crumbs[crumbs.length - 1]!.instanceName : rootLabel })} data-testid="grants-card">
          <Form form={form} layout="inline" initialValues={{ subjectKind: 'user' }} onFinish={(v) => void grant(v)} style={{ marginBottom: 12, rowGap: 8 }} data-testid="grant-form">
            <Form.Item name="roleId" rules={[{ required: true, message: t('org.validation.roleRequired') }]}>
              <Select
                style={{ width: 160 }}
                placeholder={t('org.grant.role')}
                options={roles.map((r) => ({ value: r.roleId, label: roleName(r) }))}
                data-testid="grant-role"
                showSearch
                optionFilterProp="label"
              />
            </Form.Item>
            <Form.Item name="subjectKind">
              <Radio.Group>
                <Radio value="user">{t('org.grant.kind.user')}</Radio>
                <Radio value="dept">{t('org.grant.kind.dept')}</Radio>
              </Radio.Group>
            </Form.Item>
            {subjectKind === 'user' ? (
              <Form.Item name="userIds" rules={[{ required: true, message: t('org.validation.subjectRequired') }]} style={{ minWidth: 220 }}>
                <UserPicker mode="multiple" testId="grant-users" />
              </Form.Item>
            ) : (
              <Form.Item name="deptIds" rules={[{ required: true, message: t('org.validation.subjectRequired') }]} style={{ minWidth: 220 }}>
                <TreeSelect multiple treeData={deptOptions(tree.data, undefined, t('org.dept.company'))} treeDefaultExpandAll showSearch treeNodeFilterProp="title" data-testid="grant-depts" />
              </Form.Item>
            )}
            <Form.Item>
              <Button type="primary" htmlType="submit" loading={busy} disabled={!instanceId} data-testid="grant-submit">
                {t('org.grant.grant')}
              </Button>
            </Form.Item>
          </Form>
          {grants.isError ? (
            <Typography.Text type="danger">{errorMessage(grants.error)}</Typography.Text>
          ) : (
            <Table<Grant> rowKey="grantId" size="small" loading={grants.isFetching} columns={columns} dataSource={grants.data ?? []} pagination={false} locale={{ emptyText: t('org.grant.none') }} data-testid="grants-table" />
          )}
          <div style={{ marginTop: 16 }}>
            <Space style={{ marginBottom: 8 }}>
              <Typography.Text strong>{t('org.access.explain')}</Typography.Text>
              <div style={{ width: 240 }}>
                <UserPicker value={explainFor} onChange={(v) => setExplainFor(v as string)} testId="explain-user" />
              </div>
            </Space>
            {explainFor &&
              (explained.isError ? (
                <Typography.Text type="danger">{errorMessage(explained.error)}</Typography.Text>
              ) : explained.data ? (
                <AccessExplanationView explanation={explained.data} />
              ) : null)}
          </div>
        </Card>
      </Col>
    </Row>
  );
}

export function SubjectLabel({ grant }: { grant: Grant }) {
  const { t } = useTranslation();
  return (
    <Space size={4}>
      <Tag color={grant.subjectKind === 'dept' ? 'geekblue' : 'default'}>{t(`org.grant.kind.${grant.subjectKind}`)}</Tag>
      <span>{grant.subjectKind === 'user' && grant.subjectRealName ? `${grant.subjectRealName} (${grant.subjectName})` : grant.subjectName}</span>
    </Space>
  );
}
