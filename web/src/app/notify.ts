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

export function registerNotifiers(m: MessageInstance, modal: ModalHookAPI): void {
  messageApi = m;
  modalApi = modal;
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

export function toastInfo(text: string): void {
  void messageApi?.info({ content: text, duration: TOAST_SECONDS });
}

/** An alert with one confirm button; resolves when confirmed. */
export function alertDialog(opts: { title: string; content: string; okText: string }): Promise<void> {
  return new Promise((resolve) => {
    if (!modalApi) return resolve();
    modalApi.warning({ title: opts.title, content: opts.content, okText: opts.okText, onOk: () => resolve(), zIndex: 2000 });
  });
}
