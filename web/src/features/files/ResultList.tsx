// Items from many folders on the generic list's table and pagination (favourites, search, a label's items): each
// opens in its own space and folder, and carries the shared row actions (favourite, labels, versions, properties).
import { useState } from 'react';
import { Empty, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import type { Instance } from '../../api/gen/model/instance.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { ListPagination } from '../../shared/ListPagination.tsx';
import { FileTable, type RowAction } from './FileTable.tsx';
import { locationOf, useItemActions } from './item-actions.tsx';
import { FOLDER_PARAM, PAGE_SIZES } from './list-state.ts';

const ONLY: readonly RowAction[] = ['favourite', 'label', 'versions', 'properties'];

/** The screen of a space (instanceType) where its folders are listed. */
const SPACE_PATH: Readonly<Record<string, string>> = { '1': '/personalFile', '2': '/groupFile', '3': '/departFile' };

/** Where an item opens: a folder itself, a file in the folder holding it. */
export function openPath(item: Instance): string {
  const base = SPACE_PATH[item.instanceType] ?? '/personalFile';
  const folder = item.classifierId === 'Folder' ? item.instanceId : item.parentId;
  return folder && folder !== '0' ? `${base}?${FOLDER_PARAM}=${encodeURIComponent(folder)}` : base;
}

export interface ResultListProps {
  rows: Instance[] | undefined;
  total: number;
  /** False when the server stopped counting at `total` (a search matching more): shown as "more than". */
  totalExact?: boolean;
  pageNo: number;
  pageSize: number;
  onPage: (pageNo: number, pageSize: number) => void;
  loading: boolean;
  error: unknown;
  onChanged: () => void;
  emptyText: string;
}

export function ResultList({ rows, total, totalExact = true, pageNo, pageSize, onPage, loading, error, onChanged, emptyText }: ResultListProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [selected, setSelected] = useState<Instance[]>([]);
  const actions = useItemActions({ onChanged });
  const onAction = (a: RowAction, item: Instance) => {
    if (actions.handle(a, item)) return;
    if (a === 'open' || a === 'preview') navigate(openPath(item));
  };
  return (
    <>
      {error && !rows ? (
        <Typography.Text type="danger" data-testid="list-error">
          {errorMessage(error)}
        </Typography.Text>
      ) : loading && !rows ? (
        <Spin />
      ) : (rows ?? []).length === 0 ? (
        <Empty description={emptyText} />
      ) : (
        <FileTable
          rows={rows ?? []}
          selected={selected}
          onSelect={setSelected}
          onAction={onAction}
          sortField="instanceName"
          sortOrder="asc"
          loading={loading}
          only={ONLY}
          extraColumn={{
            title: t('search.location'),
            key: 'location',
            width: 200,
            ellipsis: true,
            render: (r: Instance) => (
              <Typography.Link onClick={() => navigate(openPath(r))} data-testid={`row-location-${r.instanceName}`}>
                {locationOf(r)}
              </Typography.Link>
            ),
          }}
        />
      )}
      <ListPagination
        style={{ marginTop: 12 }}
        current={pageNo}
        pageSize={pageSize}
        total={total}
        pageSizeOptions={PAGE_SIZES}
        showTotal={(n) => (totalExact ? t('files.total', { total: n, count: n }) : t('search.totalAtLeast', { total: n }))}
        onChange={onPage}
        data-testid="pagination"
      />
      {actions.dialogs}
    </>
  );
}
