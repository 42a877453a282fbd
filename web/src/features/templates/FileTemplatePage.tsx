// /fileTemplate (issue #16 item 6): the blank documents and the administrators' templates; anyone creates a document
// from one in their personal root, administrators add templates from their own uploaded files and remove them.
import { useState } from 'react';
import { Button, Input, Modal, Select, Space, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { addTemplate, createOfficeFile, deleteTemplate, getListTemplatesQueryKey, listTemplates, searchPage } from '../../api/gen/files/files.ts';
import type { Template } from '../../api/gen/model/template.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate, formatSize } from '../../shared/format.ts';
import { confirmDialog, toastError, toastSuccess } from '../../shared/notify.ts';
import { useUserInfo } from '../../shared/session.ts';
import { encodeWireText } from '../../shared/wire-encoding.ts';

const TEMPLATE_TYPES = new Set(['docx', 'xlsx', 'pptx', 'txt']);

export default function FileTemplatePage() {
  const { t } = useTranslation();
  const user = useUserInfo();
  const isAdmin = user?.isAdmin === true;
  const templates = useQuery({ queryKey: getListTemplatesQueryKey(), queryFn: async ({ signal }) => (await listTemplates({ signal, quiet: true })).data ?? [] });
  const [creating, setCreating] = useState<{ template: Template; name: string } | undefined>();
  const [adding, setAdding] = useState<{ instanceId?: string; name: string; keyword: string } | undefined>();
  const candidates = useQuery({
    queryKey: ['templateCandidates', adding?.keyword ?? ''],
    queryFn: async ({ signal }) => (await searchPage({ keyword: adding?.keyword, instanceType: '1', pageSize: 50 }, { signal, quiet: true })).data?.list ?? [],
    enabled: adding !== undefined,
  });
  const label = (tp: Template) => (tp.builtIn ? t(`templates.kind.${tp.kind}`) : tp.name);

  const create = async () => {
    if (!creating) return;
    try {
      const res = await createOfficeFile(
        { instanceName: encodeWireText(creating.name.trim()), kind: creating.template.kind, templateId: creating.template.templateId, instanceType: '1', conflict: 'rename' },
        { quiet: true },
      );
      toastSuccess(t('templates.created', { name: res.data?.instanceName ?? creating.name }));
      setCreating(undefined);
    } catch (err) {
      toastError(errorMessage(err, { name: creating.name }));
    }
  };
  const add = async () => {
    if (!adding?.instanceId) return;
    try {
      await addTemplate({ instanceId: adding.instanceId, ...(adding.name.trim() ? { name: adding.name.trim() } : {}) }, { quiet: true });
      setAdding(undefined);
      void templates.refetch();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };
  const remove = (tp: Template) =>
    confirmDialog({
      title: t('templates.deleteConfirm', { name: tp.name }),
      okText: t('files.ok'),
      cancelText: t('files.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await deleteTemplate(tp.templateId, { quiet: true });
          void templates.refetch();
        } catch (err) {
          toastError(errorMessage(err, { name: tp.name }));
        }
      },
    });

  return (
    <div data-testid="template-page">
      <Typography.Title level={4}>{t('routes.fileTemplate')}</Typography.Title>
      {isAdmin && (
        <Button type="primary" style={{ marginBottom: 12 }} onClick={() => setAdding({ name: '', keyword: '' })} data-testid="template-add">
          {t('templates.add')}
        </Button>
      )}
      <Table<Template>
        rowKey="templateId"
        size="middle"
        loading={templates.isLoading}
        dataSource={templates.data ?? []}
        pagination={false}
        columns={[
          { title: t('files.name'), key: 'name', render: (_: unknown, r) => <span data-testid={`template-${r.templateId}`}>{label(r)}</span> },
          { title: t('files.type'), dataIndex: 'kind', width: 160, render: (k: string) => t(`templates.kind.${k}`) },
          { title: t('templates.source'), key: 'source', width: 120, render: (_: unknown, r) => <Tag>{t(r.builtIn ? 'templates.builtIn' : 'templates.custom')}</Tag> },
          { title: t('files.size'), dataIndex: 'fSize', width: 110, render: (v: number, r) => (r.builtIn ? '-' : formatSize(v)) },
          { title: t('files.createTime'), dataIndex: 'createTime', width: 170, render: (v: number, r) => (r.builtIn ? '-' : formatDate(v)) },
          {
            title: t('files.actions'),
            key: 'actions',
            width: 220,
            render: (_: unknown, r) => (
              <Space size={0}>
                <Button type="link" size="small" onClick={() => setCreating({ template: r, name: `${r.builtIn ? t(`templates.defaultName.${r.kind}`) : r.name}.${r.kind}` })} data-testid={`template-use-${r.templateId}`}>
                  {t('templates.use')}
                </Button>
                {isAdmin && !r.builtIn && (
                  <Button type="link" size="small" danger onClick={() => remove(r)}>
                    {t('files.delete')}
                  </Button>
                )}
              </Space>
            ),
          },
        ]}
      />
      <Modal open={creating !== undefined} title={t('templates.use')} okText={t('files.ok')} cancelText={t('files.cancel')} onCancel={() => setCreating(undefined)} onOk={() => void create()} okButtonProps={{ disabled: !creating?.name.trim() }} destroyOnHidden>
        <Input value={creating?.name} maxLength={255} onChange={(e) => setCreating((c) => c && { ...c, name: e.target.value })} data-testid="template-new-name" />
        <Typography.Paragraph type="secondary" style={{ marginTop: 8 }}>
          {t('templates.createdIn')}
        </Typography.Paragraph>
      </Modal>
      <Modal open={adding !== undefined} title={t('templates.add')} okText={t('files.ok')} cancelText={t('files.cancel')} onCancel={() => setAdding(undefined)} onOk={() => void add()} okButtonProps={{ disabled: !adding?.instanceId }} destroyOnHidden>
        <Space direction="vertical" style={{ width: '100%' }}>
          <Select
            showSearch
            filterOption={false}
            style={{ width: '100%' }}
            placeholder={t('templates.pickFile')}
            value={adding?.instanceId}
            onSearch={(keyword) => setAdding((a) => a && { ...a, keyword })}
            onChange={(instanceId: string) => setAdding((a) => a && { ...a, instanceId })}
            loading={candidates.isFetching}
            options={(candidates.data ?? []).filter((i) => TEMPLATE_TYPES.has(i.fType)).map((i) => ({ value: i.instanceId, label: i.instanceName }))}
          />
          <Input value={adding?.name} maxLength={64} placeholder={t('templates.templateName')} onChange={(e) => setAdding((a) => a && { ...a, name: e.target.value })} />
        </Space>
      </Modal>
    </div>
  );
}
