// Mounts the transfer panel once for the signed-in frame, so the header's transfer-list button opens it on every
// route (the panel listens to openTransferPanel itself). The store starts with the frame (counters, restored
// queue); the panel's code (antd's Drawer, Tabs, Table) loads on the first request to open it (issue #22 weight).
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { onTransferPanelRequest, openTransferPanel, type TransferTab } from '../../shared/transfer-counters.ts';
import { getTransferStore } from '../../shared/transfers/runtime.ts';

const TransferPanel = lazy(() => import('../../features/transfers/TransferPanel.tsx').then((m) => ({ default: m.TransferPanel })));

/** Passes on the request that mounted the panel: its effect runs after the panel's own, which subscribes. */
function FirstRequest({ tab }: { tab: TransferTab | undefined }) {
  useEffect(() => openTransferPanel(tab), [tab]);
  return null;
}

export function TransferHost({ userId }: { userId: string }) {
  const store = useMemo(() => getTransferStore(userId), [userId]);
  const [first, setFirst] = useState<{ tab: TransferTab | undefined }>();
  useEffect(() => (first ? undefined : onTransferPanelRequest((tab) => setFirst({ tab }))), [first]);
  if (!first) return null;
  return (
    <Suspense fallback={null}>
      <TransferPanel store={store} />
      <FirstRequest tab={first.tab} />
    </Suspense>
  );
}
