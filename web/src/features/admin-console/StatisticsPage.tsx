// /dataStatisticsManagement (issue #18): storage by space, department and file type, daily uploads, downloads and
// active users, and the largest folders, drawn with ECharts (loaded only when this screen opens).
import './strings.ts';
import AdminOnly from './AdminOnly.tsx';
import { useMemo, useState } from 'react';
import { Card, Col, Row, Select, Statistic, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { getDataStatistics, getGetDataStatisticsQueryKey } from '../../api/gen/admin-console/admin-console.ts';
import type { StatBucket } from '../../api/gen/model/statBucket.ts';
import { formatSize } from '../../shared/format.ts';
import Chart from './Chart.tsx';

const PERIODS = [7, 30, 90] as const;

function StatisticsScreen() {
  const { t } = useTranslation();
  const [days, setDays] = useState<number>(30);
  const stats = useQuery({ queryKey: getGetDataStatisticsQueryKey({ days }), queryFn: async ({ signal }) => (await getDataStatistics({ days }, { signal, quiet: true })).data });
  const d = stats.data;
  const sum = (k: 'uploads' | 'downloads') => (d?.daily ?? []).reduce((n, x) => n + x[k], 0);
  const bytesTip = { trigger: 'item', valueFormatter: (v: number) => formatSize(v) };
  const options = useMemo(() => {
    if (!d) return undefined;
    const bars = (list: StatBucket[], label: (b: StatBucket) => string) => ({
      tooltip: { trigger: 'axis', valueFormatter: (v: number) => formatSize(v) },
      grid: { left: 80, right: 20, top: 20, bottom: 40 },
      xAxis: { type: 'category', data: list.map(label), axisLabel: { interval: 0, rotate: list.length > 6 ? 30 : 0 } },
      yAxis: { type: 'value', axisLabel: { formatter: (v: number) => formatSize(v) } },
      series: [{ type: 'bar', data: list.map((b) => b.bytes) }],
    });
    return {
      space: {
        tooltip: bytesTip,
        legend: { bottom: 0 },
        series: [{ type: 'pie', radius: ['40%', '70%'], data: d.bySpace.map((b) => ({ name: t(`adminConsole.stats.space.${b.key}`, { defaultValue: b.key }), value: b.bytes })) }],
      },
      dept: bars(d.byDept, (b) => b.label || '—'),
      type: bars(d.byType, (b) => t(`adminConsole.stats.fileType.${b.key}`, { defaultValue: b.key })),
      daily: {
        tooltip: { trigger: 'axis' },
        legend: { bottom: 0 },
        grid: { left: 40, right: 20, top: 20, bottom: 60 },
        xAxis: { type: 'category', data: d.daily.map((x) => x.day.slice(5)) },
        yAxis: { type: 'value', minInterval: 1 },
        series: [
          { name: t('adminConsole.stats.uploads'), type: 'line', data: d.daily.map((x) => x.uploads) },
          { name: t('adminConsole.stats.downloads'), type: 'line', data: d.daily.map((x) => x.downloads) },
          { name: t('adminConsole.stats.activeUsers'), type: 'bar', data: d.daily.map((x) => x.activeUsers) },
        ],
      },
    };
    // bytesTip is rebuilt each render but constant in meaning.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [d, t]);

  return (
    <div data-testid="statistics-page">
      <Typography.Title level={4}>{t('routes.dataStatisticsManagement')}</Typography.Title>
      <Select value={days} onChange={setDays} style={{ width: 160, marginBottom: 12 }} options={PERIODS.map((n) => ({ value: n, label: t('adminConsole.stats.daysN', { count: n }) }))} />
      {d && options && (
        <>
          <Row gutter={12} style={{ marginBottom: 12 }}>
            <Col span={4}><Card><Statistic title={t('adminConsole.stats.users')} value={d.totals.users} /></Card></Col>
            <Col span={3}><Card><Statistic title={t('adminConsole.stats.files')} value={d.totals.files} /></Card></Col>
            <Col span={3}><Card><Statistic title={t('adminConsole.stats.folders')} value={d.totals.folders} /></Card></Col>
            <Col span={4}><Card><Statistic title={t('adminConsole.stats.bytes')} value={formatSize(d.totals.bytes)} /></Card></Col>
            <Col span={4}><Card><Statistic title={t('adminConsole.stats.activeUsers')} value={d.activeUsers} data-testid="stat-active" /></Card></Col>
            {/* The period's sums: the daily chart is a canvas, which neither screen readers nor tests can read. */}
            <Col span={3}><Card><Statistic title={t('adminConsole.stats.uploads')} value={sum('uploads')} data-testid="stat-uploads" /></Card></Col>
            <Col span={3}><Card><Statistic title={t('adminConsole.stats.downloads')} value={sum('downloads')} data-testid="stat-downloads" /></Card></Col>
          </Row>
          <Row gutter={12}>
            <Col span={8}><Card title={t('adminConsole.stats.bySpace')}><Chart option={options.space} testId="chart-space" /></Card></Col>
            <Col span={16}><Card title={t('adminConsole.stats.daily')}><Chart option={options.daily} testId="chart-daily" /></Card></Col>
          </Row>
          <Row gutter={12} style={{ marginTop: 12 }}>
            <Col span={12}><Card title={t('adminConsole.stats.byDept')}><Chart option={options.dept} testId="chart-dept" /></Card></Col>
            <Col span={12}><Card title={t('adminConsole.stats.byType')}><Chart option={options.type} testId="chart-type" /></Card></Col>
          </Row>
          <Card title={t('adminConsole.stats.topFolders')} style={{ marginTop: 12 }}>
            <Table<StatBucket>
              rowKey="key"
              size="small"
              pagination={false}
              dataSource={d.topFolders}
              columns={[
                { title: t('adminConsole.stats.name'), dataIndex: 'label' },
                { title: t('adminConsole.stats.size'), dataIndex: 'bytes', width: 140, render: (v: number) => formatSize(v) },
                { title: t('adminConsole.stats.count'), dataIndex: 'count', width: 100 },
              ]}
            />
          </Card>
        </>
      )}
    </div>
  );
}

export default function StatisticsPage() {
  return (
    <AdminOnly path="/dataStatisticsManagement">
      <StatisticsScreen />
    </AdminOnly>
  );
}
