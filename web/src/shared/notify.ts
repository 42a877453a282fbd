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

/** Registers antd's context-aware APIs; the first registration of a page shows the previous page's flash. */
export function registerNotifiers(m: MessageInstance, modal: ModalHookAPI, translate?: (key: string) => string): void {
  messageApi = m;
  modalApi = modal;
  const flash = translate && takeFlash();
  if (flash) void messageApi[flash.level]({ content: translate(flash.key), duration: TOAST_SECONDS });
}

export function toastError(text: string): void {
  void messageApi?.error({ content: text, duration: TOAST_SECONDS });
}

export function toastSuccess(text: string): void {
  void messageApi?.success({ content: text, duration: TOAST_SECONDS });
}

export function toastWarning(text: string): void {
  void messageApi?.warning({ content: text, duration: TOAST_SECONDS });
}

/** `seconds`: the spec gives a few infos their own duration (the 'wake up plugin' info shows for 4 s). */
export function toastInfo(text: string, seconds = TOAST_SECONDS): void {
  void messageApi?.info({ content: text, duration: seconds });
}

/** An alert with one confirm button; resolves when confirmed. */
export function alertDialog(opts: { title: string; content: string; okText: string }): Promise<void> {
  return new Promise((resolve) => {
    if (!modalApi) return resolve();
    modalApi.warning({ title: opts.title, content: opts.content, okText: opts.okText, onOk: () => resolve(), zIndex: 2000 });
  });
}
