// /quickSearch and /searchPanel (issue #16 item 5): name search across every space the user may read; the panel adds
// the spec's filters (category 1-9, size and date ranges, label, owner). The keyword lives in the URL (?keyword=),
// so the search box of the files screen lands here and back/forward keep the search.
import { useState } from 'react';
import { Button, DatePicker, Form, Input, InputNumber, Select, Space, Tag, Typography } from 'antd';
import type { Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getSearchPageQueryKey, searchPage, searchUserPage } from '../../api/gen/files/files.ts';
import type { SearchPageParams } from '../../api/gen/model/searchPageParams.ts';
import { useLabels } from './labels.ts';
import { DEFAULT_PAGE_SIZE } from './list-state.ts';
import { ResultList } from './ResultList.tsx';

const MB = 1024 * 1024;
const CATEGORIES = [1, 2, 3, 4, 5, 6, 7, 8, 9] as const;

export interface SearchFilters {
  fileFilter?: number;
  minMb?: number | null;
  maxMb?: number | null;
  dates?: [Dayjs | null, Dayjs | null] | null;
  labelId?: string;
  ownerId?: string;
}

/** The search call's parameters for the panel's filters (sizes in MB on screen, bytes on the wire; whole days). */
export function filterParams(f: SearchFilters): SearchPageParams {
  const [from, to] = f.dates ?? [null, null];
  return {
    ...(f.fileFilter ? { fileFilter: f.fileFilter } : {}),
    ...(f.minMb != null ? { minSize: Math.round(f.minMb * MB) } : {}),
    ...(f.maxMb != null ? { maxSize: Math.round(f.maxMb * MB) } : {}),
    ...(from ? { updateFrom: from.startOf('day').valueOf() } : {}),
    ...(to ? { updateTo: to.endOf('day').valueOf() } : {}),
    ...(f.labelId ? { labelId: f.labelId } : {}),
    ...(f.ownerId ? { ownerId: f.ownerId } : {}),
  };
}

function OwnerSelect({ value, onChange }: { value?: string; onChange?: (v: string | undefined) => void }) {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const users = useQuery({
    queryKey: ['searchUserPage', keyword],
    queryFn: async ({ signal }) => (await searchUserPage({ keyword, pageSize: 20 }, { signal, quiet: true })).data?.list ?? [],
    enabled: keyword.trim().length > 0,
  });
  return (
    <Select
      allowClear
      showSearch
      filterOption={false}
      value={value}
      onChange={onChange}
      onSearch={setKeyword}
      placeholder={t('search.owner')}
      style={{ width: 180 }}
      options={(users.data ?? []).map((u) => ({ value: u.userId, label: u.userRealName ? `${u.userRealName} (${u.userName})` : u.userName }))}
      data-testid="search-owner"
    />
  );
}

export function SearchScreen({ advanced }: { advanced: boolean }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const keyword = params.get('keyword') ?? '';
  const [filters, setFilters] = useState<SearchFilters>({});
  const [page, setPage] = useState({ pageNo: 1, pageSize: DEFAULT_PAGE_SIZE });
  const [form] = Form.useForm<SearchFilters>();
  const labels = useLabels();
  const active = keyword.trim() !== '' || (advanced && Object.keys(filterParams(filters)).length > 0);
  const request: SearchPageParams = { ...(keyword.trim() ? { keyword: keyword.trim() } : {}), ...(advanced ? filterParams(filters) : {}), ...page };
  const query = useQuery({
    queryKey: getSearchPageQueryKey(request),
    queryFn: async ({ signal }) => (await searchPage(request, { signal, quiet: true })).data,
    enabled: active,
    placeholderData: keepPreviousData,
  });
  const setKeyword = (v: string) => {
    setPage((p) => ({ ...p, pageNo: 1 }));
    setParams(v.trim() ? { keyword: v.trim() } : {});
  };
  return (
    <div data-testid="search-page">
      <Typography.Title level={4}>{t(advanced ? 'routes.searchPanel' : 'routes.quickSearch')}</Typography.Title>
      <Input.Search
        key={keyword}
        defaultValue={keyword}
        allowClear
        enterButton={t('search.search')}
        placeholder={t('search.placeholder')}
        maxLength={255}
        style={{ maxWidth: 480, marginBottom: 12 }}
        onSearch={setKeyword}
        data-testid="search-keyword"
      />
      {advanced && (
        <Form
          form={form}
          layout="inline"
          style={{ marginBottom: 12, rowGap: 8 }}
          onFinish={(v) => {
            setPage((p) => ({ ...p, pageNo: 1 }));
            setFilters(v);
          }}
          data-testid="search-filters"
        >
          <Form.Item name="fileFilter" label={t('search.category')}>
            <Select allowClear style={{ width: 120 }} options={CATEGORIES.map((c) => ({ value: c, label: t(`files.category.${c}`) }))} data-testid="search-category" />
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
          <Form.Item name="dates" label={t('search.dateRange')}>
            <DatePicker.RangePicker placeholder={[t('search.from'), t('search.to')]} />
          </Form.Item>
          <Form.Item name="labelId" label={t('tags.labels')}>
            <Select
              allowClear
              style={{ width: 150 }}
              options={(labels.data ?? []).map((l) => ({ value: l.labelId, label: <Tag color={l.color}>{l.name}</Tag> }))}
              data-testid="search-label"
            />
          </Form.Item>
          <Form.Item name="ownerId" label={t('search.owner')}>
            <OwnerSelect />
          </Form.Item>
          <Form.Item>
            <Space>
              <Button type="primary" htmlType="submit" data-testid="search-apply">
                {t('search.search')}
              </Button>
              <Button
                onClick={() => {
                  form.resetFields();
                  setFilters({});
                }}
              >
                {t('search.reset')}
              </Button>
            </Space>
          </Form.Item>
        </Form>
      )}
      {active ? (
        <ResultList
          rows={query.data?.list}
          total={query.data?.total ?? 0}
          totalExact={query.data?.totalExact ?? true}
          pageNo={page.pageNo}
          pageSize={page.pageSize}
          onPage={(pageNo, pageSize) => setPage(pageSize !== page.pageSize ? { pageNo: 1, pageSize } : { pageNo, pageSize })}
          loading={query.isFetching}
          error={query.error}
          onChanged={() => void query.refetch()}
          emptyText={t('search.empty')}
        />
      ) : (
        <Typography.Text type="secondary" data-testid="search-hint">
          {t(advanced ? 'search.hintAdvanced' : 'search.hint')}
        </Typography.Text>
      )}
    </div>
  );
}

export function QuickSearchPage() {
  return <SearchScreen advanced={false} />;
}

export function SearchPanelPage() {
  return <SearchScreen advanced />;
}
