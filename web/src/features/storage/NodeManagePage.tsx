// /nodeManage (issue #20): every server process registered in the database, live ones up and silent ones down,
// refreshed while the screen is open. A down node may be forgotten; a live one would register again.
import './strings.ts';
import { Button, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { deleteNode, getListNodesQueryKey, listNodes } from '../../api/gen/storage/storage.ts';
import type { Node } from '../../api/gen/model/node.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate } from '../../shared/format.ts';
import { confirmDialog, toastError } from '../../shared/notify.ts';

export default function NodeManagePage() {
  const { t } = useTranslation();
  const nodes = useQuery({
    queryKey: getListNodesQueryKey(),
    queryFn: async ({ signal }) => (await listNodes({ signal, quiet: true })).data?.list ?? [],
    refetchInterval: 10_000,
  });
  const forget = (n: Node) =>
    confirmDialog({
      title: t('storage.node.deleteConfirm', { name: n.name }),
      okText: t('files.ok'),
      cancelText: t('files.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await deleteNode({ nodeId: n.nodeId }, { quiet: true });
          void nodes.refetch();
        } catch (err) {
          toastError(errorMessage(err));
        }
      },
    });
  return (
    <div data-testid="node-page">
      <Typography.Title level={4}>{t('routes.nodeManage')}</Typography.Title>
      <Table<Node>
        rowKey="nodeId"
        size="middle"
        loading={nodes.isLoading}
        dataSource={nodes.data ?? []}
        pagination={false}
        columns={[
          {
            title: t('storage.node.status'), dataIndex: 'status', width: 100,
            render: (s: Node['status'], n) => <Tag color={s === 'up' ? 'green' : 'red'} data-testid={`node-status-${n.nodeId}`}>{t(`storage.node.${s}`)}</Tag>,
          },
          { title: t('storage.node.name'), dataIndex: 'name' },
          { title: t('storage.node.address'), dataIndex: 'address' },
          { title: t('storage.node.site'), dataIndex: 'site', render: (v: string) => v || '—' },
          { title: t('storage.node.version'), dataIndex: 'version', width: 100 },
          { title: t('storage.node.heartbeat'), dataIndex: 'heartbeat', width: 180, render: (v: number) => formatDate(v) },
          {
            title: t('files.actions'), key: 'actions', width: 100,
            render: (_: unknown, n) => n.status === 'down' && <Button type="link" size="small" danger onClick={() => forget(n)}>{t('storage.node.forget')}</Button>,
          },
        ]}
      />
    </div>
  );
}
