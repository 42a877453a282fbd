// The header's upload/download counters. The transfer engine (shared/transfers) owns the numbers and pushes them
// here; the header only reads. Also carries the header's "open the transfer list" request the other way.
import { useSyncExternalStore } from 'react';

export interface TransferCounts {
  upload: number;
  download: number;
}

let counts: TransferCounts = { upload: 0, download: 0 };
const listeners = new Set<() => void>();
export type TransferTab = 'upload' | 'download' | 'finished';
const panelListeners = new Set<(tab?: TransferTab) => void>();

export function getTransferCounts(): TransferCounts {
  return counts;
}

/** Update one or both counters (non-negative integers); listeners fire only on a change. */
export function setTransferCounts(next: Partial<TransferCounts>): void {
  const merged = {
    upload: Math.max(0, Math.floor(next.upload ?? counts.upload)),
    download: Math.max(0, Math.floor(next.download ?? counts.download)),
  };
  if (merged.upload === counts.upload && merged.download === counts.download) return;
  counts = merged;
  for (const l of listeners) l();
}

export function subscribeTransferCounts(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useTransferCounts(): TransferCounts {
  return useSyncExternalStore(subscribeTransferCounts, getTransferCounts, getTransferCounts);
}

/** The header's transfer-list button calls this; the transfer panel subscribes and opens itself (on `tab` if given). */
export function openTransferPanel(tab?: TransferTab): void {
  for (const l of panelListeners) l(tab);
}

export function onTransferPanelRequest(listener: (tab?: TransferTab) => void): () => void {
  panelListeners.add(listener);
  return () => panelListeners.delete(listener);
}
