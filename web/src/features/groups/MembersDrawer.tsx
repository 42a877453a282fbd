// A group's members (searchGroupUser): their group roles, and for the group's administrators and leaders adding
// (users and departments found by searchAll, sent through addUserForLarge), removing and, for administrators,
// changing roles. Users can also be given named folders only (second-level members, addSecondGroupUser); their
// folders show as tags that take a folder back (deleteSecondAuth). The server checks every change; a refusal shows by
// its code.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Drawer, Input, Popconfirm, Radio, Select, Space, Table, Tag, TreeSelect, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { CloseOutlined } from '@ant-design/icons';
import { addSecondGroupUser, addUserForLarge, deleteGroupUser, deleteSecondAuth, modGroupUser, searchAll, searchGroupUser } from '../../api/gen/groups/groups.ts';
import { getTreeFolderData } from '../../api/gen/files/files.ts';
import type { Group } from '../../api/gen/model/group.ts';
import type { GroupMember } from '../../api/gen/model/groupMember.ts';
import type { GroupRoleCode } from '../../api/gen/model/groupRoleCode.ts';
import { groupErrorMessage, ROLE_CODES } from './group-shared.ts';

interface Props {
  group: Group;
  canManage: boolean;
  canSetRoles: boolean;
  onClose: () => void;
  onChanged: () => void;
}

export function MembersDrawer({ group, canManage, canSetRoles, onClose, onChanged }: Props) {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const [failed, setFailed] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const members = useQuery({
    queryKey: ['groups', 'members', group.groupId, keyword],
    queryFn: async ({ signal }) =>
      (await searchGroupUser({ groupId: group.groupId, ...(keyword ? { keyword } : {}), pageNo: 1, pageSize: 100 }, { signal, quiet: true })).data,
  });
  const run = async (what: () => Promise<unknown>, name?: string) => {
    setFailed(undefined);
    setNotice(undefined);
    try {
      await what();
      await members.refetch();
      onChanged();
    } catch (err) {
      setFailed(groupErrorMessage(err, { name }));
    }
  };
  const roleLabel = (code: string) => t(`groups.role.${code}`);
  const who = (m: GroupMember) => (m.userRealName && m.userRealName !== m.userName ? `${m.userRealName} (${m.userName})` : m.userName);

  return (
    <Drawer open title={t('groups.member.drawer')} width={720} onClose={onClose} data-testid="group-members-drawer">
      {canManage && <AddMembers group={group} canAddAdmins={canSetRoles} onAdded={(added, skipped) => { setNotice(t('groups.member.added', { added, skipped })); void members.refetch(); onChanged(); }} onFailed={setFailed} />}
      {notice && <Alert type="success" showIcon message={notice} style={{ marginBottom: 12 }} data-testid="group-members-notice" />}
      {failed && <Alert type="error" showIcon message={failed} style={{ marginBottom: 12 }} data-testid="group-members-error" />}
      <Input.Search allowClear placeholder={t('groups.member.searchHint')} onSearch={(v) => setKeyword(v.trim())} style={{ marginBottom: 12, width: 260 }} />
      <Table<GroupMember>
        rowKey="userId"
        size="small"
        loading={members.isLoading}
        dataSource={members.data?.list ?? []}
        pagination={false}
        onRow={(m) => ({ 'data-testid': `group-member-${m.userName}` }) as never}
        columns={[
          { title: t('groups.member.userCol'), render: (_v, m) => who(m) },
          { title: t('groups.member.deptCol'), render: (_v, m) => (m.deptIsRoot ? t('org.dept.company') : (m.deptName ?? '')) },
          { title: t('groups.member.levelCol'), render: (_v, m) => <Tag>{t(`groups.level.${m.level}`)}</Tag> },
          {
            title: t('groups.member.foldersCol'),
            render: (_v, m) =>
              m.folders.map((f) =>
                canManage ? (
                  // The tag's close mark asks first; the tag itself stays until the server has taken the folder back.
                  <Tag
                    key={f.instanceId}
                    closable
                    onClose={(e) => e.preventDefault()}
                    closeIcon={
                      <Popconfirm
                        title={t('groups.member.folderRemoveConfirm', { folder: f.instanceName, name: who(m) })}
                        okText={t('groups.confirm')}
                        cancelText={t('groups.cancel')}
                        onConfirm={() => run(() => deleteSecondAuth({ groupId: group.groupId, userId: m.userId, instanceIds: [f.instanceId] }, { quiet: true }), who(m))}
                      >
                        <CloseOutlined aria-label={t('groups.member.remove')} data-testid={`group-member-folder-remove-${m.userName}-${f.instanceName}`} />
                      </Popconfirm>
                    }
                    data-testid={`group-member-folder-${m.userName}-${f.instanceName}`}
                  >
                    {f.instanceName}
                  </Tag>
                ) : (
                  <Tag key={f.instanceId}>{f.instanceName}</Tag>
                ),
              ),
          },
          {
            title: t('groups.member.roleCol'),
            render: (_v, m) =>
              canSetRoles && m.level === 1 ? (
                <Select<GroupRoleCode>
                  value={m.roleCode}
                  style={{ width: 160 }}
                  options={ROLE_CODES.map((r) => ({ value: r, label: roleLabel(r) }))}
                  onChange={(roleCode) => void run(() => modGroupUser({ groupId: group.groupId, userId: m.userId, roleCode }, { quiet: true }), who(m))}
                  data-testid={`group-member-role-${m.userName}`}
                />
              ) : (
                roleLabel(m.roleCode)
              ),
          },
          ...(canManage
            ? [
                {
                  key: 'remove',
                  render: (_v: unknown, m: GroupMember) => (
                    <Popconfirm
                      title={t('groups.member.removeConfirm', { name: who(m) })}
                      okText={t('groups.confirm')}
                      cancelText={t('groups.cancel')}
                      onConfirm={() => run(() => deleteGroupUser({ groupId: group.groupId, userIds: [m.userId] }, { quiet: true }), who(m))}
                    >
                      <Button size="small" danger data-testid={`group-member-remove-${m.userName}`}>
                        {t('groups.member.remove')}
                      </Button>
                    </Popconfirm>
                  ),
                },
              ]
            : []),
        ]}
      />
    </Drawer>
  );
}

