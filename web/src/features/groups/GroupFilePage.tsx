// /groupFile: the groups the caller belongs to (searchGroup), with search and "new group"; with ?group=<id> the
// generic list screen on that group's space (instanceType 2). The space has no default root for the server (it needs
// the group's folder as parentId), so the group's root, got from addOrUpdateGroupInstance, stands in the URL's
// ?folder= whenever no folder is named. The opened group is remembered (GROUP_ID_KEY): NetDisk then opens here.
import { lazy, Suspense, useEffect, useMemo, useState, type ComponentType } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Empty, Input, List, Result, Space, Spin, Tag, Typography } from 'antd';
import { ArrowLeftOutlined, PlusOutlined, SettingOutlined, TeamOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { addOrUpdateGroupInstance, searchGroup } from '../../api/gen/groups/groups.ts';
import type { Group } from '../../api/gen/model/group.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { GROUP_ID_KEY, useUserInfo } from '../../shared/session.ts';
import { getTransferStore } from '../../shared/transfers/runtime.ts';
import type { TransferStore } from '../../shared/transfers/transfer-store.ts';
import { abilities, formatGb, GROUP_PARAM } from './group-shared.ts';
import { NewGroupDialog } from './NewGroupDialog.tsx';

const MembersDrawer = lazy(() => import('./MembersDrawer.tsx').then((m) => ({ default: m.MembersDrawer })));
const SettingsDialog = lazy(() => import('./SettingsDialog.tsx').then((m) => ({ default: m.SettingsDialog })));
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const groupsKey = (owner: string, keyword: string) => ['groups', 'mine', owner, keyword];

/** The files feature's list screen, handed in by the app (features do not import each other). */
export interface SpaceBrowser {
  Browser: ComponentType<{ libCode: string; instanceType: string; store: TransferStore; rootName?: string }>;
}
/** The URL parameter the list screen reads its folder from (features/files/list-state.ts FOLDER_PARAM). */
const FOLDER_PARAM = 'folder';

export default function GroupFilePage(space: SpaceBrowser) {
  const [search] = useSearchParams();
  const asked = search.get(GROUP_PARAM);
  return asked && ID.test(asked) ? <GroupSpace groupId={asked} space={space} /> : <GroupList />;
}

function GroupList() {
  const { t } = useTranslation();
  const user = useUserInfo();
  const owner = user?.userId ?? 'anonymous';
  const [, setSearch] = useSearchParams();
  const [keyword, setKeyword] = useState('');
  const [creating, setCreating] = useState(false);
  const groups = useQuery({
    queryKey: groupsKey(owner, keyword),
    queryFn: async ({ signal }) => (await searchGroup({ ...(keyword ? { keyword } : {}), pageNo: 1, pageSize: 100 }, { signal, quiet: true })).data,
  });
  const open = (g: Group) => setSearch(new URLSearchParams({ [GROUP_PARAM]: g.groupId }));
  const list = groups.data?.list ?? [];
  return (
    <div data-testid="group-list">
      <Space style={{ marginBottom: 12 }} wrap>
        <Input.Search allowClear placeholder={t('groups.search')} onSearch={(v) => setKeyword(v.trim())} style={{ width: 260 }} data-testid="group-search" />
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} data-testid="group-create">
          {t('groups.new')}
        </Button>
      </Space>
      {groups.isLoading ? (
        <Spin />
      ) : groups.isError ? (
        <Typography.Text type="danger">{errorMessage(groups.error)}</Typography.Text>
      ) : list.length === 0 ? (
        <Empty description={t('groups.none')} data-testid="group-none" />
      ) : (
        <List
          grid={{ gutter: 12, xs: 1, sm: 2, md: 3, lg: 4 }}
          dataSource={list}
          renderItem={(g) => (
            <List.Item>
              <Card hoverable onClick={() => open(g)} data-testid={`group-card-${g.groupName}`} title={<Space><TeamOutlined />{g.groupName}</Space>}>
                {g.description && <Typography.Paragraph ellipsis={{ rows: 2 }}>{g.description}</Typography.Paragraph>}
                <Space direction="vertical" size={2}>
                  <span>{t('groups.memberCount', { count: g.memberCount })}</span>
                  <span>{t('groups.used', { used: formatGb(g.usedSize), total: g.capacity == null ? t('groups.unlimited') : formatGb(g.capacity) })}</span>
                  {g.myRole && <Tag>{t(`groups.role.${g.myRole}`)}</Tag>}
                </Space>
              </Card>
            </List.Item>
          )}
        />
      )}
      <NewGroupDialog open={creating} onClose={() => setCreating(false)} onCreated={(g) => { void groups.refetch(); open(g); }} />
    </div>
  );
}

