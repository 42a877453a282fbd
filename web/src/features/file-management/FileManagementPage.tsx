// /fileManagement (issue #16 item 7, administrators): every file with owner, space, size and type, filtered and
// paged; recycle live files or restore recycled ones, one by one or the selection.
import { useState } from 'react';
import { Button, Form, Input, InputNumber, Pagination, Select, Space, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { pageFilesForManager, recycleFilesForManager, restoreFilesForManager } from '../../api/gen/files/files.ts';
import type { ManagedFile } from '../../api/gen/model/managedFile.ts';
import type { PageFilesForManagerParams } from '../../api/gen/model/pageFilesForManagerParams.ts';
import type { BatchResultResponse } from '../../api/gen/model/batchResultResponse.ts';
import { codeMessage, errorMessage } from '../../shared/error-message.ts';
import { formatDate, formatSize } from '../../shared/format.ts';
import { toastError, toastSuccess, toastWarning } from '../../shared/notify.ts';

const MB = 1024 * 1024;
const CATEGORIES = [2, 3, 4, 5, 6, 7, 8, 9] as const;
type Filters = { keyword?: string; spaceKind?: 'user' | 'group' | 'dept'; fileFilter?: number; minMb?: number | null; maxMb?: number | null; state?: 'live' | 'recycled' | 'all' };

export default function FileManagementPage() {
  const { t } = useTranslation();
  const [filters, setFilters] = useState<Filters>({ state: 'live' });
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [selected, setSelected] = useState<ManagedFile[]>([]);
  const params: PageFilesForManagerParams = {
    ...page,
    ...(filters.keyword?.trim() ? { keyword: filters.keyword.trim() } : {}),
    ...(filters.spaceKind ? { spaceKind: filters.spaceKind } : {}),
    ...(filters.fileFilter ? { fileFilter: filters.fileFilter } : {}),
    ...(filters.minMb != null ? { minSize: Math.round(filters.minMb * MB) } : {}),
    ...(filters.maxMb != null ? { maxSize: Math.round(filters.maxMb * MB) } : {}),
    ...(filters.state ? { state: filters.state } : {}),
  };
  const query = useQuery({
    queryKey: ['pageFilesForManager', params],
    queryFn: async ({ signal }) => (await pageFilesForManager(params, { signal, quiet: true })).data,
    placeholderData: keepPreviousData,
  });
  const rows = query.data?.list ?? [];

  const act = async (kind: 'recycle' | 'restore', items: ManagedFile[]) => {
    if (items.length === 0) {
      toastWarning(t('files.selectFirst'));
      return;
    }
    try {
      const call = kind === 'recycle' ? recycleFilesForManager : restoreFilesForManager;
      const res: BatchResultResponse = await call({ ids: items.map((i) => i.instanceId).join(',') }, { quiet: true });
      const done = res.data?.done.length ?? 0;
      if (done > 0) toastSuccess(t(kind === 'recycle' ? 'fileManagement.recycled' : 'fileManagement.restored', { count: done }));
      const failed = res.data?.failed ?? [];
      if (failed.length > 0) {
        const reasons = [...new Set(failed.map((f) => codeMessage(f.code) ?? f.msg))];
        toastWarning(t('files.partlyFailed', { count: failed.length, reason: reasons.join(t('files.reasonSeparator')) }));
      }
      setSelected([]);
      void query.refetch();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };

  return (
    <div data-testid="file-management-page">
      <Typography.Title level={4}>{t('routes.fileManagement')}</Typography.Title>
      <Form<Filters>
        layout="inline"
        initialValues={{ state: 'live' }}
        style={{ marginBottom: 12, rowGap: 8 }}
        onFinish={(v) => {
          setFilters(v);
          setPage((p) => ({ ...p, pageNo: 1 }));
          setSelected([]);
        }}
      >
        <Form.Item name="keyword" label={t('search.keyword')}>
          <Input allowClear maxLength={255} style={{ width: 180 }} data-testid="fm-keyword" />
        </Form.Item>
        <Form.Item name="spaceKind" label={t('fileManagement.space')}>
          <Select allowClear style={{ width: 120 }} options={(['user', 'group', 'dept'] as const).map((k) => ({ value: k, label: t(`fileManagement.spaceKind.${k}`) }))} />
        </Form.Item>
        <Form.Item name="fileFilter" label={t('search.category')}>
          <Select allowClear style={{ width: 110 }} options={CATEGORIES.map((c) => ({ value: c, label: t(`files.category.${c}`) }))} />
        </Form.Item>
        <Form.Item label={t('search.size')}>
          <Space.Compact>
            <Form.Item name="minMb" noStyle>
              <InputNumber min={0} placeholder={t('search.minMb')} style={{ width: 110 }} />
            </Form.Item>
            <Form.Item name="maxMb" noStyle>
              <InputNumber min={0} placeholder={t('search.maxMb')} style={{ width: 110 }} />
            </Form.Item>
          </Space.Compact>
        </Form.Item>
        <Form.Item name="state" label={t('fileManagement.state')}>
          <Select style={{ width: 110 }} options={(['live', 'recycled', 'all'] as const).map((k) => ({ value: k, label: t(`fileManagement.states.${k}`) }))} />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" data-testid="fm-apply">
            {t('search.search')}
          </Button>
        </Form.Item>
      </Form>
      <Space style={{ marginBottom: 12 }}>
        <Button danger onClick={() => void act('recycle', selected.filter((s) => !s.deleted))} data-testid="fm-recycle-selected">
          {t('fileManagement.recycle')}
        </Button>
        <Button onClick={() => void act('restore', selected.filter((s) => s.deleted))} data-testid="fm-restore-selected">
          {t('recycle.restore')}
        </Button>
      </Space>
      {query.isError && !query.data ? (
        <Typography.Text type="danger" data-testid="list-error">
          {errorMessage(query.error)}
        </Typography.Text>
      ) : (
        <Table<ManagedFile>
          rowKey="instanceId"
          size="middle"
          dataSource={rows}
          loading={query.isFetching}
          pagination={false}
          scroll={{ x: 1100 }}
          rowSelection={{ selectedRowKeys: selected.map((s) => s.instanceId), onChange: (_, sel) => setSelected(sel) }}
          columns={[
            { title: t('files.name'), dataIndex: 'instanceName', ellipsis: true, render: (v: string) => <span data-testid={`fm-row-${v}`}>{v}</span> },
            { title: t('files.owner'), dataIndex: 'ownerName', width: 130, ellipsis: true },
            { title: t('fileManagement.space'), key: 'space', width: 180, ellipsis: true, render: (_: unknown, r) => `${t(`fileManagement.spaceKind.${r.spaceKind}`)} · ${r.spaceName}` },
            { title: t('files.size'), dataIndex: 'fSize', width: 110, render: (v: number) => formatSize(v) },
            { title: t('files.type'), dataIndex: 'fType', width: 90, render: (v: string) => v || '-' },
            { title: t('files.updateTime'), dataIndex: 'updateTime', width: 170, render: (v: number) => formatDate(v) },
            { title: t('fileManagement.state'), key: 'state', width: 100, render: (_: unknown, r) => (r.deleted ? <Tag color="red">{t('fileManagement.states.recycled')}</Tag> : <Tag color="green">{t('fileManagement.states.live')}</Tag>) },
            {
              title: t('files.actions'),
              key: 'actions',
              width: 110,
              render: (_: unknown, r) =>
                r.deleted ? (
                  <Button type="link" size="small" onClick={() => void act('restore', [r])}>
                    {t('recycle.restore')}
                  </Button>
                ) : (
                  <Button type="link" size="small" danger onClick={() => void act('recycle', [r])}>
                    {t('fileManagement.recycle')}
                  </Button>
                ),
            },
          ]}
        />
      )}
      <Pagination
        style={{ marginTop: 12, justifyContent: 'flex-end' }}
        current={page.pageNo}
        pageSize={page.pageSize}
        total={query.data?.total ?? 0}
        pageSizeOptions={['10', '20', '30', '40', '50', '100']}
        showSizeChanger
        showTotal={(n) => t('files.total', { total: n, count: n })}
        onChange={(pageNo, pageSize) => setPage(pageSize !== page.pageSize ? { pageNo: 1, pageSize } : { pageNo, pageSize })}
      />
    </div>
  );
}
