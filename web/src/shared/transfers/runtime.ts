// The one transfer store of the tab: created on first use for the signed-in user, wired to the network events, the
// header counters and sign-out. Components reach it through useTransfers().
import { useSyncExternalStore } from 'react';
import i18n from 'i18next';
import { setTransferCounts } from '../transfer-counters.ts';
import { onSignOut } from '../session.ts';
import { toastError, toastInfo, toastSuccess, toastWarning } from '../notify.ts';
import type { TransferEngine } from './engine.ts';
import { createBrowserEngine } from './browser-engine.ts';
import { indexedDbPersistence } from './queue-persistence.ts';
import { TransferStore, type Notice, type TransferSnapshot } from './transfer-store.ts';
import { reattachAgent } from './agent-runtime.ts';

let current: { owner: string; store: TransferStore } | undefined;
let engineFactory: (owner: string) => TransferEngine = createBrowserEngine;

/** Replaces the engine for stores created afterwards (tests, or a plugin/desktop-client transport later). */
export function registerTransferEngine(factory: (owner: string) => TransferEngine): void {
  engineFactory = factory;
}

function showNotice(n: Notice): void {
  const text = i18n.t(n.key, n.values ?? {});
  if (n.level === 'error') toastError(text);
  else if (n.level === 'warning') toastWarning(text);
  else if (n.level === 'success') toastSuccess(text);
  else toastInfo(text);
}

export function getTransferStore(owner: string): TransferStore {
  if (current?.owner === owner) return current.store;
  if (current) void current.store.reset();
  const store = new TransferStore({
    engine: engineFactory(owner),
    persistence: indexedDbPersistence(owner),
    notify: showNotice,
  });
  current = { owner, store };
  store.subscribe(() => {
    const c = store.counts();
    setTransferCounts({ upload: c.uploads, download: c.downloads });
  });
  void store.restore().catch(() => {});
  // Transfers handed to the local agent went on while no tab was open: show them again (no waking).
  reattachAgent(owner);
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
