// /localSync (issue #20): the state of the user's pull from another drive server (spec: 0 not synced, the user first
// picks personal or group files; 1 not synchronised; 2 synchronised; 3 in progress), its progress while the server's
// job runs, and the pull-sync dialog to start one. Plain elements (local-sync.css says why).
import './strings.ts';
import './local-sync.css';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { getGetPullSyncStatusQueryKey, getPullSyncStatus } from '../../api/gen/session/session.ts';
import type { PullSync } from '../../api/gen/model/pullSync.ts';
import { HcsError } from '../../api/hcs-error.ts';
import { formatSize } from '../../shared/format.ts';
import { i18n } from '../../shared/i18n.ts';
import { toastSuccess } from '../../shared/notify.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { PullSyncDialog, type SyncKind } from './PullSyncDialog.tsx';

/** The job's error reads "CODE: message" (English, for logs): the user reads the code's message. */
function reason(error: string): string {
  const key = `errors.codes.${error.split(':')[0]!}`;
  return i18n.exists(key) ? i18n.t(key) : i18n.t('errors.unexpected');
}

export default function LocalSyncPage() {
  const { t } = useTranslation();
  const [dialog, setDialog] = useState<SyncKind | null>(null);
  const status = useQuery({
    queryKey: getGetPullSyncStatusQueryKey(),
    queryFn: async ({ signal }) => (await getPullSyncStatus({ signal, quiet: true })).data ?? null,
    // Follows the job while it runs.
    refetchInterval: (q) => ((q.state.data as PullSync | null | undefined)?.state === 3 ? 2000 : false),
    retry: false,
  });
  const pull = status.data ?? null;
  const state = pull?.state ?? 0;
  const started = () => {
    setDialog(null);
    toastSuccess(t('localSync.dialog.started'));
    void status.refetch();
  };

  let body;
  if (status.isLoading) body = <p className="hcs-local-sync-muted">…</p>;
  else if (status.isError) {
    // A server without pull sync says so; any other failure is said once, in the page.
    body =
      status.error instanceof HcsError && status.error.status === 501 ? (
        <div data-testid="not-available">
          <p>{t('common.notAvailable.title')}</p>
          <p className="hcs-local-sync-muted">{t('common.notAvailable.text')}</p>
        </div>
      ) : (
        <div data-testid="load-failed" className="hcs-local-sync-alert" role="alert">
          {t('common.loadFailed')}: {errorMessage(status.error)}
        </div>
      );
  } else {
    body = (
      <div className="hcs-local-sync-card">
        <div>
          <span className="hcs-local-sync-tag" data-testid="pull-state" data-state={state}>{t(`localSync.state.${state}`)}</span>
          {pull && <span className="hcs-local-sync-muted">{t('localSync.source', { server: pull.serverUrl, user: pull.remoteUser })}</span>}
        </div>
        {state === 0 && <div>{t('localSync.pickFirst')}</div>}
        {pull && (
          <div>
            {t(pull.syncType === 'group' ? 'localSync.group' : 'localSync.personal')}:{' '}
            <span data-testid="pull-progress">{t('localSync.progress', { files: pull.files, size: formatSize(pull.bytes), skipped: pull.skipped, failed: pull.failed })}</span>
          </div>
        )}
        {pull?.state === 1 && pull.error && <div className="hcs-local-sync-alert" role="alert" data-testid="pull-error">{t('localSync.failed', { reason: reason(pull.error) })}</div>}
        {pull?.state === 2 && pull.error && <div className="hcs-local-sync-alert warning">{t('localSync.groupSkipped')}</div>}
        <div className="hcs-local-sync-actions">
          <button type="button" className="primary" disabled={state === 3} onClick={() => setDialog('personal')} data-testid="pull-personal">{t('localSync.personal')}</button>
          <button type="button" disabled={state === 3} onClick={() => setDialog('group')} data-testid="pull-group-files">{t('localSync.group')}</button>
        </div>
      </div>
    );
  }
  return (
    <div className="hcs-local-sync" data-testid="local-sync-page">
      <h4>{t('routes.localSync')}</h4>
      <p className="hcs-local-sync-muted">{t('localSync.intro')}</p>
      {body}
      {dialog && <PullSyncDialog kind={dialog} onClose={() => setDialog(null)} onStarted={started} />}
    </div>
  );
}
