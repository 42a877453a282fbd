// /personalTable (issue #18): storage and activity per account, largest first, for administrators.
import './strings.ts';
import AdminOnly from './AdminOnly.tsx';
import { useState } from 'react';
import { Input, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { getPagePersonalStatisticsQueryKey, pagePersonalStatistics } from '../../api/gen/admin-console/admin-console.ts';
import type { PersonalStat } from '../../api/gen/model/personalStat.ts';
import { formatDate, formatSize } from '../../shared/format.ts';

function PersonalTableScreen() {
  const { t } = useTranslation();
  const [pageNo, setPageNo] = useState(1);
  const [keyword, setKeyword] = useState('');
  const params = { pageNo, pageSize: 20, ...(keyword ? { keyword } : {}) };
  const rows = useQuery({ queryKey: getPagePersonalStatisticsQueryKey(params), queryFn: async ({ signal }) => (await pagePersonalStatistics(params, { signal, quiet: true })).data });
  return (
    <div data-testid="personal-table-page">
      <Typography.Title level={4}>{t('routes.personalTable')}</Typography.Title>
      <Input.Search allowClear placeholder={t('adminConsole.personal.search')} style={{ width: 260, marginBottom: 12 }} onSearch={(v) => { setPageNo(1); setKeyword(v.trim()); }} />
      <Table<PersonalStat>
        rowKey="userId"
        size="middle"
        loading={rows.isLoading}
        dataSource={rows.data?.list ?? []}
        pagination={{ current: pageNo, pageSize: 20, total: rows.data?.total ?? 0, onChange: setPageNo, showSizeChanger: false }}
        columns={[
          { title: t('adminConsole.personal.user'), dataIndex: 'userName' },
          { title: t('adminConsole.personal.realName'), dataIndex: 'realName' },
          { title: t('adminConsole.personal.dept'), dataIndex: 'deptName' },
          { title: t('adminConsole.personal.used'), dataIndex: 'usedBytes', render: (v: number) => formatSize(v) },
          { title: t('adminConsole.personal.quota'), dataIndex: 'quotaBytes', render: (v: number | null) => (v === null ? t('adminConsole.personal.unlimited') : formatSize(v)) },
          { title: t('adminConsole.personal.files'), dataIndex: 'files' },
          { title: t('adminConsole.personal.lastActive'), dataIndex: 'lastActive', render: (v: number | null) => (v ? formatDate(v) : '—') },
        ]}
      />
    </div>
  );
}

export default function PersonalTablePage() {
  return (
    <AdminOnly path="/personalTable">
      <PersonalTableScreen />
    </AdminOnly>
  );
}
