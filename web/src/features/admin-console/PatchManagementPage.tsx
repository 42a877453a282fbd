// /patchManagement (issue #18): the running version and build, and which database migrations are applied.
import './strings.ts';
import AdminOnly from './AdminOnly.tsx';
import { Descriptions, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { getGetPatchInfoQueryKey, getPatchInfo } from '../../api/gen/admin-console/admin-console.ts';
import type { PatchInfoResponseDataMigrationsItem } from '../../api/gen/model/patchInfoResponseDataMigrationsItem.ts';

function PatchManagementScreen() {
  const { t } = useTranslation();
  const info = useQuery({ queryKey: getGetPatchInfoQueryKey(), queryFn: async ({ signal }) => (await getPatchInfo({ signal, quiet: true })).data });
  const d = info.data;
  return (
    <div data-testid="patch-page">
      <Typography.Title level={4}>{t('routes.patchManagement')}</Typography.Title>
      {d && (
        <Descriptions bordered size="small" column={2} style={{ marginBottom: 16 }}>
          <Descriptions.Item label={t('adminConsole.patch.version')}><span data-testid="patch-version">{d.version}</span></Descriptions.Item>
          <Descriptions.Item label={t('adminConsole.patch.build')}>{d.build}</Descriptions.Item>
          <Descriptions.Item label={t('adminConsole.patch.node')}>{d.node}</Descriptions.Item>
          <Descriptions.Item label={t('adminConsole.patch.database')}>{d.database === 'postgres' ? 'PostgreSQL' : 'SQLite'}</Descriptions.Item>
        </Descriptions>
      )}
      <Typography.Title level={5}>{t('adminConsole.patch.migrations')}</Typography.Title>
      <Table<PatchInfoResponseDataMigrationsItem>
        rowKey="name"
        size="small"
        loading={info.isLoading}
        pagination={false}
        dataSource={d?.migrations ?? []}
        columns={[
          { title: t('adminConsole.patch.migration'), dataIndex: 'name' },
          { title: t('adminConsole.patch.applied'), dataIndex: 'applied', render: (v: boolean) => (v ? <Tag color="green">{t('adminConsole.patch.applied')}</Tag> : <Tag color="orange">{t('adminConsole.patch.pending')}</Tag>) },
          { title: t('adminConsole.patch.appliedAt'), dataIndex: 'appliedAt', render: (v: string | null) => v ?? '—' },
        ]}
      />
    </div>
  );
}

export default function PatchManagementPage() {
  return (
    <AdminOnly path="/patchManagement">
      <PatchManagementScreen />
    </AdminOnly>
  );
}
