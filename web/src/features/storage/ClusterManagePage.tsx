// /clusterManage (issue #20): sites (a region and a default storage connection each), the clusters in them, and the
// nodes in each cluster. Nodes register themselves; here an administrator groups them.
import './strings.ts';
import { useState } from 'react';
import { Button, Form, Input, Modal, Select, Space, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import {
  addOrUpdateCluster, addOrUpdateNode, addOrUpdateSite, cloudConnectPage, deleteCluster, deleteSite, getListClustersQueryKey, getListSitesQueryKey,
  joinCluster, listClusters, listSites, listUnMatchNodes, removeRegionFromSite,
} from '../../api/gen/storage/storage.ts';
import type { Cluster } from '../../api/gen/model/cluster.ts';
import type { Site } from '../../api/gen/model/site.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { toastError } from '../../shared/notify.ts';

interface SiteForm { name: string; region: string; cloudId: string }

export default function ClusterManagePage() {
  const { t } = useTranslation();
  const sites = useQuery({ queryKey: getListSitesQueryKey(), queryFn: async ({ signal }) => (await listSites({ signal, quiet: true })).data?.list ?? [] });
  const clusters = useQuery({ queryKey: getListClustersQueryKey(), queryFn: async ({ signal }) => (await listClusters({ signal, quiet: true })).data?.list ?? [], refetchInterval: 10_000 });
  const unmatched = useQuery({ queryKey: ['storage', 'unmatched'], queryFn: async ({ signal }) => (await listUnMatchNodes({ signal, quiet: true })).data?.list ?? [] });
  const conns = useQuery({ queryKey: ['storage', 'conns'], queryFn: async ({ signal }) => (await cloudConnectPage({ pageNo: 1, pageSize: 100 }, { signal, quiet: true })).data?.list ?? [] });
  const [siteForm, setSiteForm] = useState<SiteForm>();
  const [clusterName, setClusterName] = useState<string>();

  const run = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      void sites.refetch();
      void clusters.refetch();
      void unmatched.refetch();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };

  return (
    <div data-testid="cluster-page">
      <Typography.Title level={4}>{t('routes.clusterManage')}</Typography.Title>
      <Typography.Title level={5}>{t('storage.site.title')}</Typography.Title>
      <Button type="primary" style={{ marginBottom: 12 }} onClick={() => setSiteForm({ name: '', region: '', cloudId: '0' })} data-testid="site-add">{t('storage.site.add')}</Button>
      <Table<Site>
        rowKey="siteId"
        size="middle"
        loading={sites.isLoading}
        dataSource={sites.data ?? []}
        pagination={false}
        columns={[
          { title: t('storage.site.name'), dataIndex: 'name', render: (v: string, s) => <span data-testid={`site-row-${s.siteId}`}>{v}</span> },
          { title: t('storage.site.region'), dataIndex: 'region', render: (v: string) => v || '—' },
          { title: t('storage.site.storage'), dataIndex: 'cloudName', render: (v: string, s) => (s.cloudId === '0' ? t('storage.cloud.embedded') : v) },
          {
            title: t('storage.site.clusters'), key: 'clusters',
            render: (_: unknown, s) => (
              <Space size={4} wrap>
                {s.clusters.map((c) => <Tag key={c.clusterId} closable onClose={(e) => { e.preventDefault(); void run(() => removeRegionFromSite({ siteId: s.siteId, clusterId: c.clusterId }, { quiet: true })); }}>{c.name}</Tag>)}
              </Space>
            ),
          },
          {
            title: t('files.actions'), key: 'actions', width: 100,
            render: (_: unknown, s) => <Button type="link" size="small" danger onClick={() => void run(() => deleteSite({ siteId: s.siteId }, { quiet: true }))}>{t('files.delete')}</Button>,
          },
        ]}
      />
      <Typography.Title level={5} style={{ marginTop: 24 }}>{t('storage.cluster.title')}</Typography.Title>
      <Button type="primary" style={{ marginBottom: 12 }} onClick={() => setClusterName('')} data-testid="cluster-add">{t('storage.cluster.add')}</Button>
      <Table<Cluster>
        rowKey="clusterId"
        size="middle"
        loading={clusters.isLoading}
        dataSource={clusters.data ?? []}
        pagination={false}
        columns={[
          { title: t('storage.cluster.name'), dataIndex: 'name', render: (v: string, c) => <span data-testid={`cluster-row-${c.clusterId}`}>{v}</span> },
          {
            title: t('storage.cluster.site'), key: 'site', width: 220,
            render: (_: unknown, c) => (
              <Select<string>
                value={c.siteId ?? undefined}
                placeholder={t('storage.cluster.noSite')}
                style={{ width: 200 }}
                onChange={(siteId) => void run(() => joinCluster({ siteId, clusterId: c.clusterId }, { quiet: true }))}
                options={(sites.data ?? []).map((s) => ({ value: s.siteId, label: s.name }))}
              />
            ),
          },
          {
            title: t('storage.cluster.nodes'), key: 'nodes',
            render: (_: unknown, c) => (
              <Space size={4} wrap>
                {c.nodes.map((n) => (
                  <Tag key={n.nodeId} color={n.status === 'up' ? 'green' : 'red'} closable onClose={(e) => { e.preventDefault(); void run(() => addOrUpdateNode({ nodeId: n.nodeId, clusterId: null }, { quiet: true })); }}>
                    {n.name}
                  </Tag>
                ))}
                <Select<string>
                  value={null as unknown as string}
                  placeholder={t('storage.cluster.addNode')}
                  style={{ width: 180 }}
                  onChange={(nodeId) => void run(() => addOrUpdateNode({ nodeId, clusterId: c.clusterId }, { quiet: true }))}
                  options={(unmatched.data ?? []).map((n) => ({ value: n.nodeId, label: `${n.name} (${n.address})` }))}
                />
              </Space>
            ),
          },
          {
            title: t('files.actions'), key: 'actions', width: 100,
            render: (_: unknown, c) => <Button type="link" size="small" danger onClick={() => void run(() => deleteCluster({ clusterId: c.clusterId }, { quiet: true }))}>{t('files.delete')}</Button>,
          },
        ]}
      />
      <Modal open={siteForm !== undefined} title={t('storage.site.add')} okText={t('files.ok')} cancelText={t('files.cancel')} onCancel={() => setSiteForm(undefined)}
        okButtonProps={{ disabled: !siteForm?.name.trim() }}
        onOk={() => siteForm && void run(async () => {
          await addOrUpdateSite({ name: siteForm.name.trim(), region: siteForm.region, cloudId: siteForm.cloudId }, { quiet: true });
          setSiteForm(undefined);
        })} destroyOnHidden>
        {siteForm && (
          <Form layout="vertical">
            <Form.Item label={t('storage.site.name')} extra={t('storage.site.nameHint')}>
              <Input value={siteForm.name} maxLength={64} onChange={(e) => setSiteForm({ ...siteForm, name: e.target.value })} data-testid="site-form-name" />
            </Form.Item>
            <Form.Item label={t('storage.site.region')}>
              <Input value={siteForm.region} maxLength={64} onChange={(e) => setSiteForm({ ...siteForm, region: e.target.value })} />
            </Form.Item>
            <Form.Item label={t('storage.site.storage')}>
              <Select<string> value={siteForm.cloudId} onChange={(cloudId) => setSiteForm({ ...siteForm, cloudId })}
                options={(conns.data ?? []).map((c) => ({ value: c.cloudId, label: c.embedded ? t('storage.cloud.embedded') : c.name }))} />
            </Form.Item>
          </Form>
        )}
      </Modal>
      <Modal open={clusterName !== undefined} title={t('storage.cluster.add')} okText={t('files.ok')} cancelText={t('files.cancel')} onCancel={() => setClusterName(undefined)}
        okButtonProps={{ disabled: !clusterName?.trim() }}
        onOk={() => clusterName && void run(async () => {
          await addOrUpdateCluster({ name: clusterName.trim() }, { quiet: true });
          setClusterName(undefined);
        })} destroyOnHidden>
        <Input value={clusterName} maxLength={64} placeholder={t('storage.cluster.name')} onChange={(e) => setClusterName(e.target.value)} data-testid="cluster-form-name" />
      </Modal>
    </div>
  );
}
