// The transfer panel folded into the window's corner (issue #22): while files go up or down with the full panel
// closed, a small card shows the overall progress and opens the full panel, without covering the list.
import { Button, Card, Progress, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useTransferSnapshot } from '../../shared/transfers/runtime.ts';
import type { DownloadStatus, TransferStore, UploadStatus } from '../../shared/transfers/transfer-store.ts';
import { addStrings } from '../../shared/page-strings.ts';
import zhCN from './corner.zh_CN.json';
import enUS from './corner.en_US.json';

addStrings({ zh_CN: zhCN, en_US: enUS });

// Queued or moving: paused, failed and finished transfers wait in the full panel for the user.
const ACTIVE = new Set<UploadStatus | DownloadStatus>(['ready', 'checking', 'uploading', 'merging', 'wait', 'resume', 'refresh']);

export function CornerPanel({ store, onExpand }: { store: TransferStore; onExpand: () => void }) {
  const { t } = useTranslation();
  const snap = useTransferSnapshot(store);
  const rows: { status: UploadStatus | DownloadStatus; size: number; loaded: number }[] = [...snap.uploads, ...snap.downloads];
  const active = rows.filter((r) => ACTIVE.has(r.status));
  if (active.length === 0) return null;
  const total = active.reduce((n, r) => n + r.size, 0);
  const loaded = active.reduce((n, r) => n + Math.min(r.loaded, r.size), 0);
  return (
    <Card
      size="small"
      data-testid="transfer-corner"
      title={t('transfer.title')}
      extra={
        <Button type="link" size="small" onClick={onExpand} data-testid="transfer-corner-expand">
          {t('transferCorner.expand')}
        </Button>
      }
      style={{ position: 'fixed', right: 16, bottom: 16, width: 260, zIndex: 900, boxShadow: '0 4px 12px rgba(0,0,0,0.15)' }}
    >
      <Progress percent={total > 0 ? Math.floor((loaded / total) * 100) : 0} size="small" data-testid="transfer-corner-progress" />
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('transferCorner.overall', { done: rows.length - active.length, total: rows.length })}
      </Typography.Text>
    </Card>
  );
}
