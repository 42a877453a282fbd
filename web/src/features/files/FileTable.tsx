import { Button, Dropdown, Space, Table, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { FileOutlined, FolderFilled, MoreOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { Instance } from '../../api/gen/model/instance.ts';
import { formatDate, formatSize } from '../../shared/format.ts';
import type { SortField, SortOrder } from './list-state.ts';
import { FileThumb } from './FileThumb.tsx';

const NAME_MIN_WIDTH = 220;
const ACTIONS_WIDTH = 190;

export type RowAction = 'open' | 'preview' | 'download' | 'delete' | 'rename' | 'move' | 'copy' | 'properties';

export const isBlocked = (i: Instance): boolean => i.editIsDisabled === true || i.isDisabled === true;

/** The more-menu shared by rows and cards. Favourite and label stay hidden until those features exist. */
export function moreMenuItems(t: (k: string) => string, item: Instance, onAction: (a: RowAction, i: Instance) => void) {
  const blocked = isBlocked(item);
  return [
    { key: 'copy', label: t('files.copy'), onClick: () => onAction('copy', item) },
    { key: 'move', label: t('files.move'), disabled: blocked, onClick: () => onAction('move', item) },
    { key: 'rename', label: t('files.rename'), disabled: blocked, onClick: () => onAction('rename', item) },
    { key: 'properties', label: t('files.properties'), onClick: () => onAction('properties', item) },
  ];
}

export interface FileTableProps {
  rows: Instance[];
  selected: Instance[];
  onSelect: (rows: Instance[]) => void;
  onAction: (a: RowAction, i: Instance) => void;
  sortField: SortField;
  sortOrder: SortOrder;
  onSort: (f: SortField, o: SortOrder) => void;
  loading: boolean;
}

export function FileTable({ rows, selected, onSelect, onAction, sortField, sortOrder, onSort, loading }: FileTableProps) {
  const { t } = useTranslation();
  const order = (f: SortField) => (sortField === f ? (sortOrder === 'asc' ? 'ascend' : 'descend') : null);
  const columns: ColumnsType<Instance> = [
    {
      title: t('files.name'),
      dataIndex: 'instanceName',
      key: 'instanceName',
      sorter: true,
      sortOrder: order('instanceName'),
      ellipsis: true,
      // The name is what a row is: it keeps its width and its place when the window narrows; the other columns scroll.
      minWidth: NAME_MIN_WIDTH,
      fixed: 'left',
      render: (_: unknown, r) => (
        <Space>
          {r.classifierId === 'Folder' ? <FolderFilled style={{ color: '#e8a33d' }} /> : <FileThumb row={r} size={64} box={20} fallback={<FileOutlined />} />}
          <Typography.Link onClick={() => onAction('open', r)} data-testid={`row-name-${r.instanceName}`}>
            {r.instanceName}
          </Typography.Link>
        </Space>
      ),
    },
    { title: t('files.size'), dataIndex: 'fSize', key: 'fSize', width: 120, sorter: true, sortOrder: order('fSize'), render: (v: number, r) => (r.classifierId === 'Folder' ? '-' : formatSize(v)) },
    { title: t('files.createTime'), dataIndex: 'createTime', key: 'createTime', width: 180, sorter: true, sortOrder: order('createTime'), render: (v: number) => formatDate(v) },
    {
      title: t('files.actions'),
      key: 'actions',
      width: ACTIONS_WIDTH,
      fixed: 'right',
      render: (_: unknown, r) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => onAction('download', r)} data-testid={`row-download-${r.instanceName}`}>
            {t('files.download')}
          </Button>
          <Button type="link" size="small" danger disabled={isBlocked(r)} onClick={() => onAction('delete', r)} data-testid={`row-delete-${r.instanceName}`}>
            {t('files.delete')}
          </Button>
          <Dropdown menu={{ items: moreMenuItems(t, r, onAction) }} trigger={['click']}>
            <Button type="link" size="small" icon={<MoreOutlined />} aria-label={t('files.more')} data-testid={`row-more-${r.instanceName}`} />
          </Dropdown>
        </Space>
      ),
    },
  ];
  return (
    <Table<Instance>
      rowKey="instanceId"
      size="middle"
      columns={columns}
      dataSource={rows}
      loading={loading}
      pagination={false}
      scroll={{ x: NAME_MIN_WIDTH + 120 + 180 + ACTIONS_WIDTH + 48 }}
      rowSelection={{ selectedRowKeys: selected.map((s) => s.instanceId), onChange: (_, sel) => onSelect(sel), fixed: 'left' }}
      onChange={(_p, _f, sorter) => {
        const s = Array.isArray(sorter) ? sorter[0] : sorter;
        const key = (s?.columnKey ?? 'instanceName') as SortField;
        onSort(s?.order ? key : 'instanceName', s?.order === 'descend' ? 'desc' : 'asc');
      }}
      data-testid="file-table"
    />
  );
}
