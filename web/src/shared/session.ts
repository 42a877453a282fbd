// Client session state (spec 3, "User info" and browser storage keys):
//   localStorage  userInfo (who is signed in), languageId, langChangeFlag, mean (last menu route), groupId
//   sessionStorage  the store snapshot (current library, capacity scope...), saved on unload, restored on start.
// The session itself is the HttpOnly HCS_SESSION cookie; its token is deliberately NOT copied into web storage,
// where any script could read it.
import { useSyncExternalStore } from 'react';
import type { CurrentUser } from '../api/gen/model/index.ts';
import { isLanguage, type Language } from './i18n.ts';

export const USER_INFO_KEY = 'userInfo';
export const LANG_CHANGE_FLAG_KEY = 'langChangeFlag';
export const LAST_MENU_KEY = 'mean';
export const GROUP_ID_KEY = 'groupId';
export const SNAPSHOT_KEY = 'hcsStore';
export const DEFAULT_SKIN = 'redblack';

export interface UserInfo {
  userId: string;
  userName: string;
  userRealName: string;
  userDeptId: string | null;
  platformId: string;
  isAdmin: boolean;
  /** Departments this user manages: their subtrees are what /departmentManage shows them. */
  managedDeptIds?: string[];
  languageId?: Language;
  skin: string;
  mustChangePassword?: boolean;
  /** Breadcrumb per menuCode, kept by the file screens. */
  breadcrumb?: Record<string, unknown>;
}

export type CapacityScope = 'personal' | 'department';

/** The part of the app state that survives a reload in the same tab. */
export interface StoreState {
  /** libCode of the business library whose menu is shown; null on Home before a library is opened. */
  currentLib: string | null;
  capacityScope: CapacityScope;
}

const initialStore: StoreState = { currentLib: null, capacityScope: 'personal' };

let userInfo: UserInfo | null = readUserInfo();
let store: StoreState = { ...initialStore };
const listeners = new Set<() => void>();
const signOutListeners = new Set<() => void>();

function emit() {
  for (const l of listeners) l();
}

function readUserInfo(): UserInfo | null {
  try {
    const raw = localStorage.getItem(USER_INFO_KEY);
    if (!raw) return null;
    const v = JSON.parse(raw) as Partial<UserInfo>;
    if (typeof v.userId !== 'string' || typeof v.userName !== 'string') return null;
    return { skin: DEFAULT_SKIN, isAdmin: false, userRealName: v.userName, userDeptId: null, platformId: 'NetDisk', ...v } as UserInfo;
  } catch {
    return null;
  }
}

export function userInfoFromServer(u: CurrentUser, previous?: UserInfo | null): UserInfo {
  return {
    userId: u.userId,
    userName: u.userName,
    userRealName: u.userRealName || u.userName,
    userDeptId: u.userDeptId ?? null,
    platformId: u.platformId,
    isAdmin: u.isAdmin === true,
    managedDeptIds: u.managedDeptIds ?? previous?.managedDeptIds ?? [],
    languageId: isLanguage(u.languageId) ? u.languageId : previous?.languageId,
    skin: previous?.skin ?? DEFAULT_SKIN,
    mustChangePassword: u.mustChangePassword === true,
    breadcrumb: previous?.breadcrumb,
  };
}

export function getUserInfo(): UserInfo | null {
  return userInfo;
}

export function setUserInfo(next: UserInfo): void {
  userInfo = next;
  localStorage.setItem(USER_INFO_KEY, JSON.stringify(next));
  emit();
}

export function getStore(): StoreState {
  return store;
}

export function updateStore(patch: Partial<StoreState>): void {
  store = { ...store, ...patch };
  emit();
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function useUserInfo(): UserInfo | null {
  return useSyncExternalStore(subscribe, getUserInfo, getUserInfo);
}

export function useStore(): StoreState {
  return useSyncExternalStore(subscribe, getStore, getStore);
}

export function saveSnapshot(): void {
  if (!userInfo) return;
  sessionStorage.setItem(SNAPSHOT_KEY, JSON.stringify(store));
}

/** Restores this tab's snapshot (only for the same signed-in user; a stale one from another account is dropped). */
export function restoreSnapshot(): void {
  const raw = sessionStorage.getItem(SNAPSHOT_KEY);
  if (!raw || !userInfo) return;
  try {
    const v = JSON.parse(raw) as Partial<StoreState>;
    store = {
      currentLib: typeof v.currentLib === 'string' ? v.currentLib : null,
      capacityScope: v.capacityScope === 'department' ? 'department' : 'personal',
    };
    emit();
  } catch {
    sessionStorage.removeItem(SNAPSHOT_KEY);
  }
}

/** Forgets the signed-in user in this tab and every other (other tabs see userInfo removed and sign out too). */
export function clearSession(): void {
  userInfo = null;
  store = { ...initialStore };
  localStorage.removeItem(USER_INFO_KEY);
  localStorage.removeItem(GROUP_ID_KEY);
  sessionStorage.removeItem(SNAPSHOT_KEY);
  emit();
  for (const l of signOutListeners) l();
}

/** Runs on every sign-out (this tab's or another's): the transfer engine clears its lists here. */
export function onSignOut(listener: () => void): () => void {
  signOutListeners.add(listener);
  return () => signOutListeners.delete(listener);
}

/**
 * Wires the browser events: snapshot on unload; another tab removing userInfo (sign-out, or localStorage.clear())
 * signs this tab out too. Returns an uninstall function.
 */
export function installSessionListeners(onOtherTabSignOut: () => void): () => void {
  const onUnload = () => saveSnapshot();
  const onStorage = (e: StorageEvent) => {
    if ((e.key === USER_INFO_KEY || e.key === null) && e.newValue === null && userInfo) {
      userInfo = null;
      store = { ...initialStore };
      sessionStorage.removeItem(SNAPSHOT_KEY);
      emit();
      for (const l of signOutListeners) l();
      onOtherTabSignOut();
    }
  };
  window.addEventListener('pagehide', onUnload);
  window.addEventListener('beforeunload', onUnload);
  window.addEventListener('storage', onStorage);
  return () => {
    window.removeEventListener('pagehide', onUnload);
    window.removeEventListener('beforeunload', onUnload);
    window.removeEventListener('storage', onStorage);
  };
}

/** Test hook: re-read storage as a fresh page load would. */
export function reloadSessionFromStorage(): void {
  userInfo = readUserInfo();
  store = { ...initialStore };
  emit();
}
