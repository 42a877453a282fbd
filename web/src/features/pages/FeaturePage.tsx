// Frame of a screen whose feature arrives later: its title, and the answer of its server operation. A server
// without the feature gives the localized "not available on this server" state; real rows are listed as they come.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Input, Result, Spin, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { RouteDef } from '../../shared/routes.ts';
import { formatDate } from '../../shared/format.ts';
import { isNotAvailable } from './not-available.ts';
import { errorMessage } from '../../shared/error-message.ts';

type Row = Record<string, unknown>;

/** Pages come back as an array, or an object holding one (list, rows, records, data). */
export function rowsOf(data: unknown): Row[] {
  if (Array.isArray(data)) return data.filter((r): r is Row => typeof r === 'object' && r !== null);
  if (data && typeof data === 'object') {
    for (const k of ['list', 'rows', 'records', 'data', 'items']) {
      const v = (data as Row)[k];
      if (Array.isArray(v)) return rowsOf(v);
    }
  }
  return [];
}

const NAME_FIELDS = ['instanceName', 'name', 'fileName', 'shareName', 'roleName', 'groupName', 'libName', 'configKey', 'menuName', 'nodeName', 'optObjName'];
const TIME_FIELDS = ['createTime', 'updateTime', 'optTime'];

function pick(row: Row, fields: string[]): string {
  for (const f of fields) {
    const v = row[f];
    if (typeof v === 'string' || typeof v === 'number') return String(v);
  }
  return '';
}

export function NotAvailable() {
  const { t } = useTranslation();
  return (
    <div data-testid="not-available">
      <Result status="info" title={t('common.notAvailable.title')} subTitle={t('common.notAvailable.text')} />
    </div>
  );
}

export default function FeaturePage({ def }: { def: RouteDef }) {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const probe = def.probe;
  const enabled = !!probe && (!probe.needsKeyword || keyword.length > 0);
  const q = useQuery({
    queryKey: ['feature-page', def.path, keyword],
    queryFn: ({ signal }) => probe!.load(keyword, signal),
    enabled,
    retry: false,
  });

  let body;
  if (!probe) body = <NotAvailable />;
  else if (probe.needsKeyword && !keyword) body = <Typography.Paragraph type="secondary">{t('common.searchHint')}</Typography.Paragraph>;
  else if (q.isLoading) body = <Spin />;
  else if (q.isError)
    body = isNotAvailable(q.error) ? (
      <NotAvailable />
    ) : (
      <div data-testid="load-failed">
        <Result status="error" title={t('common.loadFailed')} subTitle={errorMessage(q.error)} />
      </div>
    );
  else {
    const rows = rowsOf((q.data as { data?: unknown } | undefined)?.data);
    body = (
      <Table<Row>
        rowKey={(r) => pick(r, ['instanceId', 'id', 'shareId', 'roleId', 'configId', 'menuId']) || JSON.stringify(r)}
        dataSource={rows}
        pagination={{ pageSize: 20, pageSizeOptions: [10, 20, 30, 40, 50, 100], showSizeChanger: true }}
        columns={[
          { title: t('common.column.name'), key: 'name', render: (_v, r) => pick(r, NAME_FIELDS) },
          { title: t('common.column.time'), key: 'time', render: (_v, r) => formatDate(pick(r, TIME_FIELDS)) },
        ]}
      />
    );
  }
  return (
    <div className="hcs-feature-page" data-testid="feature-page">
      <Typography.Title level={4}>{t(def.nameKey)}</Typography.Title>
      {probe?.needsKeyword && (
        <Input.Search allowClear placeholder={t('common.searchPlaceholder')} onSearch={(v) => setKeyword(v.trim())} style={{ maxWidth: 360, marginBottom: 16 }} />
      )}
      {body}
    </div>
  );
}
