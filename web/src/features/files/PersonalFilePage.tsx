// /personalFile: the generic list screen on the user's personal space of the NetDisk library, plus the transfer
// panel (opened from here or from the header's transfer list).
import { useMemo } from 'react';
import { useUserInfo } from '../../app/session.ts';
import { getTransferStore } from '../transfers/runtime.ts';
import { TransferPanel } from '../transfers/TransferPanel.tsx';
import '../transfers/browser-engine.ts';
import { FileBrowser } from './FileBrowser.tsx';

export default function PersonalFilePage() {
  const user = useUserInfo();
  const owner = user?.userId ?? 'anonymous';
  const store = useMemo(() => getTransferStore(owner), [owner]);
  return (
    <>
      <FileBrowser libCode="NetDisk" instanceType="1" store={store} />
      <TransferPanel store={store} />
    </>
  );
}
