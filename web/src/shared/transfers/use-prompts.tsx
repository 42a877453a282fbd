// antd implementations of the upload/download questions (spec 2 alert dialog with an optional list of files over
// 80 GB; z-index 2000). Notices go through the shell's one toast path (shared/notify.ts: 3000 ms, 20 px from the top).
// Render `holder` once where the hook is used (the dialogs' context).
import { useMemo, type ReactNode } from 'react';
import { Button, Modal, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { toastError, toastInfo, toastWarning } from '../notify.ts';
import type { DownloadPrompts } from './download.ts';
import type { UploadPrompts } from './upload-flow.ts';
import { useClientToolUrl } from '../client-tool.ts';

const Z = 2000;

function NameList({ names }: { names: string[] }) {
  return (
    <ul style={{ maxHeight: 200, overflow: 'auto', paddingLeft: 20 }} data-testid="prompt-names">
      {names.map((n) => (
        <li key={n}>{n}</li>
      ))}
    </ul>
  );
}

export function usePrompts(): { upload: UploadPrompts; download: DownloadPrompts; holder: ReactNode } {
  const { t } = useTranslation();
  const [modal, modalHolder] = Modal.useModal();
  const toolUrl = useClientToolUrl();

  return useMemo(() => {
    const notice: UploadPrompts['notice'] = (level, key, values) => {
      const text = t(key, values ?? {});
      if (level === 'info') toastInfo(text);
      else if (level === 'warning') toastWarning(text);
      else toastError(text);
    };
    const choose = <T,>(title: string, content: ReactNode, okText: string, cancelText: string, ok: T, cancel: T) =>
      new Promise<T>((resolve) => {
        modal.confirm({ title, content, okText, cancelText, zIndex: Z, onOk: () => resolve(ok), onCancel: () => resolve(cancel) });
      });
    const upload: UploadPrompts = {
      notice,
      over80G: (names) =>
        new Promise<void>((resolve) => {
          modal.warning({
            title: t('transfer.over80G'),
            content: names.length > 1 ? <NameList names={names} /> : names[0],
            okText: t('files.ok'),
            zIndex: Z,
            onOk: () => resolve(),
          });
        }),
      confirm30G: (names) => choose(t('noMoreThan30G'), <NameList names={names} />, t('files.continue'), t('files.cancel'), true, false),
      // The plugin's download opens the server's tool page; a server without one gets no download button at all.
      pluginTip: () =>
        toolUrl
          ? choose(t('transfer.pluginTip'), t('transfer.pluginTipText'), t('transfer.continueInBrowser'), t('transfer.downloadPlugin'), 'browser' as const, 'download' as const).then(
              (choice) => {
                if (choice === 'download') window.open(toolUrl, '_blank', 'noopener');
                return choice;
              },
            )
          : new Promise<'browser'>((resolve) => {
              modal.info({ title: t('transfer.pluginTip'), content: t('transfer.pluginTipText'), okText: t('transfer.continueInBrowser'), zIndex: Z, onOk: () => resolve('browser') });
            }),
      clientChoice: () => choose(t('transfer.clientChoice'), t('transfer.clientChoiceText'), t('transfer.webUpload'), t('transfer.useClient'), 'web' as const, 'client' as const),
      invalidNames: (items) =>
        new Promise<void>((resolve) => {
          modal.warning({
            title: t('transfer.invalidNames'),
            content: (
              <ul style={{ maxHeight: 240, overflow: 'auto', paddingLeft: 20 }} data-testid="invalid-names">
                {items.map((i) => (
                  <li key={i.path}>
                    <strong>{i.path}</strong>
                    {t('common.colon')}
                    {t(`files.nameProblem.${i.problem}`)}
                  </li>
                ))}
              </ul>
            ),
            okText: t('files.ok'),
            width: 560,
            zIndex: Z,
            onOk: () => resolve(),
            onCancel: () => resolve(),
          });
        }),
      conflict: (names) =>
        new Promise((resolve) => {
          let settled = false;
          const done = (v: 'newVersion' | 'keepBoth' | 'cancel') => {
            if (settled) return;
            settled = true;
            resolve(v);
            m.destroy();
          };
          const m = modal.confirm({
            title: t('transfer.sameName'),
            content: <NameList names={names} />,
            zIndex: Z,
            closable: true,
            onCancel: () => done('cancel'),
            footer: (
              <Space style={{ marginTop: 12, width: '100%', justifyContent: 'flex-end' }}>
                <Button onClick={() => done('cancel')}>{t('files.cancel')}</Button>
                <Button onClick={() => done('newVersion')} data-testid="conflict-new-version">
                  {t('transfer.newVersion')}
                </Button>
                <Button type="primary" onClick={() => done('keepBoth')} data-testid="conflict-keep-both">
                  {t('transfer.keepBoth')}
                </Button>
              </Space>
            ),
          });
        }),
    };
    const download: DownloadPrompts = {
      notice,
      clientOrWeb: (name) => choose(t('transfer.clientChoice'), t('transfer.clientDownloadText', { name }), t('transfer.webDownload'), t('transfer.useClient'), 'web' as const, 'client' as const),
    };
    return {
      upload,
      download,
      holder: modalHolder,
    };
  }, [t, modal, modalHolder, toolUrl]);
}
