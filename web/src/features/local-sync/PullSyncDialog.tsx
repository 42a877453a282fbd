// The pull-sync dialog (spec: userName, pass, checkPass with its messages): the other server's address, the account
// there and its password twice. The password is encrypted with this server's public key (as at sign-in) before it is
// sent; this server signs in on the other one and starts the job. Refusals (wrong password, unreachable server) are
// shown in the dialog, by code, in the user's language. Plain elements, as the screen (local-sync.css says why).
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { getPlatformInfo, groupSync, oneDiskSync } from '../../api/gen/session/session.ts';
import { encryptPassword } from '../../shared/wire-encoding.ts';
import { errorMessage } from '../../shared/error-message.ts';

export type SyncKind = 'personal' | 'group';

interface Values {
  serverUrl: string;
  userName: string;
  pass: string;
  checkPass: string;
  groupName: string;
}

const EMPTY: Values = { serverUrl: '', userName: '', pass: '', checkPass: '', groupName: '' };

/** The spec's messages (locale keys), field by field; a field without a problem has none. */
function problems(v: Values): Partial<Record<keyof Values, string>> {
  const out: Partial<Record<keyof Values, string>> = {};
  if (!v.serverUrl.trim()) out.serverUrl = 'localSync.dialog.serverUrlRequired';
  else if (!/^https?:\/\/\S+$/i.test(v.serverUrl.trim())) out.serverUrl = 'localSync.dialog.serverUrlInvalid';
  if (!v.userName.trim()) out.userName = 'login.enterUsername';
  if (!v.pass) out.pass = 'login.enterPassword';
  if (!v.checkPass) out.checkPass = 'account.password.enterAgain';
  else if (v.checkPass !== v.pass) out.checkPass = 'account.password.inconsistent';
  return out;
}

export function PullSyncDialog(props: { kind: SyncKind; onClose: () => void; onStarted: () => void }) {
  const { t } = useTranslation();
  const [v, setV] = useState<Values>(EMPTY);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  const all = problems(v);
  // Before the first submit only a mismatch of two filled passwords is said (as the user types the second).
  const shown: typeof all = tried ? all : v.checkPass && all.checkPass ? { checkPass: all.checkPass } : {};

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (Object.keys(all).length > 0) return;
    setBusy(true);
    setFailed(null);
    try {
      const info = (await getPlatformInfo({ quiet: true })).data;
      if (!info) throw new Error('no platform info');
      const body = { serverUrl: v.serverUrl.trim(), userName: v.userName.trim(), password: await encryptPassword(v.pass, info.publicKey) };
      const groupName = v.groupName.trim();
      if (props.kind === 'group') await groupSync({ ...body, syncType: 'group', ...(groupName ? { groupName } : {}) }, { quiet: true });
      else await oneDiskSync({ ...body, syncType: 'personal' }, { quiet: true });
      props.onStarted();
    } catch (err) {
      setFailed(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  const field = (name: keyof Values, label: string, type: 'text' | 'password', testId: string) => (
    <label className="hcs-pull-item">
      <span>{t(label)}</span>
      <input
        type={type}
        value={v[name]}
        autoComplete={type === 'password' ? 'new-password' : 'off'}
        aria-invalid={shown[name] ? 'true' : 'false'}
        data-testid={testId}
        onChange={(e) => setV({ ...v, [name]: e.target.value })}
        {...(name === 'serverUrl' ? { placeholder: t('localSync.dialog.serverUrlPlaceholder') } : {})}
      />
      {shown[name] && <span className="hcs-pull-error" role="alert">{t(shown[name])}</span>}
    </label>
  );

  return (
    <div className="hcs-pull-mask">
      <div className="hcs-pull-dialog" role="dialog" aria-modal="true" aria-labelledby="hcs-pull-title">
        <h5 id="hcs-pull-title">{t(props.kind === 'group' ? 'localSync.dialog.titleGroup' : 'localSync.dialog.titlePersonal')}</h5>
        <form onSubmit={(e) => void submit(e)} data-testid="pull-sync-form" autoComplete="off" noValidate>
          {field('serverUrl', 'localSync.dialog.serverUrl', 'text', 'pull-server')}
          {field('userName', 'localSync.dialog.userName', 'text', 'pull-user')}
          {field('pass', 'localSync.dialog.pass', 'password', 'pull-pass')}
          {field('checkPass', 'localSync.dialog.checkPass', 'password', 'pull-check-pass')}
          {props.kind === 'group' && field('groupName', 'localSync.dialog.groupName', 'text', 'pull-group')}
          <p className="hcs-local-sync-muted">{t('localSync.dialog.note')}</p>
          {failed && <div className="hcs-local-sync-alert" role="alert" data-testid="pull-failed">{failed}</div>}
          <div className="hcs-pull-footer">
            <button type="button" onClick={props.onClose}>{t('common.cancel')}</button>
            <button type="submit" className="primary" disabled={busy} data-testid="pull-submit">{t('common.confirm')}</button>
          </div>
        </form>
      </div>
    </div>
  );
}
