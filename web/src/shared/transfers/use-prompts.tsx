// antd implementations of the upload/download questions (spec 2 alert dialog with an optional list of files over
// 80 GB; z-index 2000). Notices go through the shell's one toast path (shared/notify.ts: 3000 ms, 20 px from the top).
// Render `holder` once where the hook is used (the dialogs' context).
import { useMemo, type ReactNode } from 'react';
import { Button, Modal, Space } from 'antd';
// The plain input alone: antd's Input namespace also carries TextArea, Password and OTP onto the first load.
import Input from 'antd/es/input/Input';
import { useTranslation } from 'react-i18next';
import { toastError, toastInfo, toastWarning } from '../notify.ts';
import { Text } from '../Text.tsx';
import type { DownloadPrompts } from './download.ts';
import type { UploadPrompts } from './upload-flow.ts';
import { useClientToolUrl } from '../client-tool.ts';
import { getAgent, handDownloadToAgent, handUploadToAgent } from './agent-runtime.ts';

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
    // The agent has no native file picker on this machine: the user types a path inside the folders it may read.
    const localPath = (roots: readonly string[]) =>
      new Promise<string | null>((resolve) => {
        if (roots.length === 0) {
          notice('warning', 'transfer.agent.noRoots');
          resolve(null);
          return;
        }
        let typed = '';
        modal.confirm({
          title: t('transfer.agent.typePath'),
          content: (
            <Space direction="vertical" style={{ width: '100%' }}>
              <Text data-testid="agent-path-roots">{t('transfer.agent.typePathHint', { roots: roots.join(', ') })}</Text>
              <Input data-testid="agent-path-input" autoFocus onChange={(e) => (typed = e.target.value.trim())} />
            </Space>
          ),
          okText: t('files.ok'),
          cancelText: t('files.cancel'),
          okButtonProps: { 'data-testid': 'agent-path-ok' } as never,
          zIndex: Z,
          width: 560,
          onOk: () => resolve(typed || null),
          onCancel: () => resolve(null),
        });
      });
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
      // Hand the upload to the local agent, open the server's tool page to get it (a server without one has no such
      // button), or stay in the browser; closing the tip stays in the browser too.
      pluginTip: () =>
        new Promise<'agent' | 'download' | 'browser'>((resolve) => {
          let settled = false;
          const done = (v: 'agent' | 'download' | 'browser') => {
            if (settled) return;
            settled = true;
            m.destroy();
            if (v === 'download' && toolUrl) window.open(toolUrl, '_blank', 'noopener');
            resolve(v);
          };
          const m = modal.confirm({
            title: t('transfer.pluginTip'),
            content: t('transfer.pluginTipText'),
            zIndex: Z,
            closable: true,
            onCancel: () => done('browser'),
            footer: (
              <Space style={{ marginTop: 12, width: '100%', justifyContent: 'flex-end' }} wrap>
                {toolUrl && (
                  <Button onClick={() => done('download')} data-testid="plugin-tip-download">
                    {t('transfer.downloadPlugin')}
                  </Button>
                )}
                <Button onClick={() => done('browser')} data-testid="plugin-tip-browser">
                  {t('transfer.continueInBrowser')}
                </Button>
                <Button type="primary" onClick={() => done('agent')} data-testid="plugin-tip-agent">
                  {t('transfer.agent.useAgent')}
                </Button>
              </Space>
            ),
          });
        }),
      handOver: (target) => handUploadToAgent(target, { localPath }),
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
      // A tab connected to the agent (the user handed it an upload, now or before) gives it the downloads too.
      viaAgent: () => getAgent().getSnapshot().status === 'online',
      handOver: handDownloadToAgent,
      clientOrWeb: (name) => choose(t('transfer.clientChoice'), t('transfer.clientDownloadText', { name }), t('transfer.webDownload'), t('transfer.useClient'), 'web' as const, 'client' as const),
    };
    return {
      upload,
      download,
      holder: modalHolder,
    };
  }, [t, modal, modalHolder, toolUrl]);
}
