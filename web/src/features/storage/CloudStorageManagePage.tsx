// /cloudStorageManage (issue #20): the storage connections (connection zero is the server's own store), their
// buckets and connection test, and each library's storage policy: where its new uploads go (connection and bucket;
// files already stored stay where they are) and their encryption at rest, with what is actually in force. Secrets go
// to the server once and are never shown again (the server does not return them).
import './strings.ts';
import { useState } from 'react';
import { Button, Form, Input, Modal, Select, Space, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import {
  addCloud, cloudConnectPage, createBucket, deleteCloud, getCloudConnectPageQueryKey, getListStoragePoliciesQueryKey, listBuckets, listStoragePolicies,
  setStoragePolicy, testCloudConnection,
} from '../../api/gen/storage/storage.ts';
import type { CloudConnection } from '../../api/gen/model/cloudConnection.ts';
import type { StoragePolicy } from '../../api/gen/model/storagePolicy.ts';
import type { Encryption } from '../../api/gen/model/encryption.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { confirmDialog, toastError, toastSuccess } from '../../shared/notify.ts';

type Sse = CloudConnection['sse'][number];
interface NewConnection { name: string; endpoint: string; region: string; bucket: string; accessKey: string; secretKey: string; sse: Sse[] }
const EMPTY: NewConnection = { name: '', endpoint: '', region: 'us-east-1', bucket: '', accessKey: '', secretKey: '', sse: [] };
const SSE_MODES: readonly Sse[] = ['AES256', 'aws:kms'];

interface PolicyEdit { libCode: string; cloudId: string; bucketName: string; encryption: Encryption; kmsKeyId: string }

/**
 * The encryption modes a place offers: the embedded store's own AES-256-GCM in connection zero's default bucket, an
 * external connection's SSE modes as the connection declares them; none everywhere.
 */
function encryptionsAt(conn: CloudConnection | undefined, bucketName: string): Encryption[] {
  if (!conn) return ['none'];
  if (conn.cloudId === '0') return conn.embedded && bucketName === conn.defaultBucket ? ['none', 'aes256-gcm'] : ['none'];
  return ['none', ...(conn.sse.includes('AES256') ? ['sse-s3' as const] : []), ...(conn.sse.includes('aws:kms') ? ['sse-kms' as const] : [])];
}

export default function CloudStorageManagePage() {
  const { t } = useTranslation();
  const params = { pageNo: 1, pageSize: 100 };
  const conns = useQuery({ queryKey: getCloudConnectPageQueryKey(params), queryFn: async ({ signal }) => (await cloudConnectPage(params, { signal, quiet: true })).data });
  const policies = useQuery({ queryKey: getListStoragePoliciesQueryKey(), queryFn: async ({ signal }) => (await listStoragePolicies({ signal, quiet: true })).data?.list ?? [] });
  const [adding, setAdding] = useState<NewConnection>();
  const [buckets, setBuckets] = useState<{ conn: CloudConnection; names: string[]; newName: string }>();
  const [editing, setEditing] = useState<PolicyEdit>();
  const connById = (id: string) => conns.data?.list.find((c) => c.cloudId === id);

  /** Runs a change and refreshes both tables; false when it was refused (the reason is shown). */
  const run = async (fn: () => Promise<unknown>, done?: string): Promise<boolean> => {
    try {
      await fn();
      if (done) toastSuccess(done);
      void conns.refetch();
      void policies.refetch();
      return true;
    } catch (err) {
      toastError(errorMessage(err));
      return false;
    }
  };
  const savePolicy = (p: PolicyEdit, done?: string) =>
    run(() => setStoragePolicy({
      libCode: p.libCode, cloudId: p.cloudId, bucketName: p.bucketName, encryption: p.encryption,
      ...(p.encryption === 'sse-kms' && p.kmsKeyId ? { kmsKeyId: p.kmsKeyId } : {}),
    }, { quiet: true }), done);
  const test = (c: CloudConnection) =>
    run(async () => {
      const r = (await testCloudConnection({ cloudId: c.cloudId }, { quiet: true })).data!;
      // MinIO answers its own health checks too: a cluster without write quorum is connected but cannot take uploads.
      const minio = r.minio ? ` ${t(r.minio.clusterHealthy ? 'storage.cloud.minioHealthy' : 'storage.cloud.minioNoQuorum')}` : '';
      if (r.reachable && r.bucketExists && (!r.minio || r.minio.clusterHealthy)) toastSuccess(t('storage.cloud.testOk') + minio);
      else if (r.reachable && r.bucketExists) toastError(t('storage.cloud.testOk') + minio);
      else toastError(t(r.reachable ? 'storage.cloud.testNoBucket' : 'storage.cloud.testFailed', { detail: r.detail ?? '' }) + minio);
    });
  const openBuckets = (c: CloudConnection) =>
    run(async () => setBuckets({ conn: c, names: ((await listBuckets({ cloudId: c.cloudId }, { quiet: true })).data?.list ?? []).map((b) => b.bucketName), newName: '' }));
  const remove = (c: CloudConnection) =>
    confirmDialog({
      title: t('storage.cloud.deleteConfirm', { name: c.name }),
      okText: t('files.ok'),
      cancelText: t('files.cancel'),
      okButtonProps: { danger: true },
      onOk: () => run(() => deleteCloud({ cloudId: c.cloudId }, { quiet: true })),
    });
  const save = () =>
    adding && run(async () => {
      await addCloud({ ...adding, name: adding.name.trim() }, { quiet: true });
      setAdding(undefined);
    }, t('storage.cloud.added'));

  return (
    <div data-testid="cloud-storage-page">
      <Typography.Title level={4}>{t('routes.cloudStorageManage')}</Typography.Title>
      <Button type="primary" style={{ marginBottom: 12 }} onClick={() => setAdding(EMPTY)} data-testid="cloud-add">
        {t('storage.cloud.add')}
      </Button>
      <Table<CloudConnection>
        rowKey="cloudId"
        size="middle"
        loading={conns.isLoading}
        dataSource={conns.data?.list ?? []}
        pagination={false}
        columns={[
          {
            title: t('storage.cloud.name'), key: 'name',
            render: (_: unknown, c) => <span data-testid={`cloud-row-${c.cloudId}`}>{c.embedded ? t('storage.cloud.embedded') : c.name} {c.cloudId === '0' && <Tag>{t('storage.cloud.zero')}</Tag>}</span>,
          },
          { title: t('storage.cloud.endpoint'), dataIndex: 'endpoint' },
          { title: t('storage.cloud.bucket'), dataIndex: 'defaultBucket' },
          { title: t('storage.cloud.accessKey'), key: 'key', render: (_: unknown, c) => (c.accessKeyHint ? `…${c.accessKeyHint}` : '—') },
          {
            title: t('files.actions'), key: 'actions', width: 260,
            render: (_: unknown, c) => (
              <Space size={0}>
                <Button type="link" size="small" onClick={() => void test(c)} data-testid={`cloud-test-${c.cloudId}`}>{t('storage.cloud.test')}</Button>
                <Button type="link" size="small" onClick={() => void openBuckets(c)}>{t('storage.cloud.buckets')}</Button>
                {c.cloudId !== '0' && <Button type="link" size="small" danger onClick={() => remove(c)}>{t('files.delete')}</Button>}
              </Space>
            ),
          },
        ]}
      />
      <Typography.Title level={5} style={{ marginTop: 24 }}>{t('storage.policy.title')}</Typography.Title>
      <Typography.Paragraph type="secondary">{t('storage.policy.intro')}</Typography.Paragraph>
      <Table<StoragePolicy>
        rowKey="libCode"
        size="middle"
        loading={policies.isLoading}
        dataSource={policies.data ?? []}
        pagination={false}
        columns={[
          { title: t('storage.policy.library'), dataIndex: 'libCode' },
          {
            title: t('storage.policy.location'), key: 'loc',
            render: (_: unknown, p) => (
              <span data-testid={`policy-loc-${p.libCode}`}>{`${p.cloudId === '0' ? t('storage.cloud.embedded') : p.cloudName} / ${p.bucketName}`}</span>
            ),
          },
          {
            title: t('storage.policy.encryption'), key: 'enc', width: 220,
            render: (_: unknown, p) => (
              <Select<Encryption>
                value={p.encryption}
                style={{ width: 200 }}
                onChange={(encryption) => {
                  // SSE-KMS needs its key asked for; the other modes are set at once.
                  if (encryption === 'sse-kms') setEditing({ ...p, encryption });
                  else void savePolicy({ ...p, encryption });
                }}
                options={encryptionsAt(connById(p.cloudId), p.bucketName).map((e) => ({ value: e, label: t(`storage.encryption.${e}`) }))}
                data-testid={`policy-enc-${p.libCode}`}
              />
            ),
          },
          {
            title: t('storage.policy.inForce'), dataIndex: 'inForce', width: 220,
            render: (v: StoragePolicy['inForce'], p) => (
              <Tag color={v === 'none' ? 'default' : 'green'} data-testid={`policy-force-${p.libCode}`}>{t(`storage.inForce.${v}`)}</Tag>
            ),
          },
          {
            title: t('files.actions'), key: 'actions', width: 120,
            render: (_: unknown, p) => (
              <Button type="link" size="small" onClick={() => setEditing({ ...p })} data-testid={`policy-edit-${p.libCode}`}>{t('storage.policy.edit')}</Button>
            ),
          },
        ]}
      />
      <Modal open={editing !== undefined} title={editing && t('storage.policy.editTitle', { lib: editing.libCode })} okText={t('files.ok')} cancelText={t('files.cancel')}
        onCancel={() => setEditing(undefined)} destroyOnHidden
        okButtonProps={{ disabled: !editing || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(editing.bucketName), ...({ 'data-testid': 'policy-save' } as object) }}
        onOk={() => editing && void savePolicy(editing, t('storage.policy.saved')).then((saved) => saved && setEditing(undefined))}>
        {editing && (
          <Form layout="vertical">
            <Typography.Paragraph type="secondary">{t('storage.policy.editHint')}</Typography.Paragraph>
            <Form.Item label={t('storage.policy.connection')}>
              <Select<string>
                value={editing.cloudId}
                onChange={(cloudId) => {
                  const c = connById(cloudId);
                  const bucketName = c?.defaultBucket ?? editing.bucketName;
                  const encryption = encryptionsAt(c, bucketName).includes(editing.encryption) ? editing.encryption : 'none';
                  setEditing({ ...editing, cloudId, bucketName, encryption });
                }}
                options={(conns.data?.list ?? []).map((c) => ({ value: c.cloudId, label: c.cloudId === '0' ? t('storage.cloud.embedded') : c.name }))}
                data-testid="policy-form-cloud"
              />
            </Form.Item>
            <Form.Item label={t('storage.policy.bucket')}>
              <Input value={editing.bucketName} maxLength={63} onChange={(e) => setEditing({ ...editing, bucketName: e.target.value.trim() })} data-testid="policy-form-bucket" />
            </Form.Item>
            <Form.Item label={t('storage.policy.encryption')}>
              <Select<Encryption>
                value={editing.encryption}
                onChange={(encryption) => setEditing({ ...editing, encryption })}
                options={encryptionsAt(connById(editing.cloudId), editing.bucketName).map((e) => ({ value: e, label: t(`storage.encryption.${e}`) }))}
                data-testid="policy-form-enc"
              />
            </Form.Item>
            {editing.encryption === 'sse-kms' && (
              <Form.Item label={t('storage.policy.kmsKey')} extra={t('storage.policy.kmsKeyHint')}>
                <Input value={editing.kmsKeyId} maxLength={2048} onChange={(e) => setEditing({ ...editing, kmsKeyId: e.target.value.trim() })} data-testid="policy-form-kms" />
              </Form.Item>
            )}
          </Form>
        )}
      </Modal>
      <Modal open={adding !== undefined} title={t('storage.cloud.add')} okText={t('files.ok')} cancelText={t('files.cancel')} onCancel={() => setAdding(undefined)}
        onOk={() => void save()} okButtonProps={{ disabled: !adding || !adding.name.trim() || !/^https?:\/\//.test(adding.endpoint) || !adding.bucket || !adding.accessKey || !adding.secretKey }} destroyOnHidden>
        {adding && (
          <Form layout="vertical">
            {(['name', 'endpoint', 'region', 'bucket', 'accessKey'] as const).map((k) => (
              <Form.Item key={k} label={t(`storage.cloud.${k === 'accessKey' ? 'accessKey' : k}`)}>
                <Input value={adding[k]} maxLength={k === 'endpoint' ? 512 : 256} onChange={(e) => setAdding({ ...adding, [k]: e.target.value })} data-testid={`cloud-form-${k}`} />
              </Form.Item>
            ))}
            <Form.Item label={t('storage.cloud.secretKey')} extra={t('storage.cloud.secretHint')}>
              <Input.Password value={adding.secretKey} maxLength={512} autoComplete="new-password" onChange={(e) => setAdding({ ...adding, secretKey: e.target.value })} data-testid="cloud-form-secretKey" />
            </Form.Item>
            <Form.Item label={t('storage.cloud.sse')} extra={t('storage.cloud.sseHint')}>
              <Select<Sse[]> mode="multiple" value={adding.sse} onChange={(sse) => setAdding({ ...adding, sse })}
                options={SSE_MODES.map((m) => ({ value: m, label: t(`storage.encryption.${m === 'AES256' ? 'sse-s3' : 'sse-kms'}`) }))} data-testid="cloud-form-sse" />
            </Form.Item>
          </Form>
        )}
      </Modal>
      <Modal open={buckets !== undefined} title={t('storage.cloud.buckets')} footer={null} onCancel={() => setBuckets(undefined)} destroyOnHidden>
        {buckets && (
          <>
            <ul data-testid="bucket-list">{buckets.names.map((n) => <li key={n}>{n}</li>)}</ul>
            <Space.Compact style={{ width: '100%' }}>
              <Input value={buckets.newName} placeholder={t('storage.cloud.newBucket')} onChange={(e) => setBuckets({ ...buckets, newName: e.target.value })} />
              <Button type="primary" disabled={!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(buckets.newName)}
                onClick={() => void run(async () => {
                  await createBucket({ cloudId: buckets.conn.cloudId, bucketName: buckets.newName }, { quiet: true });
                  await openBuckets(buckets.conn);
                })}>
                {t('storage.cloud.createBucket')}
              </Button>
            </Space.Compact>
          </>
        )}
      </Modal>
    </div>
  );
}
