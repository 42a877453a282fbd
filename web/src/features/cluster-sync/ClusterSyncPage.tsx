// /clusterSync (issue #20 part 3): cross-site replication. Sync configs (a library, or one folder of it, from a
// source site to target sites), the progress per target site (refreshed while the screen is open) and the failed
// copies with retry. Administrators only: the server refuses everyone else, and the page says so.
import './strings.ts';
import { useState } from 'react';
import { Button, Card, Empty, Form, Input, Modal, Result, Select, Space, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import {
  addOrUpdateSyncConfig, deleteSyncConfig, getClusterSyncStatus, getGetClusterSyncStatusQueryKey, getListSyncConfigsQueryKey, listSyncConfigs,
  retryClusterSync,
} from '../../api/gen/sync/sync.ts';
import { getListSitesQueryKey, listSites } from '../../api/gen/storage/storage.ts';
import type { SyncConfig } from '../../api/gen/model/syncConfig.ts';
import type { SiteSyncProgress } from '../../api/gen/model/siteSyncProgress.ts';
import type { ReplicaFailure } from '../../api/gen/model/replicaFailure.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate, formatSize } from '../../shared/format.ts';
import { useUserInfo } from '../../shared/session.ts';
import { HcsError } from '../../api/hcs-error.ts';
import { confirmDialog, toastError, toastSuccess } from '../../shared/notify.ts';

interface AddForm { libCode: string; folderId?: string; sourceSiteId: string; targetSiteIds: string[] }

export default function ClusterSyncPage() {
  const { t } = useTranslation();
  const me = useUserInfo();
  // The server refuses the screen's calls to everyone else; it is in every user's menu (spec), so say why it is empty.
  if (!me?.isAdmin) return <Empty data-testid="cluster-sync-denied" description={t('clusterSync.adminsOnly')} />;
  return <ClusterSync />;
}

function ClusterSync() {
  const { t } = useTranslation();
  const [adding, setAdding] = useState(false);
  const [form] = Form.useForm<AddForm>();
  const configs = useQuery({
    queryKey: getListSyncConfigsQueryKey(),
    queryFn: async ({ signal }) => (await listSyncConfigs({ signal, quiet: true })).data?.list ?? [],
    retry: false,
  });
  const sites = useQuery({
    queryKey: getListSitesQueryKey(),
    queryFn: async ({ signal }) => (await listSites({ signal, quiet: true })).data?.list ?? [],
    enabled: configs.isSuccess,
  });
  const status = useQuery({
    queryKey: getGetClusterSyncStatusQueryKey(),
    queryFn: async ({ signal }) => (await getClusterSyncStatus({ signal, quiet: true })).data ?? { sites: [], failures: [] },
    enabled: configs.isSuccess,
    refetchInterval: 5000,
  });
  // A server without replication answers 501: the feature is not available there, not failing (the same words as
  // features/pages' NotAvailable, which this feature may not import).
  if (configs.error instanceof HcsError && configs.error.status === 501) {
    return (
      <div data-testid="not-available">
        <Result status="info" title={t('common.notAvailable.title')} subTitle={t('common.notAvailable.text')} />
      </div>
    );
  }
  if (configs.error) {
    return (
      <Result
        data-testid="cluster-sync-error"
        status="error"
        subTitle={errorMessage(configs.error)}
      />
    );
  }
  const siteName = (id: string) => sites.data?.find((s) => s.siteId === id)?.name ?? id;
  const siteOptions = (sites.data ?? []).map((s) => ({ value: s.siteId, label: s.name }));

  const save = async (v: AddForm) => {
    try {
      await addOrUpdateSyncConfig({ libCode: v.libCode.trim(), folderId: v.folderId?.trim() || null, sourceSiteId: v.sourceSiteId, targetSiteIds: v.targetSiteIds }, { quiet: true });
      setAdding(false);
      form.resetFields();
      void configs.refetch();
      void status.refetch();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };
  const remove = (c: SyncConfig) =>
    confirmDialog({
      title: t('clusterSync.deleteConfirm', { lib: c.libCode }),
      okText: t('files.ok'),
      cancelText: t('files.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await deleteSyncConfig({ id: c.id }, { quiet: true });
          void configs.refetch();
        } catch (err) {
          toastError(errorMessage(err));
        }
      },
    });
  const retry = async (f?: ReplicaFailure) => {
    try {
      const r = await retryClusterSync(f ? { blobId: f.blobId, siteId: f.siteId } : {}, { quiet: true });
      toastSuccess(t('clusterSync.retried', { count: r.data?.retried ?? 0 }));
      void status.refetch();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };

  return (
    <div data-testid="cluster-sync-page">
      <Typography.Title level={4}>{t('routes.clusterSync')}</Typography.Title>
      <Card
        size="small"
        title={t('clusterSync.configs')}
        extra={<Button type="primary" data-testid="sync-add" onClick={() => setAdding(true)}>{t('clusterSync.add')}</Button>}
      >
        <Table<SyncConfig>
          rowKey="id"
          size="small"
          loading={configs.isLoading}
          dataSource={configs.data ?? []}
          pagination={false}
          columns={[
            { title: t('clusterSync.library'), dataIndex: 'libCode' },
            { title: t('clusterSync.folder'), dataIndex: 'folderId', render: (v: string | null) => v ?? t('clusterSync.wholeLibrary') },
            { title: t('clusterSync.source'), dataIndex: 'sourceSiteId', render: (v: string) => siteName(v) },
            { title: t('clusterSync.targets'), dataIndex: 'targetSiteIds', render: (v: string[]) => v.map(siteName).join(', ') },
            {
              title: t('files.actions'), key: 'actions', width: 100,
              render: (_: unknown, c) => <Button type="link" size="small" danger onClick={() => remove(c)}>{t('files.delete')}</Button>,
            },
          ]}
        />
      </Card>
      <Card size="small" title={t('clusterSync.progress')} style={{ marginTop: 16 }}>
        <Table<SiteSyncProgress>
          rowKey="siteId"
          size="small"
          data-testid="sync-progress"
          loading={status.isLoading}
          dataSource={status.data?.sites ?? []}
          pagination={false}
          locale={{ emptyText: t('clusterSync.none') }}
          columns={[
            { title: t('clusterSync.site'), dataIndex: 'siteName' },
            { title: t('clusterSync.synced'), dataIndex: 'synced', render: (v: number, s) => `${v} (${formatSize(s.syncedBytes)})` },
            { title: t('clusterSync.pending'), dataIndex: 'pending' },
            { title: t('clusterSync.failed'), dataIndex: 'failed' },
            { title: t('clusterSync.lag'), dataIndex: 'lagSeconds', render: (v: number) => t('clusterSync.seconds', { count: v }) },
            { title: t('clusterSync.lagBytes'), dataIndex: 'lagBytes', render: (v: number) => formatSize(v) },
          ]}
        />
      </Card>
      <Card
        size="small"
        title={t('clusterSync.failures')}
        style={{ marginTop: 16 }}
        extra={<Button disabled={!status.data?.failures.length} data-testid="sync-retry-all" onClick={() => void retry()}>{t('clusterSync.retryAll')}</Button>}
      >
        <Table<ReplicaFailure>
          rowKey={(f) => `${f.blobId}:${f.siteId}`}
          size="small"
          data-testid="sync-failures"
          dataSource={status.data?.failures ?? []}
          pagination={false}
          columns={[
            { title: t('clusterSync.blob'), dataIndex: 'blobId', ellipsis: true },
            { title: t('clusterSync.site'), dataIndex: 'siteName' },
            { title: t('clusterSync.size'), dataIndex: 'size', render: (v: number) => formatSize(v) },
            { title: t('clusterSync.reason'), dataIndex: 'reason', ellipsis: true },
            { title: t('clusterSync.updated'), dataIndex: 'updatedAt', render: (v: number) => formatDate(v) },
            {
              title: t('files.actions'), key: 'actions', width: 100,
              render: (_: unknown, f) => <Button type="link" size="small" data-testid={`sync-retry-${f.blobId}`} onClick={() => void retry(f)}>{t('clusterSync.retry')}</Button>,
            },
          ]}
        />
      </Card>
      <Modal
        open={adding}
        title={t('clusterSync.add')}
        okText={t('files.ok')}
        cancelText={t('files.cancel')}
        onCancel={() => setAdding(false)}
        onOk={() => form.submit()}
        destroyOnHidden
      >
        <Form<AddForm> form={form} layout="vertical" onFinish={(v) => void save(v)} initialValues={{ libCode: 'NetDisk' }}>
          <Form.Item name="libCode" label={t('clusterSync.library')} rules={[{ required: true }]}>
            <Input data-testid="sync-lib" maxLength={64} />
          </Form.Item>
          <Form.Item name="folderId" label={t('clusterSync.folderId')}>
            <Input maxLength={64} />
          </Form.Item>
          <Space style={{ display: 'flex' }} align="start">
            <Form.Item name="sourceSiteId" label={t('clusterSync.source')} rules={[{ required: true }]}>
              <Select data-testid="sync-source" style={{ minWidth: 180 }} options={siteOptions} />
            </Form.Item>
            <Form.Item name="targetSiteIds" label={t('clusterSync.targets')} rules={[{ required: true }]}>
              <Select data-testid="sync-targets" mode="multiple" style={{ minWidth: 220 }} options={siteOptions} />
            </Form.Item>
          </Space>
        </Form>
      </Modal>
    </div>
  );
}
