// /ipWhiteList and /accessManage (issue #18): the IP white list, with the caller's own standing on top so an
// administrator sees where they stand before changing anything. The server refuses (IP_SELF_LOCKOUT) a list that
// would shut the caller out; the message comes from the error code.
import './strings.ts';
import AdminOnly from './AdminOnly.tsx';
import { useState } from 'react';
import { Alert, Button, Form, Input, Modal, Select, Space, Switch, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { addOrUpdateIpRule, deleteIpRules, getListIpRulesQueryKey, listIpRules } from '../../api/gen/admin-console/admin-console.ts';
import { getGetSsoAccessQueryKey, getSsoAccess } from '../../api/gen/session/session.ts';
import type { IpRule } from '../../api/gen/model/ipRule.ts';
import type { IpScope } from '../../api/gen/model/ipScope.ts';
import type { IpTargetType } from '../../api/gen/model/ipTargetType.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate } from '../../shared/format.ts';
import { confirmDialog, toastError } from '../../shared/notify.ts';

const TARGETS: readonly IpTargetType[] = ['all', 'role', 'dept', 'user'];
const SCOPES: readonly IpScope[] = ['drive', 'console'];
const ROLES = ['administrator', 'manager', 'user'] as const;

interface Editing {
  id?: string;
  ipValue: string;
  targetType: IpTargetType;
  targetId: string;
  scope: IpScope;
  enabled: boolean;
  remark: string;
}

function IpWhiteListScreen() {
  const { t } = useTranslation();
  const [pageNo, setPageNo] = useState(1);
  const params = { pageNo, pageSize: 20 };
  const rules = useQuery({ queryKey: getListIpRulesQueryKey(params), queryFn: async ({ signal }) => (await listIpRules(params, { signal, quiet: true })).data });
  const access = useQuery({ queryKey: getGetSsoAccessQueryKey(), queryFn: async ({ signal }) => (await getSsoAccess({ signal, quiet: true })).data });
  const [editing, setEditing] = useState<Editing | undefined>();
  const refresh = () => {
    void rules.refetch();
    void access.refetch();
  };

  const save = async () => {
    if (!editing) return;
    try {
      await addOrUpdateIpRule({ ...editing, ipValue: editing.ipValue.trim(), targetId: editing.targetType === 'all' ? '' : editing.targetId.trim() }, { quiet: true });
      setEditing(undefined);
      refresh();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };
  const remove = (r: IpRule) =>
    confirmDialog({
      title: t('adminConsole.deleteConfirm'),
      okText: t('files.ok'),
      cancelText: t('files.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await deleteIpRules({ ids: [r.id] }, { quiet: true });
          refresh();
        } catch (err) {
          toastError(errorMessage(err));
        }
      },
    });
  const targetOf = (r: IpRule) =>
    r.targetType === 'all' ? t('adminConsole.enum.ipTargetType.all')
      : r.targetType === 'role' ? t(`adminConsole.enum.role.${r.targetId}`)
        : `${t(`adminConsole.enum.ipTargetType.${r.targetType}`)}: ${r.targetName || r.targetId}`;
  const a = access.data;

  return (
    <div data-testid="ip-whitelist-page">
      <Typography.Title level={4}>{t('routes.ipWhiteList')}</Typography.Title>
      {a && (
        <Alert
          style={{ marginBottom: 12 }}
          type={!a.enforced ? 'warning' : a.allowed && a.consoleAllowed ? 'success' : 'error'}
          showIcon
          data-testid="ip-standing"
          title={t('adminConsole.ip.yourIp', { ip: a.ip })}
          description={!a.enforced ? t('adminConsole.ip.off') : !a.allowed ? t('adminConsole.ip.denied') : !a.consoleAllowed ? t('adminConsole.ip.consoleDenied') : t('adminConsole.ip.allowed')}
        />
      )}
      <Typography.Paragraph type="secondary">{t('adminConsole.ip.rules')}</Typography.Paragraph>
      <Space style={{ marginBottom: 12 }}>
        <Button type="primary" data-testid="ip-add" onClick={() => setEditing({ ipValue: '', targetType: 'all', targetId: '', scope: 'drive', enabled: true, remark: '' })}>{t('adminConsole.add')}</Button>
        <Button onClick={refresh}>{t('adminConsole.refresh')}</Button>
      </Space>
      <Table<IpRule>
        rowKey="id"
        size="middle"
        loading={rules.isLoading}
        dataSource={rules.data?.list ?? []}
        locale={{ emptyText: t('adminConsole.ip.empty') }}
        pagination={{ current: pageNo, pageSize: 20, total: rules.data?.total ?? 0, onChange: setPageNo, showSizeChanger: false }}
        columns={[
          { title: t('adminConsole.ip.value'), dataIndex: 'ipValue', render: (v: string, r) => <code data-testid={`ip-row-${r.id}`}>{v}</code> },
          { title: t('adminConsole.ip.kind'), dataIndex: 'kind', width: 110, render: (v: string) => t(`adminConsole.enum.kind.${v}`) },
          { title: t('adminConsole.ip.target'), key: 'target', render: (_: unknown, r) => targetOf(r) },
          { title: t('adminConsole.ip.scope'), dataIndex: 'scope', width: 140, render: (v: string) => t(`adminConsole.enum.ipScope.${v}`) },
          { title: t('adminConsole.ip.enabled'), dataIndex: 'enabled', width: 90, render: (v: boolean) => (v ? <Tag color="green">{t('adminConsole.yes')}</Tag> : <Tag>{t('adminConsole.no')}</Tag>) },
          { title: t('adminConsole.ip.remark'), dataIndex: 'remark' },
          { title: t('adminConsole.config.updated'), dataIndex: 'updateTime', width: 170, render: (v: number) => formatDate(v) },
          {
            title: t('files.actions'), key: 'actions', width: 140,
            render: (_: unknown, r) => (
              <Space>
                <Button type="link" size="small" onClick={() => setEditing({ id: r.id, ipValue: r.ipValue, targetType: r.targetType, targetId: r.targetId, scope: r.scope, enabled: r.enabled, remark: r.remark })}>{t('adminConsole.edit')}</Button>
                <Button type="link" size="small" danger data-testid={`ip-delete-${r.id}`} onClick={() => remove(r)}>{t('adminConsole.delete')}</Button>
              </Space>
            ),
          },
        ]}
      />
      <Modal open={editing !== undefined} title={editing?.id ? t('adminConsole.edit') : t('adminConsole.add')} onOk={() => void save()} onCancel={() => setEditing(undefined)} okText={t('adminConsole.save')} cancelText={t('files.cancel')} destroyOnHidden>
        {editing && (
          <Form layout="vertical">
            <Form.Item label={t('adminConsole.ip.value')} extra={t('adminConsole.ip.valueHint')} required>
              <Input value={editing.ipValue} onChange={(e) => setEditing({ ...editing, ipValue: e.target.value })} data-testid="ip-value" />
            </Form.Item>
            <Form.Item label={t('adminConsole.ip.target')}>
              <Select value={editing.targetType} onChange={(v) => setEditing({ ...editing, targetType: v, targetId: v === 'role' ? 'user' : '' })} options={TARGETS.map((v) => ({ value: v, label: t(`adminConsole.enum.ipTargetType.${v}`) }))} data-testid="ip-target" />
            </Form.Item>
            {editing.targetType === 'role' && (
              <Form.Item label={t('adminConsole.ip.targetId')}>
                <Select value={editing.targetId} onChange={(v) => setEditing({ ...editing, targetId: v })} options={ROLES.map((v) => ({ value: v, label: t(`adminConsole.enum.role.${v}`) }))} />
              </Form.Item>
            )}
            {(editing.targetType === 'dept' || editing.targetType === 'user') && (
              <Form.Item label={t('adminConsole.ip.targetId')} required>
                <Input value={editing.targetId} onChange={(e) => setEditing({ ...editing, targetId: e.target.value })} />
              </Form.Item>
            )}
            <Form.Item label={t('adminConsole.ip.scope')}>
              <Select value={editing.scope} onChange={(v) => setEditing({ ...editing, scope: v })} options={SCOPES.map((v) => ({ value: v, label: t(`adminConsole.enum.ipScope.${v}`) }))} />
            </Form.Item>
            <Form.Item label={t('adminConsole.ip.enabled')}>
              <Switch checked={editing.enabled} onChange={(v) => setEditing({ ...editing, enabled: v })} />
            </Form.Item>
            <Form.Item label={t('adminConsole.ip.remark')}>
              <Input value={editing.remark} maxLength={200} onChange={(e) => setEditing({ ...editing, remark: e.target.value })} />
            </Form.Item>
          </Form>
        )}
      </Modal>
    </div>
  );
}

export default function IpWhiteListPage() {
  return (
    <AdminOnly path="/ipWhiteList">
      <IpWhiteListScreen />
    </AdminOnly>
  );
}
