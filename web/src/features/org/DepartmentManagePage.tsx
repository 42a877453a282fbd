// /departmentManage: the department tree (create, change, move, delete; capacity and managers of the chosen one) and
// its accounts (search, state and label filters, paging; create, edit, move, disable/enable, expire, reset password,
// delete), the deleted accounts (restore, purge) and the CSV import. Every call is the contract's; failures show
// by their error code in the user's language.
import { useMemo, useState } from 'react';
import { App, Button, Card, Col, Descriptions, Dropdown, Empty, Input, Progress, Row, Select, Space, Spin, Switch, Table, Tabs, Tag, Tree, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { ApartmentOutlined, DeleteOutlined, EditOutlined, ImportOutlined, MoreOutlined, PlusOutlined, SwapOutlined, UserAddOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { deleteUsers, getDeptInfo, getDeptTree, listDeletedUsers, listDeptUsers, restoreUsers, saveUser, setUsersEnabled } from '../../api/gen/org/org.ts';
import type { DeptTreeNode } from '../../api/gen/model/deptTreeNode.ts';
import type { UserAdmin } from '../../api/gen/model/userAdmin.ts';
import type { UserBatchResponse } from '../../api/gen/model/userBatchResponse.ts';
import type { ListDeptUsersState } from '../../api/gen/model/listDeptUsersState.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate, formatSize } from '../../shared/format.ts';
import { toastError, toastSuccess, toastWarning } from '../../shared/notify.ts';
import { DeptDialog, type DeptDialogMode } from './DeptDialog.tsx';
import { UserDialog, type UserDialogState } from './UserDialog.tsx';
import { DeleteDeptDialog, MoveUsersDialog, PurgeDialog, ResetPasswordDialog } from './ActionDialogs.tsx';
import { ImportDialog } from './ImportDialog.tsx';
import { findDept, orgCodeMessage } from './org-shared.ts';
import { scopeTree } from './manager-scope.ts';
import { useUserInfo } from '../../shared/session.ts';
import { findRoute, mayEnter } from '../../shared/routes.ts';
import { codeMessage } from '../../shared/error-message.ts';

const PAGE_SIZES = [10, 20, 50, 100];

function toTreeData(nodes: readonly DeptTreeNode[], rootName: string): { key: string; title: string; children: ReturnType<typeof toTreeData> }[] {
  return nodes.map((n) => ({ key: n.id, title: n.parentId === null ? rootName : n.name, children: toTreeData(n.children, rootName) }));
}

export default function DepartmentManagePage() {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const queryClient = useQueryClient();
  const tree = useQuery({ queryKey: ['org', 'tree'], queryFn: async ({ signal }) => (await getDeptTree(undefined, { signal, quiet: true })).data ?? [] });
  const me = useUserInfo();
  const isAdmin = me?.isAdmin === true;
  // A department manager's tree is rooted at the departments they manage: the server answers nothing above them.
  const nodes = useMemo(() => scopeTree(tree.data ?? [], me), [tree.data, me]);
  const [picked, setPicked] = useState<string>();
  // Collapsed rather than expanded keys: a department created or moved in shows at once under an open parent.
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const allKeys = useMemo(() => {
    const out: string[] = [];
    const walk = (ns: readonly DeptTreeNode[]) => {
      for (const n of ns) {
        out.push(n.id);
        walk(n.children);
      }
    };
    walk(nodes);
    return out;
  }, [nodes]);
  const deptId = picked ?? nodes[0]?.id;
  const node = findDept(nodes, deptId);
  const info = useQuery({
    queryKey: ['org', 'dept', deptId],
    queryFn: async ({ signal }) => (await getDeptInfo({ id: deptId! }, { signal, quiet: true })).data,
    enabled: !!deptId,
  });

  const [tab, setTab] = useState<'users' | 'deleted'>('users');
  const [keyword, setKeyword] = useState('');
  const [state, setState] = useState<ListDeptUsersState>('all');
  const [label, setLabel] = useState<string>();
  const [includeSub, setIncludeSub] = useState(true);
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [selected, setSelected] = useState<UserAdmin[]>([]);
  const listKey = { deptId, keyword, state, label, includeSub, ...page };
  const users = useQuery({
    queryKey: ['org', 'users', listKey],
    queryFn: async ({ signal }) =>
      (
        await listDeptUsers(
          { ...(deptId ? { deptId } : {}), includeSub: includeSub ? 1 : 0, state, ...(label ? { label } : {}), ...(keyword ? { keyword } : {}), ...page },
          { signal, quiet: true },
        )
      ).data,
    enabled: !!deptId && tab === 'users',
    placeholderData: keepPreviousData,
  });
  const deleted = useQuery({
    queryKey: ['org', 'deleted', deptId, keyword, page],
    queryFn: async ({ signal }) => (await listDeletedUsers({ ...(deptId ? { deptId } : {}), ...(keyword ? { keyword } : {}), ...page }, { signal, quiet: true })).data,
    enabled: !!deptId && tab === 'deleted',
    placeholderData: keepPreviousData,
  });

  const [deptDialog, setDeptDialog] = useState<DeptDialogMode>();
  const [deleteDept, setDeleteDept] = useState<{ id: string; name: string; memberCount: number }>();
  const [userDialog, setUserDialog] = useState<UserDialogState>();
  const [resetFor, setResetFor] = useState<UserAdmin>();
  const [moving, setMoving] = useState<UserAdmin[]>();
  const [purging, setPurging] = useState<UserAdmin>();
  const [importing, setImporting] = useState(false);

  const reload = () => {
    setSelected([]);
    void queryClient.invalidateQueries({ queryKey: ['org'] });
  };
  /** A batch answers done and failed per account: say what was refused and why, by code. */
  const report = (res: UserBatchResponse, doneKey: string) => {
    const failed = res.data?.failed ?? [];
    const done = res.data?.done.length ?? 0;
    if (done > 0) toastSuccess(t(doneKey, { count: done }));
    if (failed.length > 0) {
      const reasons = [...new Set(failed.map((f) => orgCodeMessage('user', f.code)))].join(t('files.reasonSeparator'));
      toastWarning(t('org.user.batchFailed', { count: failed.length, reason: reasons }));
    }
    reload();
  };
  const run = async (p: Promise<UserBatchResponse>, doneKey: string) => {
    try {
      report(await p, doneKey);
    } catch (err) {
      toastError(errorMessage(err));
    }
  };
  const confirm = (content: string, onOk: () => Promise<void>, danger = false) =>
    modal.confirm({ title: t('common.prompt'), content, okText: t('common.confirm'), cancelText: t('common.cancel'), okButtonProps: { danger, 'data-testid': 'confirm-ok' } as never, onOk });

  const act = (action: string, targets: UserAdmin[]) => {
    if (targets.length === 0) {
      toastWarning(t('org.user.selectFirst'));
      return;
    }
    const userIds = targets.map((u) => u.userId);
    const names = targets.map((u) => u.userName).join(', ');
    switch (action) {
      case 'edit':
        setUserDialog({ mode: 'edit', user: targets[0]! });
        return;
      case 'move':
        setMoving(targets);
        return;
      case 'reset':
        setResetFor(targets[0]);
        return;
      case 'disable':
        confirm(t('org.user.confirmDisable', { names }), () => run(setUsersEnabled({ userIds, enabled: false }, { quiet: true }), 'org.user.disabled'));
        return;
      case 'enable':
        void run(setUsersEnabled({ userIds, enabled: true }, { quiet: true }), 'org.user.enabledDone');
        return;
      case 'expire':
        confirm(t('org.user.confirmExpire', { names }), async () => {
          try {
            for (const u of targets) await saveUser({ userId: u.userId, userExpiredTime: Date.now() }, { quiet: true });
            toastSuccess(t('org.user.expired', { count: targets.length }));
          } catch (err) {
            toastError(errorMessage(err));
          }
          reload();
        });
        return;
      case 'delete':
        confirm(t('org.user.confirmDelete', { names }), () => run(deleteUsers({ userIds }, { quiet: true }), 'org.user.deleted'), true);
        return;
      case 'restore':
        void run(restoreUsers({ userIds }, { quiet: true }), 'org.user.restored');
        return;
      case 'purge':
        setPurging(targets[0]);
        return;
    }
  };

  const stateTag = (u: UserAdmin) => {
    const color = { active: 'green', disabled: 'default', expired: 'orange', deleted: 'red' }[u.state];
    return <Tag color={color}>{t(`org.state.${u.state}`)}</Tag>;
  };
  const baseColumns: ColumnsType<UserAdmin> = [
    {
      title: t('org.user.userName'),
      dataIndex: 'userName',
      render: (v: string, u) => (
        <Space size={4}>
          <span data-testid={`user-row-${v}`}>{v}</span>
          {u.isAdmin && <Tag color="red">{t('org.user.admin')}</Tag>}
          {u.managedDeptIds.length > 0 && <Tag color="blue">{t('org.user.manager')}</Tag>}
        </Space>
      ),
    },
    { title: t('org.user.realName'), dataIndex: 'realName' },
    { title: t('org.user.dept'), key: 'dept', render: (_: unknown, u) => u.deptPathNames.slice(1).join(' / ') || t('org.dept.company') },
    { title: t('org.user.state'), key: 'state', render: (_: unknown, u) => stateTag(u) },
    { title: t('org.user.labels'), key: 'labels', render: (_: unknown, u) => u.labels.map((l) => <Tag key={l}>{l}</Tag>) },
    { title: t('org.user.used'), key: 'used', render: (_: unknown, u) => `${formatSize(u.usedBytes)} / ${u.quotaBytes === null ? t('org.unlimited') : formatSize(u.quotaBytes)}` },
  ];
  const userColumns: ColumnsType<UserAdmin> = [
    ...baseColumns,
    { title: t('org.user.expires'), key: 'expires', render: (_: unknown, u) => (u.userExpiredTime === 1 ? t('org.user.never') : formatDate(u.userExpiredTime)) },
    {
      title: t('files.actions'),
      key: 'actions',
      fixed: 'right',
      width: 140,
      render: (_: unknown, u) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => act('edit', [u])} data-testid={`user-edit-${u.userName}`}>
            {t('org.edit')}
          </Button>
          <Dropdown
            trigger={['click']}
            menu={{
              items: [
                { key: 'move', label: t('org.user.move') },
                u.userIsEnabled === 1 ? { key: 'disable', label: t('org.user.disable') } : { key: 'enable', label: t('org.user.enable') },
                { key: 'expire', label: t('org.user.expire') },
                { key: 'reset', label: t('org.user.resetPassword') },
                { key: 'delete', label: t('org.delete'), danger: true },
              ],
              onClick: ({ key }) => act(key, [u]),
            }}
          >
            <Button type="link" size="small" icon={<MoreOutlined />} aria-label={t('files.more')} data-testid={`user-more-${u.userName}`} />
          </Dropdown>
        </Space>
      ),
    },
  ];
  const deletedColumns: ColumnsType<UserAdmin> = [
    ...baseColumns,
    { title: t('org.user.deleteTime'), key: 'deleteTime', render: (_: unknown, u) => formatDate(u.deleteTime ?? undefined) },
    {
      title: t('files.actions'),
      key: 'actions',
      render: (_: unknown, u) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => act('restore', [u])} data-testid={`user-restore-${u.userName}`}>
            {t('org.user.restore')}
          </Button>
          {isAdmin && (
            <Button type="link" size="small" danger onClick={() => act('purge', [u])} data-testid={`user-purge-${u.userName}`}>
              {t('org.user.purge')}
            </Button>
          )}
        </Space>
      ),
    },
  ];

  const d = info.data;
  const isRoot = node?.parentId === null;
  const capacity = d ? (
    d.quotaBytes === null ? (
      <span data-testid="dept-capacity">{t('org.dept.usedUnlimited', { used: formatSize(d.usedBytes) })}</span>
    ) : (
      <div data-testid="dept-capacity">
        <span>{`${formatSize(d.usedBytes)} / ${formatSize(d.quotaBytes)}`}</span>
        <Progress percent={d.quotaBytes > 0 ? Math.min(100, Math.round((d.usedBytes / d.quotaBytes) * 1000) / 10) : 100} size="small" />
      </div>
    )
  ) : null;

  const listData = tab === 'users' ? users : deleted;
  const paging = {
    current: page.pageNo,
    pageSize: page.pageSize,
    total: listData.data?.total ?? 0,
    showSizeChanger: true,
    pageSizeOptions: PAGE_SIZES.map(String),
    showTotal: (total: number) => t('files.total', { total, count: total }),
    onChange: (pageNo: number, pageSize: number) => setPage(pageSize !== page.pageSize ? { pageNo: 1, pageSize } : { pageNo, pageSize }),
  };

  // Reachable by address too: someone who neither administers nor manages is told so instead of a screen of errors.
  if (!mayEnter(findRoute('/departmentManage')!, me)) {
    return <Empty data-testid="department-manage-forbidden" description={codeMessage('FORBIDDEN')} />;
  }

  return (
    <div data-testid="department-manage">
      <Typography.Title level={4} style={{ marginTop: 0 }}>
        {t('routes.departmentManage')}
      </Typography.Title>
      <Row gutter={16} wrap={false}>
        <Col flex="300px">
          <Card
            size="small"
            title={t('org.dept.tree')}
            extra={
              <Button size="small" icon={<PlusOutlined />} disabled={!deptId} onClick={() => deptId && setDeptDialog({ mode: 'create', parentId: deptId })} data-testid="dept-create">
                {t('org.dept.new')}
              </Button>
            }
          >
            {tree.isLoading ? (
              <Spin />
            ) : tree.isError ? (
              <Typography.Text type="danger">{errorMessage(tree.error)}</Typography.Text>
            ) : (
              <Tree
                blockNode
                expandedKeys={allKeys.filter((k) => !collapsed.has(k))}
                onExpand={(_keys, { node: n, expanded }) =>
                  setCollapsed((c) => {
                    const next = new Set(c);
                    if (expanded) next.delete(String(n.key));
                    else next.add(String(n.key));
                    return next;
                  })
                }
                showIcon
                icon={<ApartmentOutlined />}
                selectedKeys={deptId ? [deptId] : []}
                treeData={toTreeData(nodes, t('org.dept.company'))}
                titleRender={(n) => <span data-testid={`dept-node-${String(n.title)}`}>{String(n.title)}</span>}
                onSelect={(keys) => {
                  if (keys[0] === undefined) return;
                  setPicked(String(keys[0]));
                  setPage((p) => ({ ...p, pageNo: 1 }));
                  setSelected([]);
                }}
                data-testid="dept-tree"
              />
            )}
          </Card>
        </Col>
        <Col flex="auto" style={{ minWidth: 0 }}>
          {!deptId ? (
            <Empty />
          ) : (
            <Space direction="vertical" style={{ width: '100%' }} size={16}>
              <Card
                size="small"
                title={<span data-testid="dept-title">{isRoot ? t('org.dept.company') : node?.name}</span>}
                extra={
                  <Space>
                    <Button size="small" icon={<EditOutlined />} disabled={!d} onClick={() => d && setDeptDialog({ mode: 'edit', dept: d })} data-testid="dept-edit">
                      {t('org.edit')}
                    </Button>
                    <Button size="small" icon={<SwapOutlined />} disabled={!d || isRoot} onClick={() => d && setDeptDialog({ mode: 'move', dept: d })} data-testid="dept-move">
                      {t('org.dept.moveShort')}
                    </Button>
                    <Button
                      size="small"
                      danger
                      icon={<DeleteOutlined />}
                      disabled={!d || isRoot}
                      onClick={() => d && setDeleteDept({ id: d.id, name: d.name, memberCount: d.memberCount })}
                      data-testid="dept-delete"
                    >
                      {t('org.delete')}
                    </Button>
                  </Space>
                }
              >
                {info.isError ? (
                  <Typography.Text type="danger">{errorMessage(info.error)}</Typography.Text>
                ) : (
                  <Descriptions size="small" column={3}>
                    <Descriptions.Item label={t('org.dept.capacity')}>{capacity}</Descriptions.Item>
                    <Descriptions.Item label={t('org.dept.members')}>{d ? t('org.dept.memberCounts', { own: d.memberCount, all: d.allMemberCount }) : ''}</Descriptions.Item>
                    <Descriptions.Item label={t('org.dept.managers')}>{d?.managers.map((m) => m.realName || m.userName).join(', ') || t('org.none')}</Descriptions.Item>
                  </Descriptions>
                )}
              </Card>
              <Card size="small">
                <Tabs
                  activeKey={tab}
                  onChange={(k) => {
                    setTab(k as 'users' | 'deleted');
                    setPage((p) => ({ ...p, pageNo: 1 }));
                    setSelected([]);
                  }}
                  items={[
                    { key: 'users', label: <span data-testid="tab-users">{t('org.user.tab')}</span> },
                    { key: 'deleted', label: <span data-testid="tab-deleted">{t('org.user.deletedTab')}</span> },
                  ]}
                />
                <Space wrap style={{ marginBottom: 12 }}>
                  <Input.Search
                    allowClear
                    placeholder={t('org.user.search')}
                    onSearch={(v) => {
                      setKeyword(v.trim());
                      setPage((p) => ({ ...p, pageNo: 1 }));
                    }}
                    style={{ width: 220 }}
                    data-testid="user-search"
                  />
                  {tab === 'users' && (
                    <>
                      <Select<ListDeptUsersState>
                        value={state}
                        style={{ width: 120 }}
                        onChange={(v) => {
                          setState(v);
                          setPage((p) => ({ ...p, pageNo: 1 }));
                        }}
                        options={(['all', 'active', 'disabled', 'expired'] as const).map((s) => ({ value: s, label: t(`org.state.${s}`) }))}
                        aria-label={t('org.user.state')}
                      />
                      <Input.Search
                        allowClear
                        placeholder={t('org.user.labelFilter')}
                        onSearch={(v) => {
                          setLabel(v.trim() || undefined);
                          setPage((p) => ({ ...p, pageNo: 1 }));
                        }}
                        style={{ width: 160 }}
                        data-testid="label-filter"
                      />
                      <Space size={4}>
                        <Switch size="small" checked={includeSub} onChange={setIncludeSub} />
                        <span>{t('org.user.includeSub')}</span>
                      </Space>
                      <Button type="primary" icon={<UserAddOutlined />} onClick={() => setUserDialog({ mode: 'create', deptId })} data-testid="user-create">
                        {t('org.user.new')}
                      </Button>
                      <Button icon={<ImportOutlined />} onClick={() => setImporting(true)} data-testid="user-import">
                        {t('org.import.button')}
                      </Button>
                      <Button onClick={() => act('move', selected)}>{t('org.user.move')}</Button>
                      <Button onClick={() => act('disable', selected)}>{t('org.user.disable')}</Button>
                      <Button onClick={() => act('enable', selected)}>{t('org.user.enable')}</Button>
                      <Button danger onClick={() => act('delete', selected)}>
                        {t('org.delete')}
                      </Button>
                    </>
                  )}
                  {tab === 'deleted' && <Button onClick={() => act('restore', selected)}>{t('org.user.restore')}</Button>}
                </Space>
                {listData.isError && !listData.data ? (
                  <Typography.Text type="danger" data-testid="users-error">
                    {errorMessage(listData.error)}
                  </Typography.Text>
                ) : (
                  <Table<UserAdmin>
                    rowKey="userId"
                    size="small"
                    loading={listData.isFetching}
                    columns={tab === 'users' ? userColumns : deletedColumns}
                    dataSource={listData.data?.list ?? []}
                    pagination={paging}
                    scroll={{ x: 900 }}
                    rowSelection={{ selectedRowKeys: selected.map((s) => s.userId), onChange: (_k, rows) => setSelected(rows) }}
                    locale={{ emptyText: <Empty description={t('org.user.none')} /> }}
                    data-testid={tab === 'users' ? 'users-table' : 'deleted-table'}
                  />
                )}
              </Card>
            </Space>
          )}
        </Col>
      </Row>

      <DeptDialog
        state={deptDialog}
        tree={nodes}
        onClose={() => setDeptDialog(undefined)}
        onSaved={(id) => {
          if (deptDialog?.mode === 'create' && id) setPicked(id);
          reload();
        }}
      />
      <DeleteDeptDialog
        dept={deleteDept}
        tree={nodes}
        onClose={() => setDeleteDept(undefined)}
        onDone={() => {
          setPicked(node?.parentId ?? undefined);
          toastSuccess(t('org.dept.deletedDone'));
          reload();
        }}
      />
      <UserDialog state={userDialog} tree={nodes} onClose={() => setUserDialog(undefined)} onSaved={reload} />
      <ResetPasswordDialog user={resetFor} onClose={() => setResetFor(undefined)} onDone={() => toastSuccess(t('org.user.resetDone'))} />
      <MoveUsersDialog users={moving} tree={nodes} onClose={() => setMoving(undefined)} onDone={(res) => report(res, 'org.user.moved')} />
      <PurgeDialog
        user={purging}
        onClose={() => setPurging(undefined)}
        onDone={() => {
          toastSuccess(t('org.user.purged'));
          reload();
        }}
      />
      <ImportDialog open={importing} deptId={deptId ?? ''} deptName={isRoot ? t('org.dept.company') : (node?.name ?? '')} onClose={() => setImporting(false)} onImported={reload} />
    </div>
  );
}
