// /logManage (issue #18): the operation log, filtered on the server; exports are plain links the browser downloads
// (the server streams them), and clearing asks first. Pages go by the server's keyset cursor, newest first.
import './strings.ts';
import AdminOnly from './AdminOnly.tsx';
import { useState } from 'react';
import { Button, DatePicker, Input, InputNumber, Select, Space, Table, Tag, Typography } from 'antd';
import type { Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { clearOptLog, getListOptTypesQueryKey, getPageSysOptLogQueryKey, listOptTypes, pageSysOptLog } from '../../api/gen/admin-console/admin-console.ts';
import type { OpLog } from '../../api/gen/model/opLog.ts';
import type { PageSysOptLogParams } from '../../api/gen/model/pageSysOptLogParams.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate } from '../../shared/format.ts';
import { confirmDialog, toastError, toastSuccess } from '../../shared/notify.ts';

type Filters = Omit<PageSysOptLogParams, 'pageNo' | 'pageSize' | 'cursor'>;
const PAGE_SIZE = 20;

/** The export link of the filters (a GET the browser follows with its session cookie). */
export function exportHref(f: Filters, format: 'csv' | 'xlsx'): string {
  const q = new URLSearchParams({ format });
  for (const [k, v] of Object.entries(f)) if (v !== undefined && v !== '') q.set(k, String(v));
  return `/hcs/controller/System/downloadOptLog?${q}`;
}

function LogManageScreen() {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<Filters>({});
  const [range, setRange] = useState<[Dayjs | null, Dayjs | null] | null>(null);
  const [filters, setFilters] = useState<Filters>({});
  // Cursors of the pages seen so far: going back is popping one.
  const [cursors, setCursors] = useState<string[]>([]);
  const params: PageSysOptLogParams = { ...filters, pageSize: PAGE_SIZE, ...(cursors.length ? { cursor: cursors[cursors.length - 1] } : {}) };
  const logs = useQuery({ queryKey: getPageSysOptLogQueryKey(params), queryFn: async ({ signal }) => (await pageSysOptLog(params, { signal, quiet: true })).data });
  const types = useQuery({ queryKey: getListOptTypesQueryKey(), queryFn: async ({ signal }) => (await listOptTypes({ signal, quiet: true })).data ?? [] });
  const [clearDays, setClearDays] = useState<number | null>(90);
  // Types are operation ids (and share.* for visitors): the common ones read as words, any other as its id, which is
  // also what the exports carry.
  const typeLabel = (v: string) => t(`adminConsole.optType.${v}`, { defaultValue: v });

  const search = () => {
    setCursors([]);
    setFilters({
      ...Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== undefined && v !== '')),
      ...(range?.[0] ? { since: range[0].startOf('day').valueOf() } : {}),
      ...(range?.[1] ? { until: range[1].endOf('day').valueOf() + 1 } : {}),
    });
  };
  const clear = () =>
    confirmDialog({
      title: t('adminConsole.logs.clearConfirm'),
      content: (
        <Space>
          {t('adminConsole.logs.clearBefore')}
          <InputNumber min={0} max={36500} defaultValue={90} onChange={(v) => setClearDays(v)} addonAfter={t('adminConsole.logs.days')} />
        </Space>
      ),
      okText: t('files.ok'),
      cancelText: t('files.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          const body = clearDays ? { before: Date.now() - clearDays * 86_400_000 } : {};
          const r = await clearOptLog(body, { quiet: true });
          toastSuccess(t('adminConsole.logs.cleared', { count: r.data?.cleared ?? 0 }));
          setCursors([]);
          void logs.refetch();
        } catch (err) {
          toastError(errorMessage(err));
        }
      },
    });
  const page = logs.data;

  return (
    <div data-testid="log-manage-page">
      <Typography.Title level={4}>{t('routes.logManage')}</Typography.Title>
      <Space wrap style={{ marginBottom: 12 }}>
        <Input allowClear placeholder={t('adminConsole.logs.user')} value={draft.userName ?? ''} onChange={(e) => setDraft({ ...draft, userName: e.target.value })} style={{ width: 140 }} data-testid="log-user" />
        <Select allowClear showSearch placeholder={t('adminConsole.logs.type')} value={draft.optType} onChange={(v) => setDraft({ ...draft, optType: v })} style={{ width: 200 }} optionFilterProp="label" options={(types.data ?? []).map((v) => ({ value: v, label: typeLabel(v) }))} data-testid="log-type" />
        <Select allowClear placeholder={t('adminConsole.logs.result')} value={draft.result} onChange={(v) => setDraft({ ...draft, result: v })} style={{ width: 120 }} options={(['success', 'failure'] as const).map((v) => ({ value: v, label: t(`adminConsole.enum.optResult.${v}`) }))} />
        <DatePicker.RangePicker value={range} onChange={(v) => setRange(v)} />
        <Input allowClear placeholder={t('adminConsole.logs.keyword')} value={draft.keyword ?? ''} onChange={(e) => setDraft({ ...draft, keyword: e.target.value })} style={{ width: 180 }} data-testid="log-keyword" />
        <Button type="primary" onClick={search} data-testid="log-search">{t('adminConsole.logs.search')}</Button>
        <Button onClick={() => { setDraft({}); setRange(null); setFilters({}); setCursors([]); }}>{t('adminConsole.logs.reset')}</Button>
      </Space>
      <Space style={{ marginBottom: 12 }}>
        <Button href={exportHref(filters, 'csv')} data-testid="log-export-csv">{t('adminConsole.logs.exportCsv')}</Button>
        <Button href={exportHref(filters, 'xlsx')} data-testid="log-export-xlsx">{t('adminConsole.logs.exportXlsx')}</Button>
        <Button danger onClick={clear}>{t('adminConsole.logs.clear')}</Button>
        {page && <Typography.Text type="secondary">{page.totalCapped ? t('adminConsole.logs.totalCapped', { count: page.total }) : t('files.total', { count: page.total, total: page.total })}</Typography.Text>}
      </Space>
      <Table<OpLog>
        rowKey="id"
        size="small"
        loading={logs.isLoading}
        dataSource={page?.list ?? []}
        pagination={false}
        columns={[
          { title: t('adminConsole.logs.time'), dataIndex: 'optTime', width: 170, render: (v: number) => formatDate(v) },
          { title: t('adminConsole.logs.user'), dataIndex: 'userName', width: 120 },
          { title: t('adminConsole.logs.type'), dataIndex: 'optType', width: 180, render: (v: string) => typeLabel(v) },
          { title: t('adminConsole.logs.object'), key: 'object', render: (_: unknown, l) => l.optObjName || l.optObj },
          { title: t('adminConsole.logs.result'), dataIndex: 'result', width: 90, render: (v: string) => <Tag color={v === 'success' ? 'green' : 'red'}>{t(`adminConsole.enum.optResult.${v}`)}</Tag> },
          { title: t('adminConsole.logs.ip'), dataIndex: 'ip', width: 130 },
          { title: t('adminConsole.logs.detail'), dataIndex: 'detail', width: 120 },
        ]}
      />
      <Space style={{ marginTop: 12 }}>
        <Button disabled={cursors.length === 0} onClick={() => setCursors([])}>{t('adminConsole.refresh')}</Button>
        <Button disabled={!page?.nextCursor} onClick={() => page?.nextCursor && setCursors([...cursors, page.nextCursor])} data-testid="log-next">{t('adminConsole.logs.next')}</Button>
      </Space>
    </div>
  );
}

export default function LogManagePage() {
  return (
    <AdminOnly path="/logManage">
      <LogManageScreen />
    </AdminOnly>
  );
}
