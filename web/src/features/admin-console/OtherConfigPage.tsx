// /otherConfig (issue #18): the typed configuration entries. The server checks each value against its type and
// bounds; this screen offers the matching input (switch, choice, number, text) and shows the server's refusal.
import './strings.ts';
import AdminOnly from './AdminOnly.tsx';
import { useState } from 'react';
import { Alert, Button, Form, Input, InputNumber, Modal, Select, Space, Switch, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { addConfigs, deleteConfigs, getPageSysConfigQueryKey, pageSysConfig, updateConfigs } from '../../api/gen/admin-console/admin-console.ts';
import type { ConfigEntry } from '../../api/gen/model/configEntry.ts';
import type { ConfigType } from '../../api/gen/model/configType.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate } from '../../shared/format.ts';
import { confirmDialog, toastError } from '../../shared/notify.ts';

const TYPES: readonly ConfigType[] = ['string', 'integer', 'boolean', 'enum', 'json'];

interface Editing {
  isNew: boolean;
  builtin: boolean;
  configKey: string;
  configValue: string;
  configType: ConfigType;
  description: string;
  options: string[];
  publicRead: boolean;
  min?: number;
  max?: number;
}

/** The input matching an entry's type. */
export function ValueInput({ e, onChange }: { e: Pick<Editing, 'configType' | 'configValue' | 'options' | 'min' | 'max'>; onChange: (v: string) => void }) {
  const { t } = useTranslation();
  if (e.configType === 'boolean') return <Switch checked={e.configValue === 'true'} onChange={(v) => onChange(String(v))} data-testid="config-value" />;
  if (e.configType === 'enum') {
    return (
      <Select
        value={e.configValue}
        onChange={onChange}
        data-testid="config-value"
        options={e.options.map((o) => ({ value: o, label: t(`adminConsole.enum.language.${o}`, { defaultValue: o }) }))}
      />
    );
  }
  if (e.configType === 'integer') {
    return <InputNumber style={{ width: '100%' }} value={e.configValue === '' ? null : Number(e.configValue)} min={e.min} max={e.max} precision={0} onChange={(v) => onChange(v === null ? '' : String(v))} data-testid="config-value" />;
  }
  return <Input.TextArea autoSize value={e.configValue} onChange={(ev) => onChange(ev.target.value)} data-testid="config-value" />;
}

function OtherConfigScreen() {
  const { t } = useTranslation();
  const [pageNo, setPageNo] = useState(1);
  const [keyword, setKeyword] = useState('');
  const params = { pageNo, pageSize: 20, ...(keyword ? { keyword } : {}) };
  const entries = useQuery({ queryKey: getPageSysConfigQueryKey(params), queryFn: async ({ signal }) => (await pageSysConfig(params, { signal, quiet: true })).data });
  const [editing, setEditing] = useState<Editing | undefined>();
  const describe = (e: ConfigEntry) => (e.builtin ? t(`adminConsole.config.settings.${e.configKey}`, { defaultValue: e.description }) : e.description);

  const save = async () => {
    if (!editing) return;
    try {
      if (editing.isNew) {
        await addConfigs({
          configKey: editing.configKey, configValue: editing.configValue, configType: editing.configType, description: editing.description,
          publicRead: editing.publicRead, ...(editing.configType === 'enum' ? { options: editing.options } : {}),
        }, { quiet: true });
      } else {
        await updateConfigs({ configKey: editing.configKey, configValue: editing.configValue, description: editing.description }, { quiet: true });
      }
      setEditing(undefined);
      void entries.refetch();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };
  const remove = (e: ConfigEntry) =>
    confirmDialog({
      title: t('adminConsole.deleteConfirm'),
      okText: t('files.ok'),
      cancelText: t('files.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await deleteConfigs({ configKeys: [e.configKey] }, { quiet: true });
          void entries.refetch();
        } catch (err) {
          toastError(errorMessage(err));
        }
      },
    });
  const shown = (e: ConfigEntry) => (e.configType === 'boolean' ? t(e.configValue === 'true' ? 'adminConsole.yes' : 'adminConsole.no') : e.configValue);

  return (
    <div data-testid="other-config-page">
      <Typography.Title level={4}>{t('routes.otherConfig')}</Typography.Title>
      <Alert type="info" showIcon title={t('adminConsole.config.hint')} style={{ marginBottom: 12 }} />
      <Space style={{ marginBottom: 12 }}>
        <Input.Search allowClear placeholder={t('adminConsole.config.search')} onSearch={(v) => { setPageNo(1); setKeyword(v.trim()); }} data-testid="config-search" />
        <Button type="primary" data-testid="config-add" onClick={() => setEditing({ isNew: true, builtin: false, configKey: '', configValue: '', configType: 'string', description: '', options: [], publicRead: false })}>
          {t('adminConsole.add')}
        </Button>
      </Space>
      <Table<ConfigEntry>
        rowKey="configKey"
        size="middle"
        loading={entries.isLoading}
        dataSource={entries.data?.list ?? []}
        pagination={{ current: pageNo, pageSize: 20, total: entries.data?.total ?? 0, onChange: setPageNo, showSizeChanger: false }}
        columns={[
          { title: t('adminConsole.config.key'), dataIndex: 'configKey', render: (k: string, e) => <Space><code>{k}</code>{e.builtin ? <Tag>{t('adminConsole.config.builtin')}</Tag> : <Tag color="blue">{t('adminConsole.config.custom')}</Tag>}</Space> },
          { title: t('adminConsole.config.value'), dataIndex: 'configValue', render: (_: string, e) => <span data-testid={`config-value-${e.configKey}`}>{shown(e)}</span> },
          { title: t('adminConsole.config.type'), dataIndex: 'configType', width: 100, render: (v: string) => t(`adminConsole.enum.configType.${v}`) },
          { title: t('adminConsole.config.description'), key: 'description', render: (_: unknown, e) => describe(e) },
          { title: t('adminConsole.config.updated'), dataIndex: 'updateTime', width: 170, render: (v: number) => (v ? formatDate(v) : '—') },
          {
            title: t('files.actions'), key: 'actions', width: 140,
            render: (_: unknown, e) => (
              <Space>
                <Button type="link" size="small" data-testid={`config-edit-${e.configKey}`} onClick={() => setEditing({ isNew: false, ...e, description: e.description, options: e.options ?? [] })}>{t('adminConsole.edit')}</Button>
                {!e.builtin && <Button type="link" size="small" danger data-testid={`config-delete-${e.configKey}`} onClick={() => remove(e)}>{t('adminConsole.delete')}</Button>}
              </Space>
            ),
          },
        ]}
      />
      <Modal open={editing !== undefined} title={editing?.isNew ? t('adminConsole.add') : editing?.configKey} onOk={() => void save()} onCancel={() => setEditing(undefined)} okText={t('adminConsole.save')} cancelText={t('files.cancel')} destroyOnHidden>
        {editing && (
          <Form layout="vertical">
            {editing.isNew && (
              <>
                <Form.Item label={t('adminConsole.config.key')} required>
                  <Input value={editing.configKey} onChange={(ev) => setEditing({ ...editing, configKey: ev.target.value })} data-testid="config-key" />
                </Form.Item>
                <Form.Item label={t('adminConsole.config.type')}>
                  <Select value={editing.configType} onChange={(v) => setEditing({ ...editing, configType: v, configValue: v === 'boolean' ? 'false' : '' })} options={TYPES.map((v) => ({ value: v, label: t(`adminConsole.enum.configType.${v}`) }))} />
                </Form.Item>
                {editing.configType === 'enum' && (
                  <Form.Item label={t('adminConsole.config.options')}>
                    <Input value={editing.options.join(',')} onChange={(ev) => setEditing({ ...editing, options: ev.target.value.split(',').map((s) => s.trim()).filter(Boolean) })} />
                  </Form.Item>
                )}
                <Form.Item>
                  <Space><Switch checked={editing.publicRead} onChange={(v) => setEditing({ ...editing, publicRead: v })} />{t('adminConsole.config.publicRead')}</Space>
                </Form.Item>
              </>
            )}
            <Form.Item label={t('adminConsole.config.value')}>
              <ValueInput e={editing} onChange={(v) => setEditing({ ...editing, configValue: v })} />
            </Form.Item>
            {!editing.builtin && (
              <Form.Item label={t('adminConsole.config.description')}>
                <Input value={editing.description} onChange={(ev) => setEditing({ ...editing, description: ev.target.value })} />
              </Form.Item>
            )}
          </Form>
        )}
      </Modal>
    </div>
  );
}

export default function OtherConfigPage() {
  return (
    <AdminOnly path="/otherConfig">
      <OtherConfigScreen />
    </AdminOnly>
  );
}
