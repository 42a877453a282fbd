// /personalFile: the generic list screen on the user's personal space of the NetDisk library. The transfer panel is
// mounted once by the shell's layout (TransferHost) and shares this store.
import { useMemo } from 'react';
import { useUserInfo } from '../../shared/session.ts';
import { getTransferStore } from '../../shared/transfers/runtime.ts';
import { FileBrowser } from './FileBrowser.tsx';

export default function PersonalFilePage() {
  const user = useUserInfo();
  const owner = user?.userId ?? 'anonymous';
  const store = useMemo(() => getTransferStore(owner), [owner]);
  return <FileBrowser libCode="NetDisk" instanceType="1" store={store} />;
}
