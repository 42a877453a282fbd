// Toasts and alerts for code outside React (the HTTP hooks). The App component registers antd's context-aware
// APIs here; the toast placement and duration are the spec's (3000 ms, 20 px from the top).
import type { App } from 'antd';

type AppApi = ReturnType<typeof App.useApp>;
type MessageInstance = AppApi['message'];
type ModalHookAPI = AppApi['modal'];

export const TOAST_SECONDS = 3;
export const TOAST_TOP_PX = 20;

let messageApi: MessageInstance | undefined;
let modalApi: ModalHookAPI | undefined;

/**
 * antd is not part of the app's entry (the sign-in page is plain HTML; web/scripts/check-budget.ts): on a page without
 * it, a toast waits here while `needHost` (set by the app's providers) loads antd's message and modal holders.
 */
const hosts: { m: MessageInstance; modal: ModalHookAPI }[] = [];
const pending: (() => void)[] = [];
let needHost: (() => void) | undefined;

export type ToastLevel = 'success' | 'info' | 'warning' | 'error';

const FLASH_KEY = 'hcs.flash';

/**
 * A toast for the next page load of this tab: a message whose action ends in a reload (sign-out, a changed password)
 * would otherwise vanish with the page. Kept as a locale key, so it reads in the language the next page loads with.
 */
export function flashAfterReload(level: ToastLevel, key: string): void {
  try {
    sessionStorage.setItem(FLASH_KEY, JSON.stringify({ level, key }));
  } catch {
    // Storage refused (private mode quota): the message is lost, nothing else is.
  }
}

/** Takes the message left by the previous page load, if any (once). */
export function takeFlash(): { level: ToastLevel; key: string } | undefined {
  let raw: string | null;
  try {
    raw = sessionStorage.getItem(FLASH_KEY);
    sessionStorage.removeItem(FLASH_KEY);
  } catch {
    return undefined;
  }
  try {
    const v = raw ? (JSON.parse(raw) as { level?: unknown; key?: unknown }) : undefined;
    const levels: readonly unknown[] = ['success', 'info', 'warning', 'error'];
    return v && levels.includes(v.level) && typeof v.key === 'string' ? { level: v.level as ToastLevel, key: v.key } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Registers antd's context-aware APIs; the first registration of a page shows the previous page's flash. Returns the
 * unregistration: the next most recent host (if any) takes over, so a toast never goes to an unmounted holder.
 */
export function registerNotifiers(m: MessageInstance, modal: ModalHookAPI, translate?: (key: string) => string): () => void {
  const host = { m, modal };
  hosts.push(host);
  messageApi = m;
  modalApi = modal;
  const flash = translate && takeFlash();
  if (flash) void messageApi[flash.level]({ content: translate(flash.key), duration: TOAST_SECONDS });
  for (const show of pending.splice(0)) show();
  return () => {
    const i = hosts.lastIndexOf(host);
    if (i >= 0) hosts.splice(i, 1);
    const top = hosts.at(-1);
    messageApi = top?.m;
    modalApi = top?.modal;
  };
}

/** The app's way to mount a holder on demand: called at once when a toast or the previous page's flash is waiting. */
export function onNotifierNeeded(fn: (() => void) | undefined): void {
  needHost = fn;
  // The app is gone (a test unmounted it): what it never showed must not pop up in the next one.
  if (!fn) pending.length = 0;
  if (fn && !messageApi && (pending.length > 0 || hasFlash())) fn();
}

/** Shows now when a holder is mounted; else waits for the one `needHost` mounts (without an app: as a no-op now). */
function show(fn: () => void): void {
  if (messageApi || !needHost) return fn();
  pending.push(fn);
  needHost();
}

function hasFlash(): boolean {
  try {
    return sessionStorage.getItem(FLASH_KEY) !== null;
  } catch {
    return false;
  }
}

export function toastError(text: string): void {
  show(() => void messageApi?.error({ content: text, duration: TOAST_SECONDS }));
}

export function toastSuccess(text: string): void {
  show(() => void messageApi?.success({ content: text, duration: TOAST_SECONDS }));
}

export function toastWarning(text: string): void {
  show(() => void messageApi?.warning({ content: text, duration: TOAST_SECONDS }));
}

/** `seconds`: the spec gives a few infos their own duration (the 'wake up plugin' info shows for 4 s). */
export function toastInfo(text: string, seconds = TOAST_SECONDS): void {
  show(() => void messageApi?.info({ content: text, duration: seconds }));
}

type ConfirmProps = Parameters<ModalHookAPI['confirm']>[0];

/**
 * A confirmation dialog drawn by the app's antd root, so it has the app's theme and its motion setting (none for a
 * reader who asked for reduced motion). antd's static Modal.confirm renders outside the React tree, with antd's
 * default theme and always animated (the lint refuses it in web/src).
 */
export function confirmDialog(props: ConfirmProps): void {
  show(() => void modalApi?.confirm(props));
}

/** An alert with one confirm button; resolves when confirmed. */
export function alertDialog(opts: { title: string; content: string; okText: string }): Promise<void> {
  return new Promise((resolve) =>
    show(() => {
      if (!modalApi) return resolve();
      modalApi.warning({ title: opts.title, content: opts.content, okText: opts.okText, onOk: () => resolve(), zIndex: 2000 });
    }),
  );
}
