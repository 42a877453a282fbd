import { memo, type HTMLAttributes } from 'react';
import { Button, Dropdown, Tag } from 'antd';
import { FileOutlined, FolderFilled, MoreOutlined, StarFilled, StarOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { Instance } from '../../api/gen/model/instance.ts';
import { formatDate, formatSize } from '../../shared/format.ts';
import { TextLink } from '../../shared/Text.tsx';
import { ListTable, nextSort, type ListColumn } from '../../shared/ListTable.tsx';
import type { SortField, SortOrder } from './list-state.ts';
import { FileThumb } from './FileThumb.tsx';
import { SyncBadge } from './SyncBadge.tsx';

const NAME_MIN_WIDTH = 220;
const ACTIONS_WIDTH = 190;
const LABELS_WIDTH = 160;
const REMARK_WIDTH = 160;

export type RowAction = 'open' | 'preview' | 'download' | 'delete' | 'rename' | 'move' | 'copy' | 'properties' | 'favourite' | 'label' | 'versions' | 'shareLink';

/** The row's rights as the server decided them: no `edit` (rename, move, remark) and no `delete`, each on its own. */
export const cannotEdit = (i: Instance): boolean => i.editIsDisabled === true;
export const cannotDelete = (i: Instance): boolean => i.isDisabled === true;

/**
 * The more-menu shared by rows and cards. `only` narrows it for screens that list items from many folders
 * (favourites, search), where moving or renaming would act on a folder the user is not looking at.
 */
export function moreMenuItems(t: (k: string) => string, item: Instance, onAction: (a: RowAction, i: Instance) => void, only?: readonly RowAction[]) {
  const blocked = cannotEdit(item);
  const all = [
    { key: 'copy' as const, label: t('files.copy'), onClick: () => onAction('copy', item) },
    { key: 'move' as const, label: t('files.move'), disabled: blocked, onClick: () => onAction('move', item) },
    { key: 'rename' as const, label: t('files.rename'), disabled: blocked, onClick: () => onAction('rename', item) },
    { key: 'favourite' as const, label: t(item.isFavourite ? 'favourites.remove' : 'favourites.add'), onClick: () => onAction('favourite', item) },
    { key: 'label' as const, label: t('tags.label'), onClick: () => onAction('label', item) },
    ...(item.classifierId === 'File' ? [{ key: 'versions' as const, label: t('versions.title'), onClick: () => onAction('versions', item) }] : []),
    { key: 'shareLink' as const, label: t('sharing.externalLink'), onClick: () => onAction('shareLink', item) },
    { key: 'properties' as const, label: t('files.properties'), onClick: () => onAction('properties', item) },
  ];
  return only ? all.filter((i) => only.includes(i.key)) : all;
}

/** The star that favourites or unfavourites an item in one click (rows and cards). */
export function FavouriteStar({ item, onAction }: { item: Instance; onAction: (a: RowAction, i: Instance) => void }) {
  const { t } = useTranslation();
  const on = item.isFavourite === true;
  const label = t(on ? 'favourites.remove' : 'favourites.add');
  // The browser's own tooltip (title): antd's Tooltip weighed 20 KB of JS gzip on the files screen for this alone.
  return (
    <span
      role="button"
      aria-pressed={on}
      aria-label={label}
      title={label}
      data-testid={`fav-${item.instanceName}`}
      style={{ cursor: 'pointer', color: on ? '#faad14' : '#bbb' }}
      onClick={(e) => {
        e.stopPropagation();
        onAction('favourite', item);
      }}
    >
      {on ? <StarFilled /> : <StarOutlined />}
    </span>
  );
}

/** The caller's labels on an item, in their colours. */
export function LabelTags({ item }: { item: Instance }) {
  return (
    <>
      {(item.labels ?? []).map((l) => (
        <Tag key={l.labelId} color={l.color} style={{ marginInlineEnd: 4 }}>
          {l.name}
        </Tag>
      ))}
    </>
  );
}

export interface FileTableProps {
  rows: Instance[];
  selected: Instance[];
  onSelect: (rows: Instance[]) => void;
  onAction: (a: RowAction, i: Instance) => void;
  sortField: SortField;
  sortOrder: SortOrder;
  onSort?: (f: SortField, o: SortOrder) => void;
  loading: boolean;
  /** More-menu entries on screens listing items from many folders; the delete button shows only with 'delete'. */
  only?: readonly RowAction[];
  /** A column after the name (the folder a search result or favourite is in). */
  extraColumn?: ListColumn<Instance>;
  /** The folder screen's row gestures: click to select, double-click, context menu, drag and drop. */
  rowProps?: (r: Instance) => HTMLAttributes<HTMLElement>;
  /** The table's height, header included, so it fits the window and the page itself does not scroll: the rows scroll. */
  height?: number;
}

const SIZE_WIDTH = 120;
const TIME_WIDTH = 180;
const rowKey = (r: Instance) => r.instanceId;

// Memoised: the files screen re-renders for its dialogs, menus and toasts, and every row and cell need not.
export const FileTable = memo(function FileTable({ rows, selected, onSelect, onAction, sortField, sortOrder, onSort, loading, only, extraColumn, rowProps, height }: FileTableProps) {
  const { t } = useTranslation();
  const order = (f: SortField) => (onSort ? (sortField === f ? sortOrder : null) : undefined);
  const columns: ListColumn<Instance>[] = [
    {
      title: t('files.name'),
      key: 'instanceName',
      sortOrder: order('instanceName'),
      // The name is what a row is: it keeps its width and its place when the window narrows; the other columns scroll.
      minWidth: NAME_MIN_WIDTH,
      fixed: 'left',
      render: (r) => (
        <span className="hcs-lt-name">
          {r.classifierId === 'Folder' ? <FolderFilled style={{ color: '#e8a33d' }} /> : <FileThumb row={r} size={64} box={20} fallback={<FileOutlined />} />}
          <TextLink onClick={() => onAction('open', r)} data-testid={`row-name-${r.instanceName}`} title={r.instanceName}>
            {r.instanceName}
          </TextLink>
          <FavouriteStar item={r} onAction={onAction} />
          <SyncBadge item={r} />
        </span>
      ),
    },
    ...(extraColumn ? [extraColumn] : []),
    { title: t('files.size'), key: 'fSize', width: SIZE_WIDTH, sortOrder: order('fSize'), render: (r) => (r.classifierId === 'Folder' ? '-' : formatSize(r.fSize)) },
    { title: t('files.createTime'), key: 'createTime', width: TIME_WIDTH, sortOrder: order('createTime'), render: (r) => formatDate(r.createTime) },
    { title: t('tags.labels'), key: 'labels', width: LABELS_WIDTH, render: (r) => <LabelTags item={r} /> },
    { title: t('tags.remark'), key: 'remark', width: REMARK_WIDTH, ellipsis: true, render: (r) => r.remark || '' },
    {
      title: t('files.actions'),
      key: 'actions',
      width: ACTIONS_WIDTH,
      fixed: 'right',
      render: (r) => (
        <span className="hcs-lt-actions">
          <Button type="link" size="small" onClick={() => onAction('download', r)} data-testid={`row-download-${r.instanceName}`}>
            {t('files.download')}
          </Button>
          {(!only || only.includes('delete')) && (
            <Button type="link" size="small" danger disabled={cannotDelete(r)} onClick={() => onAction('delete', r)} data-testid={`row-delete-${r.instanceName}`}>
              {t('files.delete')}
            </Button>
          )}
          <Dropdown menu={{ items: moreMenuItems(t, r, onAction, only) }} trigger={['click']}>
            <Button type="link" size="small" icon={<MoreOutlined />} aria-label={t('files.more')} data-testid={`row-more-${r.instanceName}`} />
          </Dropdown>
        </span>
      ),
    },
  ];
  return (
    <ListTable<Instance>
      rows={rows}
      rowKey={rowKey}
      columns={columns}
      loading={loading}
      height={height}
      scrollX={NAME_MIN_WIDTH + SIZE_WIDTH + TIME_WIDTH + LABELS_WIDTH + REMARK_WIDTH + ACTIONS_WIDTH + 48 + (extraColumn?.width ?? 0)}
      rowProps={rowProps}
      // Shift-click on a checkbox selects the run from the last one clicked (spec: multi-select with shift).
      selection={{ selected, onChange: onSelect, rowLabel: (r) => r.instanceName }}
      onSort={
        onSort &&
        ((key) => {
          // As antd's sorter did: ascending, descending, then back to the list's default order (by name, ascending).
          const next = nextSort(sortField === key ? sortOrder : null);
          onSort(next ? (key as SortField) : 'instanceName', next ?? 'asc');
        })
      }
      data-testid="file-table"
    />
  );
});
