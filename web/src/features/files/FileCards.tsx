// Icon-card view (spec 2): preview (not for folders), download, delete and a more-menu per card.
import { useRef, type HTMLAttributes } from 'react';
import { Card, Checkbox, Dropdown, Tooltip, Typography } from 'antd';
import { DeleteOutlined, DownloadOutlined, EyeOutlined, FileOutlined, FolderFilled, MoreOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { Instance } from '../../api/gen/model/instance.ts';
import { formatSize } from '../../shared/format.ts';
import { cannotDelete, FavouriteStar, LabelTags, moreMenuItems, type RowAction } from './FileTable.tsx';
import { clickSelect } from './selection.ts';
import { FileThumb } from './FileThumb.tsx';

export function FileCards({
  rows,
  selected,
  onSelect,
  onAction,
  itemProps,
}: {
  rows: Instance[];
  selected: Instance[];
  onSelect: (r: Instance[]) => void;
  onAction: (a: RowAction, i: Instance) => void;
  /** The folder screen's gestures on a card: context menu, drag and drop. */
  itemProps?: (r: Instance) => HTMLAttributes<HTMLElement>;
}) {
  const { t } = useTranslation();
  const ids = new Set(selected.map((s) => s.instanceId));
  const anchor = useRef<string | undefined>(undefined);
  const toggle = (r: Instance, shift: boolean) => {
    onSelect(clickSelect(rows, selected, r, anchor.current, shift));
    if (!shift) anchor.current = r.instanceId;
  };
  return (
    <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(170px, 1fr))', gap: 12 }} data-testid="file-cards">
      {rows.map((r) => (
        <Card
          key={r.instanceId}
          size="small"
          data-testid={`card-${r.instanceName}`}
          data-row-key={r.instanceId}
          {...itemProps?.(r)}
          actions={[
            r.classifierId === 'File' ? (
              <Tooltip title={t('files.preview')} key="p">
                <EyeOutlined onClick={() => onAction('preview', r)} />
              </Tooltip>
            ) : null,
            <Tooltip title={t('files.download')} key="d">
              <DownloadOutlined onClick={() => onAction('download', r)} />
            </Tooltip>,
            <Tooltip title={t('files.delete')} key="x">
              <DeleteOutlined onClick={() => !cannotDelete(r) && onAction('delete', r)} style={cannotDelete(r) ? { opacity: 0.3, cursor: 'not-allowed' } : undefined} />
            </Tooltip>,
            <FavouriteStar key="f" item={r} onAction={onAction} />,
            <Dropdown key="m" menu={{ items: moreMenuItems(t, r, onAction) }} trigger={['click']}>
              <MoreOutlined aria-label={t('files.more')} />
            </Dropdown>,
          ].filter(Boolean)}
        >
          <Checkbox
            checked={ids.has(r.instanceId)}
            onClick={(e) => toggle(r, e.shiftKey)}
            style={{ position: 'absolute', top: 8, left: 8 }} aria-label={r.instanceName} />
          <div style={{ textAlign: 'center', cursor: 'pointer' }} onDoubleClick={() => onAction('open', r)} onClick={() => r.classifierId === 'Folder' && onAction('open', r)}>
            {r.classifierId === 'Folder' ? <FolderFilled style={{ fontSize: 48, color: '#e8a33d' }} /> : <FileThumb row={r} size={256} box={96} fallback={<FileOutlined style={{ fontSize: 48 }} />} />}
            <Typography.Paragraph ellipsis={{ rows: 2, tooltip: r.instanceName }} style={{ marginTop: 8, marginBottom: 0 }}>
              {r.instanceName}
            </Typography.Paragraph>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {r.classifierId === 'Folder' ? '\u00a0' : formatSize(r.fSize)}
            </Typography.Text>
            <div>
              <LabelTags item={r} />
            </div>
          </div>
        </Card>
      ))}
    </div>
  );
}
