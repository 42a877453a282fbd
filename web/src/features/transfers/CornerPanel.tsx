// The transfer panel folded into the window's corner (issue #22): while files go up or down with the full panel
// closed, a small card shows the overall progress and opens the full panel, without covering the list.
import { useCallback, useEffect, useRef, useSyncExternalStore } from 'react';
import { Button, Card, Progress, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useTransferSnapshot } from '../../shared/transfers/runtime.ts';
import { CORNER_OFFSET, reportCornerHeight } from '../../shared/transfers/corner-inset.ts';
import type { DownloadStatus, TransferStore, UploadStatus } from '../../shared/transfers/transfer-store.ts';
import { addStrings } from '../../shared/page-strings.ts';
import zhCN from './corner.zh_CN.json';
import enUS from './corner.en_US.json';

addStrings({ zh_CN: zhCN, en_US: enUS });

// Queued or moving: paused, failed and finished transfers wait in the full panel for the user.
const ACTIVE = new Set<UploadStatus | DownloadStatus>(['ready', 'checking', 'uploading', 'merging', 'wait', 'resume', 'refresh']);

// Below this width every row of height counts (the list is already at its minimum at 800x600): the card folds into
// a one-line pill, so the list gives up less of itself to make room for it.
const NARROW = '(max-width: 1023px)';
const narrowQuery = () => window.matchMedia(NARROW);
const useNarrow = () =>
  useSyncExternalStore(
    (l) => {
      const q = narrowQuery();
      q.addEventListener('change', l);
      return () => q.removeEventListener('change', l);
    },
    () => narrowQuery().matches,
  );

export function CornerPanel({ store, onExpand }: { store: TransferStore; onExpand: () => void }) {
  const { t } = useTranslation();
  const snap = useTransferSnapshot(store);
  const narrow = useNarrow();
  const observer = useRef<ResizeObserver | undefined>(undefined);
  // The list reserves the card's height while it shows (corner-inset.ts); a callback ref, as the card comes and goes.
  const measured = useCallback((el: HTMLDivElement | null) => {
    observer.current?.disconnect();
    observer.current = undefined;
    if (!el) return reportCornerHeight(0);
    reportCornerHeight(el.getBoundingClientRect().height);
    observer.current = new ResizeObserver(() => reportCornerHeight(el.getBoundingClientRect().height));
    observer.current.observe(el);
  }, []);
  useEffect(() => () => reportCornerHeight(0), []);
  const rows: { status: UploadStatus | DownloadStatus; size: number; loaded: number }[] = [...snap.uploads, ...snap.downloads];
  const active = rows.filter((r) => ACTIVE.has(r.status));
  if (active.length === 0) return null;
  const total = active.reduce((n, r) => n + r.size, 0);
  const loaded = active.reduce((n, r) => n + Math.min(r.loaded, r.size), 0);
  const percent = total > 0 ? Math.floor((loaded / total) * 100) : 0;
  const overall = t('transferCorner.overall', { done: rows.length - active.length, total: rows.length });
  const expand = (
    <Button type="link" size="small" onClick={onExpand} data-testid="transfer-corner-expand">
      {t('transferCorner.expand')}
    </Button>
  );
  const place = { position: 'fixed', right: CORNER_OFFSET, bottom: CORNER_OFFSET, zIndex: 900, boxShadow: '0 4px 12px rgba(0,0,0,0.15)' } as const;
  if (narrow)
    return (
      <Card
        ref={measured}
        size="small"
        data-testid="transfer-corner"
        aria-label={t('transfer.title')}
        title={null}
        style={{ ...place, width: 300, borderRadius: 20 }}
        styles={{ body: { display: 'flex', alignItems: 'center', gap: 8, padding: '4px 4px 4px 16px' } }}
      >
        <Progress percent={percent} size="small" style={{ flex: 1, margin: 0 }} data-testid="transfer-corner-progress" />
        <Typography.Text type="secondary" style={{ fontSize: 12, whiteSpace: 'nowrap' }}>
          {overall}
        </Typography.Text>
        {expand}
      </Card>
    );
  return (
    <Card ref={measured} size="small" data-testid="transfer-corner" title={t('transfer.title')} extra={expand} style={{ ...place, width: 260 }}>
      <Progress percent={percent} size="small" data-testid="transfer-corner-progress" />
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {overall}
      </Typography.Text>
    </Card>
  );
}
