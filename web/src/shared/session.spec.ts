import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  clearSession,
  getStore,
  getUserInfo,
  installSessionListeners,
  onSignOut,
  reloadSessionFromStorage,
  restoreSnapshot,
  saveSnapshot,
  SNAPSHOT_KEY,
  updateStore,
  USER_INFO_KEY,
} from './session.ts';
import { getTransferCounts, setTransferCounts, subscribeTransferCounts } from './transfer-counters.ts';
import { safeRedirect, loginUrl } from './navigation.ts';

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  clearSession();
  localStorage.setItem(USER_INFO_KEY, JSON.stringify({ userId: 'u', userName: 'alice' }));
  reloadSessionFromStorage();
});

describe('store snapshot', () => {
  it('is saved on unload and restored on start', () => {
    const uninstall = installSessionListeners(() => {});
    updateStore({ currentLib: 'SysConfig', capacityScope: 'department' });
    window.dispatchEvent(new Event('pagehide'));
    uninstall();
    expect(JSON.parse(sessionStorage.getItem(SNAPSHOT_KEY) ?? '{}')).toEqual({ currentLib: 'SysConfig', capacityScope: 'department' });
    reloadSessionFromStorage();
    expect(getStore().currentLib).toBeNull();
    restoreSnapshot();
    expect(getStore()).toEqual({ currentLib: 'SysConfig', capacityScope: 'department' });
  });

  it('a corrupt snapshot is dropped', () => {
    sessionStorage.setItem(SNAPSHOT_KEY, '{not json');
    restoreSnapshot();
    expect(sessionStorage.getItem(SNAPSHOT_KEY)).toBeNull();
  });

  it('sign-out removes userInfo and the snapshot and tells listeners', () => {
    const l = vi.fn();
    const off = onSignOut(l);
    saveSnapshot();
    clearSession();
    off();
    expect(localStorage.getItem(USER_INFO_KEY)).toBeNull();
    expect(sessionStorage.getItem(SNAPSHOT_KEY)).toBeNull();
    expect(l).toHaveBeenCalledOnce();
  });

  it('another tab clearing storage signs this tab out; unrelated keys do not', () => {
    const out = vi.fn();
    const uninstall = installSessionListeners(out);
    window.dispatchEvent(new StorageEvent('storage', { key: 'languageId', newValue: null }));
    expect(out).not.toHaveBeenCalled();
    window.dispatchEvent(new StorageEvent('storage', { key: null, newValue: null }));
    uninstall();
    expect(out).toHaveBeenCalledOnce();
    expect(getUserInfo()).toBeNull();
  });

  it('garbage in userInfo means signed out', () => {
    localStorage.setItem(USER_INFO_KEY, '{"userName": 5}');
    reloadSessionFromStorage();
    expect(getUserInfo()).toBeNull();
  });
});

describe('transfer counters', () => {
  it('notifies on change only and clamps to non-negative integers', () => {
    const l = vi.fn();
    const off = subscribeTransferCounts(l);
    setTransferCounts({ upload: 3 });
    setTransferCounts({ upload: 3 });
    setTransferCounts({ download: -2.5 });
    off();
    expect(l).toHaveBeenCalledTimes(1);
    expect(getTransferCounts()).toEqual({ upload: 3, download: 0 });
    setTransferCounts({ upload: 0 });
  });
});

describe('redirect safety', () => {
  it('accepts app paths only', () => {
    expect(safeRedirect('/groupFile?a=1')).toBe('/groupFile?a=1');
    expect(safeRedirect('//evil.example')).toBe('/personalFile');
    expect(safeRedirect('/\\evil.example')).toBe('/personalFile');
    expect(safeRedirect('https://evil.example')).toBe('/personalFile');
    expect(safeRedirect('/login?redirect=/x')).toBe('/personalFile');
    expect(loginUrl('/groupFile')).toBe('/drive/login?redirect=%2FgroupFile');
  });
});
