// The one transfer store of the tab: created on first use for the signed-in user, wired to the network events, the
// header counters and sign-out. Components reach it through useTransfers().
import { useSyncExternalStore } from 'react';
import i18n from 'i18next';
import { setTransferCounts } from '../../app/transfer-counters.ts';
import { onSignOut } from '../../app/session.ts';
import { toastError, toastInfo, toastSuccess } from '../../app/notify.ts';
import type { UploadEngine } from './engine.ts';
import { indexedDbPersistence } from './queue-persistence.ts';
import { TransferStore, type Notice, type TransferSnapshot } from './transfer-store.ts';

let current: { owner: string; store: TransferStore } | undefined;
let engineFactory: (() => UploadEngine) | undefined;

/** The engine adapter registers itself here (see browser-engine.ts); tests register fakes. */
export function registerUploadEngine(factory: () => UploadEngine): void {
  engineFactory = factory;
}

function showNotice(n: Notice): void {
  const text = i18n.t(n.key, n.values ?? {});
  if (n.level === 'error' || n.level === 'warning') toastError(text);
  else if (n.level === 'success') toastSuccess(text);
  else toastInfo(text);
}

/** An engine that refuses: used only when no adapter registered, so a misconfigured build fails loudly per item. */
const missingEngine: UploadEngine = {
  upload: () => Promise.reject(Object.assign(new Error('upload engine not available'), { code: 'UPLOAD_FAILED' })),
};

export function getTransferStore(owner: string): TransferStore {
  if (current?.owner === owner) return current.store;
  if (current) void current.store.reset();
  const store = new TransferStore({
    engine: engineFactory ? engineFactory() : missingEngine,
    persistence: indexedDbPersistence(owner),
    notify: showNotice,
  });
  current = { owner, store };
  store.subscribe(() => {
    const c = store.counts();
    setTransferCounts({ upload: c.uploads, download: c.downloads });
  });
  void store.restore().catch(() => {});
  if (typeof window !== 'undefined') {
    window.addEventListener('online', () => store.setOnline(true));
    window.addEventListener('offline', () => store.setOnline(false));
    if (navigator.onLine === false) store.setOnline(false);
  }
  return store;
}

// Spec 4: transfer lists are cleared on user change.
onSignOut(() => {
  if (current) void current.store.reset();
  current = undefined;
  setTransferCounts({ upload: 0, download: 0 });
});

export function useTransferSnapshot(store: TransferStore): TransferSnapshot {
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
}