/** Candidates by name (users and departments); a department adds every user in it and below it. */
function AddMembers({ group, canAddAdmins, onAdded, onFailed }: { group: Group; canAddAdmins: boolean; onAdded: (added: number, skipped: number) => void; onFailed: (m: string) => void }) {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const [picked, setPicked] = useState<string[]>([]);
  const [roleCode, setRoleCode] = useState<GroupRoleCode>('groupdefaultrole');
  const [scope, setScope] = useState<'group' | 'folders'>('group');
  const [folders, setFolders] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const found = useQuery({
    queryKey: ['groups', 'candidates', group.groupId, keyword],
    queryFn: async ({ signal }) => (await searchAll({ groupId: group.groupId, keyword, limit: 20 }, { signal, quiet: true })).data,
    enabled: keyword !== '',
  });
  const options = [
    ...(found.data?.users ?? []).map((u) => ({
      value: `u:${u.userId}`,
      label: `${u.userRealName && u.userRealName !== u.userName ? `${u.userRealName} (${u.userName})` : u.userName}${u.member ? ` · ${t('groups.member.already')}` : ''}`,
      disabled: u.member,
    })),
    ...(found.data?.depts ?? []).map((d) => ({ value: `d:${d.deptId}`, disabled: scope === 'folders', label: `${t('groups.member.deptCol')}：${d.deptIsRoot ? t('org.dept.company') : d.deptName} · ${t('groups.member.deptUsers', { count: d.userCount })}` })),
  ];
  const add = async () => {
    setBusy(true);
    try {
      const userIds = picked.filter((p) => p.startsWith('u:')).map((p) => p.slice(2));
      const deptIds = picked.filter((p) => p.startsWith('d:')).map((p) => p.slice(2));
      if (scope === 'folders') {
        await addSecondGroupUser({ groupId: group.groupId, userIds, instanceIds: folders, roleCode }, { quiet: true });
        setPicked([]);
        setFolders([]);
        onAdded(userIds.length, 0);
        return;
      }
      const res = await addUserForLarge({ groupId: group.groupId, userIds, deptIds, roleCode }, { quiet: true });
      setPicked([]);
      onAdded(res.data?.added ?? 0, res.data?.skipped ?? 0);
    } catch (err) {
      onFailed(groupErrorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div style={{ marginBottom: 12 }}>
      <Typography.Text strong>{t('groups.member.add')}</Typography.Text>
      <div style={{ marginTop: 8 }}>
        <Radio.Group
          value={scope}
          onChange={(e) => {
            setScope(e.target.value as 'group' | 'folders');
            // Departments join the whole group; second-level members administer nothing.
            setPicked((p) => p.filter((v) => v.startsWith('u:')));
            if (roleCode === 'group_administrator') setRoleCode('groupdefaultrole');
          }}
          aria-label={t('groups.member.scope')}
          data-testid="group-add-scope"
        >
          <Radio value="group">{t('groups.member.scopeGroup')}</Radio>
          <Radio value="folders">{t('groups.member.scopeFolders')}</Radio>
        </Radio.Group>
      </div>
      {scope === 'folders' && (
        <Typography.Paragraph type="secondary" style={{ margin: '4px 0 0' }}>
          {t('groups.member.secondOnlyUsers')}
        </Typography.Paragraph>
      )}
      <Space wrap style={{ display: 'flex', marginTop: 8 }}>
        <Select
          mode="multiple"
          showSearch
          filterOption={false}
          value={picked}
          onChange={setPicked}
          onSearch={(v) => setKeyword(v.trim())}
          options={options}
          loading={found.isFetching}
          placeholder={t('groups.member.searchHint')}
          notFoundContent={null}
          style={{ minWidth: 320 }}
          data-testid="group-add-picker"
        />
        <Select<GroupRoleCode>
          value={roleCode}
          onChange={setRoleCode}
          style={{ width: 160 }}
          options={ROLE_CODES.filter((r) => (canAddAdmins && scope === 'group') || r !== 'group_administrator').map((r) => ({ value: r, label: t(`groups.role.${r}`) }))}
          aria-label={t('groups.member.roleFor')}
          data-testid="group-add-role"
        />
        {scope === 'folders' && <GroupFolderPicker group={group} value={folders} onChange={setFolders} />}
        <Button type="primary" disabled={picked.length === 0 || (scope === 'folders' && folders.length === 0)} loading={busy} onClick={() => void add()} data-testid="group-add-submit">
          {t('groups.member.addUsers')}
        </Button>
      </Space>
    </div>
  );
}

interface FolderNode {
  id: string;
  pId: string;
  value: string;
  title: string;
  isLeaf: boolean;
}

/** Folders of the group's space (not its root), loaded a level at a time as they are opened. */
function GroupFolderPicker({ group, value, onChange }: { group: Group; value: string[]; onChange: (ids: string[]) => void }) {
  const { t } = useTranslation();
  const [nodes, setNodes] = useState<FolderNode[]>([]);
  const load = async (parent: string) => {
    const res = await getTreeFolderData({ id: parent }, { quiet: true });
    const fresh = (res.data ?? []).map((f) => ({ id: f.instanceId, pId: parent, value: f.instanceId, title: f.instanceName, isLeaf: f.isLeaf }));
    setNodes((prev) => [...prev.filter((n) => !fresh.some((f) => f.id === n.id)), ...fresh]);
  };
  const top = useQuery({ queryKey: ['groups', 'folders', group.groupId], queryFn: () => load(group.rootId).then(() => true) });
  return (
    <TreeSelect
      multiple
      treeDataSimpleMode={{ id: 'id', pId: 'pId' }}
      treeData={nodes.map((n) => (n.pId === group.rootId ? { ...n, pId: undefined } : n))}
      loadData={(node) => load(String(node.value))}
      value={value}
      onChange={(v: string[]) => onChange(v)}
      loading={top.isLoading}
      placeholder={t('groups.member.foldersHint')}
      style={{ minWidth: 240 }}
      data-testid="group-add-folders"
    />
  );
}

