// Mounts the transfer panel once for the signed-in frame, so the header's transfer-list button opens it on every
// route (the panel listens to openTransferPanel itself).
import { useMemo } from 'react';
import { TransferPanel } from '../../features/transfers/TransferPanel.tsx';
import { getTransferStore } from '../../shared/transfers/runtime.ts';

export function TransferHost({ userId }: { userId: string }) {
  const store = useMemo(() => getTransferStore(userId), [userId]);
  return <TransferPanel store={store} />;
}
