// /dlpManage (issue #17 part 4, system configuration): the administrators' DLP rules checked before every external
// share. The server validates each value against its kind; this screen only helps write it (a size in MB).
import { useState } from 'react';
import { Button, Form, Input, InputNumber, Modal, Select, Space, Switch, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { deleteDlpRules, getPageDlpRulesQueryKey, pageDlpRules, saveDlpRule } from '../../api/gen/dlp/dlp.ts';
import type { DlpRule } from '../../api/gen/model/dlpRule.ts';
import type { DlpRuleKind } from '../../api/gen/model/dlpRuleKind.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate, formatSize } from '../../shared/format.ts';
import { confirmDialog, toastError } from '../../shared/notify.ts';

const KINDS: readonly DlpRuleKind[] = ['extension', 'maxSize', 'label', 'keyword'];
const MB = 1024 * 1024;

interface Editing {
  ruleId?: string;
  kind: DlpRuleKind;
  value: string;
  sizeMb?: number;
  enabled: boolean;
  remark: string;
}

export default function DlpRulesPage() {
  const { t } = useTranslation();
  const [pageNo, setPageNo] = useState(1);
  const params = { pageNo, pageSize: 20 };
  const rules = useQuery({ queryKey: getPageDlpRulesQueryKey(params), queryFn: async ({ signal }) => (await pageDlpRules(params, { signal, quiet: true })).data });
  const [editing, setEditing] = useState<Editing | undefined>();

  const valueOf = (r: DlpRule) => (r.kind === 'maxSize' ? formatSize(Number(r.value)) : r.value);
  const save = async () => {
    if (!editing) return;
    const value = editing.kind === 'maxSize' ? String(Math.round((editing.sizeMb ?? 0) * MB)) : editing.value;
    try {
      await saveDlpRule({ ...(editing.ruleId ? { ruleId: editing.ruleId } : {}), kind: editing.kind, value, enabled: editing.enabled, remark: editing.remark }, { quiet: true });
      setEditing(undefined);
      void rules.refetch();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };
  const remove = (r: DlpRule) =>
    confirmDialog({
      title: t('dlp.rules.deleteConfirm'),
      okText: t('files.ok'),
      cancelText: t('files.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await deleteDlpRules({ ruleIds: [r.ruleId] }, { quiet: true });
          void rules.refetch();
        } catch (err) {
          toastError(errorMessage(err));
        }
      },
    });

  return (
    <div data-testid="dlp-rules-page">
      <Typography.Title level={4}>{t('routes.dlpManage')}</Typography.Title>
      <Typography.Paragraph type="secondary">{t('dlp.rules.intro')}</Typography.Paragraph>
      <Button type="primary" style={{ marginBottom: 12 }} onClick={() => setEditing({ kind: 'extension', value: '', enabled: true, remark: '' })} data-testid="dlp-rule-add">
        {t('dlp.rules.add')}
      </Button>
      <Table<DlpRule>
        rowKey="ruleId"
        size="middle"
        loading={rules.isLoading}
        dataSource={rules.data?.list ?? []}
        pagination={{ current: pageNo, pageSize: 20, total: rules.data?.total ?? 0, onChange: setPageNo }}
        columns={[
          { title: t('dlp.rules.kind'), dataIndex: 'kind', width: 160, render: (k: DlpRuleKind) => t(`dlp.kind.${k}`) },
          { title: t('dlp.rules.value'), key: 'value', render: (_: unknown, r) => <span data-testid={`dlp-rule-${r.ruleId}`}>{valueOf(r)}</span> },
          { title: t('dlp.rules.enabled'), dataIndex: 'enabled', width: 100, render: (v: boolean) => (v ? t('dlp.rules.on') : t('dlp.rules.off')) },
          { title: t('dlp.rules.remark'), dataIndex: 'remark' },
          { title: t('files.updateTime'), dataIndex: 'updateTime', width: 170, render: (v: number) => formatDate(v) },
          {
            title: t('files.actions'),
            key: 'actions',
            width: 160,
            render: (_: unknown, r) => (
              <Space size={0}>
                <Button type="link" size="small" onClick={() => setEditing({ ...r, sizeMb: r.kind === 'maxSize' ? Number(r.value) / MB : undefined })}>
                  {t('dlp.rules.edit')}
                </Button>
                <Button type="link" size="small" danger onClick={() => remove(r)}>
                  {t('files.delete')}
                </Button>
              </Space>
            ),
          },
        ]}
      />
      <Modal
        open={editing !== undefined}
        title={t(editing?.ruleId ? 'dlp.rules.edit' : 'dlp.rules.add')}
        okText={t('files.ok')}
        cancelText={t('files.cancel')}
        onCancel={() => setEditing(undefined)}
        onOk={() => void save()}
        okButtonProps={{ disabled: editing?.kind === 'maxSize' ? !(editing.sizeMb && editing.sizeMb > 0) : !editing?.value.trim() }}
        destroyOnHidden
      >
        {editing && (
          <Form layout="vertical">
            <Form.Item label={t('dlp.rules.kind')}>
              <Select value={editing.kind} onChange={(kind: DlpRuleKind) => setEditing({ ...editing, kind })} options={KINDS.map((k) => ({ value: k, label: t(`dlp.kind.${k}`) }))} data-testid="dlp-rule-kind" />
            </Form.Item>
            <Form.Item label={t('dlp.rules.value')} extra={t(`dlp.hint.${editing.kind}`)}>
              {editing.kind === 'maxSize' ? (
                <InputNumber min={0.001} addonAfter="MB" value={editing.sizeMb} onChange={(v) => setEditing({ ...editing, sizeMb: v ?? undefined })} style={{ width: '100%' }} />
              ) : (
                <Input value={editing.value} maxLength={500} onChange={(e) => setEditing({ ...editing, value: e.target.value })} data-testid="dlp-rule-value" />
              )}
            </Form.Item>
            <Form.Item label={t('dlp.rules.enabled')}>
              <Switch checked={editing.enabled} onChange={(enabled) => setEditing({ ...editing, enabled })} />
            </Form.Item>
            <Form.Item label={t('dlp.rules.remark')}>
              <Input value={editing.remark} maxLength={200} onChange={(e) => setEditing({ ...editing, remark: e.target.value })} />
            </Form.Item>
          </Form>
        )}
      </Modal>
    </div>
  );
}