function GroupSpace({ groupId, space: { Browser } }: { groupId: string; space: SpaceBrowser }) {
  const { t } = useTranslation();
  const user = useUserInfo();
  const owner = user?.userId ?? 'anonymous';
  const store = useMemo(() => getTransferStore(owner), [owner]);
  const queryClient = useQueryClient();
  const [search, setSearch] = useSearchParams();
  const [drawer, setDrawer] = useState(false);
  const [settings, setSettings] = useState(false);
  // The group itself (name, the caller's role) comes from the caller's groups: one they are not in is refused.
  const group = useQuery({
    queryKey: ['groups', 'one', owner, groupId],
    queryFn: async ({ signal }) => {
      const page = (await searchGroup({ groupId, pageNo: 1, pageSize: 1, ...(user?.isAdmin ? { all: true } : {}) }, { signal, quiet: true })).data;
      return page?.list.find((g) => g.groupId === groupId) ?? null;
    },
  });
  const root = useQuery({
    queryKey: ['groups', 'root', owner, groupId],
    queryFn: async ({ signal }) => (await addOrUpdateGroupInstance({ groupId, libCode: 'NetDisk' }, { signal, quiet: true })).data?.instanceId ?? null,
    enabled: group.data != null,
    retry: false,
  });
  const rootId = root.data;
  const folder = search.get(FOLDER_PARAM);
  useEffect(() => {
    if (rootId && !folder)
      setSearch(
        (prev) => {
          const next = new URLSearchParams(prev);
          next.set(FOLDER_PARAM, rootId);
          return next;
        },
        { replace: true },
      );
  }, [rootId, folder, setSearch]);
  useEffect(() => {
    if (group.data) localStorage.setItem(GROUP_ID_KEY, groupId);
  }, [group.data, groupId]);

  const back = () => setSearch(new URLSearchParams());
  const header = (
    <Button icon={<ArrowLeftOutlined />} onClick={back} data-testid="group-back">
      {t('groups.back')}
    </Button>
  );
  if (group.isLoading || (group.data && root.isLoading)) return <Spin />;
  if (group.isError) return <Typography.Text type="danger">{errorMessage(group.error)}</Typography.Text>;
  if (!group.data || root.isError || !rootId) {
    // Forgotten: NetDisk must not keep opening a group the caller left or never had.
    if (localStorage.getItem(GROUP_ID_KEY) === groupId) localStorage.removeItem(GROUP_ID_KEY);
    return (
      <div>
        {header}
        <Result status="403" title={t('groups.refused')} data-testid="group-refused" />
      </div>
    );
  }
  const g = group.data;
  const can = abilities(g, user?.isAdmin === true);
  const changed = () => void queryClient.invalidateQueries({ queryKey: ['groups'] });
  return (
    <div data-testid="group-space">
      <Space style={{ marginBottom: 12 }} wrap>
        {header}
        <Typography.Title level={5} style={{ margin: 0 }} data-testid="group-title">
          {g.groupName}
        </Typography.Title>
        {g.myRole && <Tag>{t(`groups.role.${g.myRole}`)}</Tag>}
        <Button icon={<TeamOutlined />} onClick={() => setDrawer(true)} data-testid="group-members">
          {t('groups.members')}
        </Button>
        {(can.leader || can.member) && (
          <Button icon={<SettingOutlined />} onClick={() => setSettings(true)} data-testid="group-settings">
            {t('groups.settings')}
          </Button>
        )}
      </Space>
      {folder && <Browser key={groupId} libCode="NetDisk" instanceType="2" store={store} rootName={g.groupName} />}
      <Suspense fallback={null}>
        {drawer && <MembersDrawer group={g} canManage={can.leader} canSetRoles={can.administrator} onClose={() => setDrawer(false)} onChanged={changed} />}
        {settings && (
          <SettingsDialog
            group={g}
            can={can}
            onClose={() => setSettings(false)}
            onChanged={changed}
            onGone={() => {
              localStorage.removeItem(GROUP_ID_KEY);
              changed();
              back();
            }}
          />
        )}
      </Suspense>
    </div>
  );
}
