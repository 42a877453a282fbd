// /fileDownload?link=...: the public share page. No header, no sign-in: the visitor's access is the link, its
// extraction code (and a CAPTCHA when the server asks) traded for a share token that reaches only this link's items.
// Visitors list the items (and folders below them), preview, download files (each download counted by the server,
// triggerShareLimit; then the transfer engine fetches it in ranged parts into a file the visitor picks and verifies
// its SHA-256, or, where the browser cannot write a picked file, the browser's own download manager fetches the
// granted URL, which resumes with ranges), download folders as one streamed zip (one download counted), and upload
// files and folders into upload links with the resumable engine (loaded only then; a folder's tree is made first, all
// or nothing). The token lives in this tab only (sessionStorage).
// The non-sso visitor re-login rule: a token the server stops accepting is traded again with the code the visitor
// typed, at most 3 times in a row; then the page asks to reload.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Alert, Breadcrumb, Button, Card, Form, Image, Input, Progress, Result, Space, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import {
  checkLink, getShareVerifyCode, loginShare, pageShareInstances, shareCreateFolders, shareGetPreview, shareGetZipDownloadUrl, triggerShareLimit,
} from '../../api/gen/shares/shares.ts';
import type { LinkInfo } from '../../api/gen/model/linkInfo.ts';
import type { ShareItem } from '../../api/gen/model/shareItem.ts';
import type { VerifyCode } from '../../api/gen/model/verifyCode.ts';
import type { VisitorShare } from '../../api/gen/model/visitorShare.ts';
import { HcsError } from '../../api/hcs-error.ts';
import { codeMessage, errorMessage } from '../../shared/error-message.ts';
import { formatDate, formatSize } from '../../shared/format.ts';
import { fromFileList } from '../../shared/transfers/pick-files.ts';
import { evaluateSelection } from '../../shared/transfers/selection-rules.ts';
import { encodeWireText } from '../../shared/wire-encoding.ts';
import { NotAvailable } from './FeaturePage.tsx';
import './visit-strings.ts';
import { confirmDialog } from '../../shared/notify.ts';

const LINK = /^[A-Za-z0-9_-]{16,64}$/;
const IMAGE = /\.(png|jpe?g|gif|webp|bmp|svg)$/i;
/** Re-logins in a row after the server stops accepting the token (spec: non-sso visitors, 3 tries). */
export const RELOGIN_TRIES = 3;
const tokenKey = (link: string) => `hcs.shareToken.${link}`;

type Stage =
  | { kind: 'checking' }
  | { kind: 'gone'; message: string }
  | { kind: 'unavailable' }
  | { kind: 'code'; info: LinkInfo; error?: string }
  | { kind: 'open'; share: VisitorShare }
  | { kind: 'exhaustedTries' };

const codeOf = (err: unknown): string | undefined => (err instanceof HcsError ? err.code : undefined);

function CodeForm({ link, info, error, onToken }: { link: string; info: LinkInfo; error?: string; onToken: (token: string, share: VisitorShare, code: string) => void }) {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  const [captcha, setCaptcha] = useState<VerifyCode | undefined>();
  const [answer, setAnswer] = useState('');
  const [needCaptcha, setNeedCaptcha] = useState(info.needVerifyCode);
  const [message, setMessage] = useState(error);
  const [busy, setBusy] = useState(false);

  const loadCaptcha = useCallback(async () => {
    try {
      setCaptcha((await getShareVerifyCode(link, { quiet: true })).data);
      setAnswer('');
    } catch (err) {
      setMessage(errorMessage(err));
    }
  }, [link]);
  useEffect(() => {
    if (needCaptcha) void loadCaptcha();
  }, [needCaptcha, loadCaptcha]);

  const submit = async () => {
    setBusy(true);
    try {
      const res = await loginShare({ link, ...(info.needCode ? { code: code.trim() } : {}), ...(needCaptcha && captcha ? { captchaId: captcha.captchaId, captchaAnswer: answer.trim() } : {}) }, { quiet: true });
      if (res.data) onToken(res.data.token, res.data, code.trim());
    } catch (err) {
      const c = codeOf(err);
      setMessage(errorMessage(err));
      // After wrong codes the server wants a CAPTCHA; a used one is never good twice.
      if (c === 'CAPTCHA_REQUIRED' || c === 'CAPTCHA_INVALID' || needCaptcha) {
        setNeedCaptcha(true);
        void loadCaptcha();
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <Form layout="vertical" onFinish={() => void submit()} data-testid="share-code-form">
      {info.needCode && (
        <Form.Item label={t('visit.enterCode')}>
          <Input autoFocus maxLength={8} value={code} placeholder={t('visit.codePlaceholder')} onChange={(e) => setCode(e.target.value)} data-testid="share-code" />
        </Form.Item>
      )}
      {needCaptcha && (
        <Form.Item label={t('visit.verifyCode')}>
          <Space>
            <Input maxLength={16} value={answer} placeholder={t('visit.verifyPlaceholder')} onChange={(e) => setAnswer(e.target.value)} data-testid="share-captcha" />
            {captcha && <img src={captcha.image} alt={t('visit.verifyCode')} height={36} data-testid="share-captcha-image" />}
            <Button type="link" onClick={() => void loadCaptcha()}>{t('visit.refreshImage')}</Button>
          </Space>
        </Form.Item>
      )}
      {message && <Alert type="error" showIcon message={message} style={{ marginBottom: 12 }} data-testid="share-code-error" />}
      <Button type="primary" htmlType="submit" loading={busy} disabled={(info.needCode && code.trim() === '') || (needCaptcha && answer.trim() === '')} data-testid="share-open">
        {t('visit.open')}
      </Button>
    </Form>
  );
}

interface Upload {
  name: string;
  size: number;
  loaded: number;
  error?: string;
}

interface Download {
  name: string;
  size: number;
  loaded: number;
  phase: 'transferring' | 'verifying' | 'done' | 'stopped' | 'failed';
  error?: string;
  resume?: () => void;
}

type SavePicker = (o: { suggestedName: string }) => Promise<FileSystemFileHandle>;

/** Hands a URL to the browser's download manager without leaving the page. */
function browserDownload(url: string, name: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

function Browser({ link, share, call }: { link: string; share: VisitorShare; call: <T>(fn: (headers: { shareToken: string }) => Promise<T>) => Promise<T> }) {
  const { t } = useTranslation();
  const [trail, setTrail] = useState<{ id: string; name: string }[]>([]);
  const [rows, setRows] = useState<ShareItem[]>(share.items);
  const [loading, setLoading] = useState(false);
  const [preview, setPreview] = useState<{ name: string; url: string } | undefined>();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [downloads, setDownloads] = useState<Download[]>([]);
  const [notice, setNotice] = useState<{ type: 'info' | 'warning' | 'error' | 'success'; text: string } | undefined>();
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const upload = share.shareType === 'upload';
  const listable = !upload || share.uploadAllowList === true;
  const parentId = trail.at(-1)?.id;

  const load = useCallback(async () => {
    if (!listable) return;
    setLoading(true);
    try {
      const res = await call((headers) => pageShareInstances({ ...(parentId ? { parentId } : {}), pageSize: 1000 }, { headers, quiet: true }));
      setRows(res.data?.list ?? []);
    } catch (err) {
      setNotice({ type: 'error', text: errorMessage(err) });
    } finally {
      setLoading(false);
    }
  }, [call, parentId, listable]);
  useEffect(() => {
    if (trail.length > 0 || upload) void load();
  }, [load, trail.length, upload]);

  const downloadZip = async (item: ShareItem) => {
    try {
      const res = (await call((headers) => shareGetZipDownloadUrl({ instanceIds: [item.instanceId] }, { headers, quiet: true }))).data;
      if (!res) return;
      browserDownload(res.url, `${item.instanceName}.zip`);
      const started = t('visitFolders.zipStarted', { name: `${item.instanceName}.zip` });
      setNotice({ type: 'success', text: res.downloadsLeft === null ? started : `${started} · ${t('visit.downloadsLeft', { count: res.downloadsLeft })}` });
    } catch (err) {
      setNotice({ type: 'error', text: errorMessage(err, { name: item.instanceName }) });
    }
  };

  /** Through the transfer engine into a picked file: ranged parts, resumed after a stop, SHA-256 verified. */
  const downloadPicked = async (item: ShareItem, pick: SavePicker) => {
    let handle: FileSystemFileHandle;
    try {
      handle = await pick({ suggestedName: item.instanceName });
    } catch {
      return; // the visitor closed the dialog
    }
    const { createShareDownload } = await import('../../shared/sharing/share-download.ts');
    const task = createShareDownload(link, call, item.instanceId, handle);
    const update = (patch: Partial<Download>) => setDownloads((d) => d.map((x) => (x.name === item.instanceName ? { ...x, ...patch } : x)));
    setDownloads((d) => [...d.filter((x) => x.name !== item.instanceName), { name: item.instanceName, size: item.fSize, loaded: 0, phase: 'transferring' }]);
    task.events.on('progress', (p) => update({ loaded: p.loaded, phase: p.phase === 'verifying' ? 'verifying' : 'transferring' }));
    const run = async () => {
      await task.run();
      if (task.status === 'success') {
        update({ loaded: item.fSize, phase: 'done', resume: undefined });
        setNotice({ type: 'success', text: t('visitFolders.downloaded', { name: item.instanceName }) });
      } else if (task.status === 'pause' || task.status === 'refresh') {
        // Stopped (network lost): the parts written so far stay, the next run fetches only the rest.
        update({ phase: 'stopped', resume: () => void (task.resume() || task.retry(), run()) });
      } else {
        update({ phase: 'failed', error: errorMessage(task.error?.cause instanceof HcsError ? task.error.cause : task.error), resume: undefined });
      }
    };
    await run();
  };

  const download = async (item: ShareItem) => {
    if (item.classifierId === 'Folder') return downloadZip(item);
    // The picker needs the click that is still fresh now: nothing is awaited before it.
    const pick = (window as unknown as { showSaveFilePicker?: SavePicker }).showSaveFilePicker;
    if (pick) return downloadPicked(item, pick.bind(window));
    try {
      const grant = (await call((headers) => triggerShareLimit({ instanceId: item.instanceId }, { headers, quiet: true }))).data;
      if (!grant) return;
      // The browser's own download manager fetches the granted URL (ranged: it resumes an interrupted download).
      browserDownload(grant.url, item.instanceName);
      setNotice({ type: 'success', text: grant.downloadsLeft === null ? t('visit.downloadStarted') : `${t('visit.downloadStarted')} · ${t('visit.downloadsLeft', { count: grant.downloadsLeft })}` });
    } catch (err) {
      setNotice({ type: 'error', text: errorMessage(err, { name: item.instanceName }) });
    }
  };

  const showPreview = async (item: ShareItem) => {
    try {
      const res = await call((headers) => shareGetPreview({ instanceId: item.instanceId }, { headers, quiet: true }));
      if (!res.data) return;
      if (IMAGE.test(item.instanceName)) setPreview({ name: item.instanceName, url: res.data.url });
      else window.open(res.data.url, '_blank', 'noopener');
    } catch (err) {
      setNotice({ type: 'error', text: errorMessage(err, { name: item.instanceName }) });
    }
  };

  const pick = async (list: FileList | null) => {
    if (!list) return;
    const picked = fromFileList(list);
    const outcome = evaluateSelection(picked.files.map((f) => ({ name: f.file.name, size: f.file.size })), { publicPage: true, pluginTipShown: true, clientChoice: 'web' });
    if (outcome.kind === 'empty') return setNotice({ type: 'info', text: t('transfer.empty') });
    if (outcome.kind === 'tooMany') return setNotice({ type: 'warning', text: t('transfer.uploadTooMuch') });
    if (outcome.kind === 'over80G') return setNotice({ type: 'error', text: `${t('transfer.over80G')}: ${outcome.names.join(', ')}` });
    if (outcome.steps.some((s) => s.kind === 'noMoreThan30G')) {
      const go = await new Promise<boolean>((resolve) => confirmDialog({ title: t('noMoreThan30G'), onOk: () => resolve(true), onCancel: () => resolve(false) }));
      if (!go) return;
    }
    // A folder's tree is made first, in one call that also checks the whole upload against the link's caps and the
    // owner's space: nothing is created for a folder that cannot fit.
    const folderOf = new Map<string, string>();
    if (picked.dirs.length > 0) {
      try {
        const bytes = picked.files.reduce((n, f) => n + f.file.size, 0);
        const res = await call((headers) =>
          shareCreateFolders({ ...(parentId ? { parentId } : {}), folders: picked.dirs.map((d) => d.split('/').map(encodeWireText)), files: picked.files.length, bytes }, { headers, quiet: true }),
        );
        res.data?.folders.forEach((f, i) => folderOf.set(picked.dirs[i]!, f.instanceId));
      } catch (err) {
        setNotice({ type: 'error', text: t('visitFolders.folderRoom', { reason: errorMessage(err) }) });
        if (folderInput.current) folderInput.current.value = '';
        return;
      }
    }
    const { createShareUploader } = await import('../../shared/sharing/share-upload.ts');
    let token = sessionStorage.getItem(tokenKey(link)) ?? '';
    const uploader = createShareUploader(link, () => token);
    const label = (f: (typeof picked.files)[number]) => (f.dir ? `${f.dir}/${f.file.name}` : f.file.name);
    const queue = picked.files.map((f) => ({ name: label(f), size: f.file.size, loaded: 0 }));
    setUploads(queue);
    let done = 0;
    for (const [i, f] of picked.files.entries()) {
      try {
        await call(async () => {
          token = sessionStorage.getItem(tokenKey(link)) ?? '';
          await uploader.upload(f.file, f.dir ? folderOf.get(f.dir) : parentId, (loaded) => setUploads((u) => u.map((x, j) => (j === i ? { ...x, loaded } : x))));
        });
        done += 1;
        setUploads((u) => u.map((x, j) => (j === i ? { ...x, loaded: x.size } : x)));
      } catch (err) {
        const reason = errorMessage(err);
        setUploads((u) => u.map((x, j) => (j === i ? { ...x, error: reason } : x)));
      }
    }
    const top = picked.dirs.find((d) => !d.includes('/'));
    setNotice({ type: 'success', text: top ? t('visitFolders.folderUploaded', { name: top, count: done }) : t('visit.uploaded', { count: done }) });
    if (fileInput.current) fileInput.current.value = '';
    if (folderInput.current) folderInput.current.value = '';
    void load();
  };

  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      <Typography.Text type="secondary" data-testid="share-facts">
        {t('visit.sharedBy', { name: share.userName })} · {share.expireTime ? t('visit.expiresAt', { time: formatDate(share.expireTime) }) : t('visit.neverExpires')}
        {share.downloadsLeft !== null && share.downloadsLeft !== undefined ? ` · ${t('visit.downloadsLeft', { count: share.downloadsLeft })}` : ''}
      </Typography.Text>
      {share.previewOnly && <Alert type="info" showIcon message={t('visit.previewOnly')} />}
      {upload && (
        <Space wrap>
          <Typography.Text>{t('visit.uploadOnly')}</Typography.Text>
          <input ref={fileInput} type="file" multiple hidden onChange={(e) => void pick(e.target.files)} data-testid="share-upload-input" />
          <Button type="primary" onClick={() => fileInput.current?.click()} data-testid="share-upload-files">{t('visit.uploadFiles')}</Button>
          {/* webkitdirectory is not in React's input attributes: the browser then picks a whole folder. */}
          <input ref={folderInput} type="file" multiple hidden {...{ webkitdirectory: '' }} onChange={(e) => void pick(e.target.files)} data-testid="share-upload-folder-input" />
          <Button onClick={() => folderInput.current?.click()} data-testid="share-upload-folder">{t('visit.uploadFolder')}</Button>
        </Space>
      )}
      {notice && <Alert type={notice.type} showIcon closable message={notice.text} onClose={() => setNotice(undefined)} data-testid="share-notice" />}
      {downloads.length > 0 && (
        <div data-testid="share-downloads">
          {downloads.map((d) => (
            <div key={d.name} data-testid={`share-transfer-${d.name}`} data-phase={d.phase}>
              <Typography.Text>{t(d.phase === 'verifying' ? 'visitFolders.verifying' : d.phase === 'done' ? 'visitFolders.downloaded' : 'visitFolders.downloading', { name: d.name })}</Typography.Text>
              <Progress percent={d.size === 0 ? 100 : Math.floor((d.loaded / d.size) * 100)} status={d.phase === 'failed' ? 'exception' : d.phase === 'done' ? 'success' : undefined} size="small" />
              {d.error && <Typography.Text type="danger">{t('visitFolders.downloadFailed', { name: d.name, reason: d.error })}</Typography.Text>}
              {d.resume && <Button size="small" onClick={d.resume} data-testid={`share-resume-${d.name}`}>{t('visitFolders.downloadAgain')}</Button>}
            </div>
          ))}
        </div>
      )}
      {uploads.length > 0 && (
        <div data-testid="share-uploads">
          {uploads.map((u) => (
            <div key={u.name}>
              <Typography.Text>{u.name}</Typography.Text>
              <Progress percent={u.size === 0 ? 100 : Math.floor((u.loaded / u.size) * 100)} status={u.error ? 'exception' : undefined} size="small" />
              {u.error && <Typography.Text type="danger">{t('visit.uploadFailed', { name: u.name, reason: u.error })}</Typography.Text>}
            </div>
          ))}
        </div>
      )}
      {listable && (
        <>
          <Breadcrumb
            items={[{ title: <a onClick={() => setTrail([])}>{t('visit.root')}</a> }, ...trail.map((c, i) => ({ title: <a onClick={() => setTrail(trail.slice(0, i + 1))}>{c.name}</a> }))]}
          />
          <Table<ShareItem>
            rowKey="instanceId"
            size="middle"
            loading={loading}
            dataSource={rows}
            pagination={false}
            locale={{ emptyText: t('visit.empty') }}
            columns={[
              {
                title: t('files.name'),
                key: 'name',
                render: (_: unknown, r) =>
                  r.classifierId === 'Folder' ? (
                    <a onClick={() => setTrail([...trail, { id: r.instanceId, name: r.instanceName }])} data-testid={`share-item-${r.instanceName}`}>{r.instanceName}</a>
                  ) : (
                    <span data-testid={`share-item-${r.instanceName}`}>{r.instanceName}</span>
                  ),
              },
              { title: t('files.size'), dataIndex: 'fSize', width: 120, render: (v: number, r) => (r.classifierId === 'Folder' ? '-' : formatSize(v)) },
              {
                title: t('files.actions'),
                key: 'actions',
                width: 200,
                render: (_: unknown, r) => (
                  <Space size={0}>
                    {r.classifierId === 'File' && <Button type="link" size="small" onClick={() => void showPreview(r)} data-testid={`share-preview-${r.instanceName}`}>{t('visit.preview')}</Button>}
                    {!share.previewOnly && (
                      <Button type="link" size="small" onClick={() => void download(r)} data-testid={`share-download-${r.instanceName}`}>{t('visit.download')}</Button>
                    )}
                  </Space>
                ),
              },
            ]}
          />
        </>
      )}
      {preview && (
        <Image style={{ display: 'none' }} src={preview.url} alt={preview.name} preview={{ visible: true, src: preview.url, onVisibleChange: (v) => !v && setPreview(undefined) }} />
      )}
    </Space>
  );
}

export default function FileDownloadPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const link = params.get('link') ?? '';
  const valid = LINK.test(link);
  const [stage, setStage] = useState<Stage>({ kind: 'checking' });
  // The code the visitor typed, kept in memory only, for the re-login rule.
  const code = useRef('');
  const tries = useRef(0);

  const ask = useCallback(async (error?: string) => {
    try {
      const info = (await checkLink({ link }, { quiet: true })).data;
      if (!info) return;
      if (!info.needCode && !info.needVerifyCode && !error) {
        const res = await loginShare({ link }, { quiet: true });
        if (res.data) {
          sessionStorage.setItem(tokenKey(link), res.data.token);
          setStage({ kind: 'open', share: res.data });
        }
        return;
      }
      setStage({ kind: 'code', info, ...(error ? { error } : {}) });
    } catch (err) {
      if (codeOf(err) === 'NOT_IMPLEMENTED') setStage({ kind: 'unavailable' });
      else setStage({ kind: 'gone', message: errorMessage(err) });
    }
  }, [link]);

  useEffect(() => {
    if (valid) void ask();
  }, [valid, ask]);

  /** A visitor call with the token; a token the server stopped accepting is traded again (at most 3 times in a row). */
  const call = useCallback(async <T,>(fn: (headers: { shareToken: string }) => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        const out = await fn({ shareToken: sessionStorage.getItem(tokenKey(link)) ?? '' });
        tries.current = 0;
        return out;
      } catch (err) {
        if (codeOf(err) !== 'SHARE_TOKEN_INVALID') {
          const c = codeOf(err);
          // The link itself ended (cancelled, expired, used up): nothing below it is reachable any more.
          if (c === 'SHARE_CANCELLED' || c === 'SHARE_EXPIRED' || c === 'SHARE_NOT_FOUND') setStage({ kind: 'gone', message: errorMessage(err) });
          throw err;
        }
        sessionStorage.removeItem(tokenKey(link));
        tries.current += 1;
        if (tries.current > RELOGIN_TRIES) {
          setStage({ kind: 'exhaustedTries' });
          throw err;
        }
        try {
          const res = await loginShare({ link, ...(code.current ? { code: code.current } : {}) }, { quiet: true });
          if (!res.data) throw err;
          sessionStorage.setItem(tokenKey(link), res.data.token);
        } catch (again) {
          void ask(codeMessage('SHARE_TOKEN_INVALID') ?? t('visit.signInAgain'));
          throw again;
        }
      }
    }
  }, [link, ask, t]);

  let body;
  if (!valid) body = <Result status="warning" title={t('share.invalidLink')} data-testid="share-invalid" />;
  else if (stage.kind === 'checking') body = <Card loading />;
  else if (stage.kind === 'unavailable') body = <NotAvailable />;
  else if (stage.kind === 'gone') body = <Result status="warning" title={stage.message} data-testid="share-gone" />;
  else if (stage.kind === 'exhaustedTries') body = <Result status="warning" title={t('visit.tooManyTries')} data-testid="share-tries" />;
  else if (stage.kind === 'code') {
    body = (
      <CodeForm
        link={link}
        info={stage.info}
        error={stage.error}
        onToken={(token, share, typed) => {
          code.current = typed;
          tries.current = 0;
          sessionStorage.setItem(tokenKey(link), token);
          setStage({ kind: 'open', share });
        }}
      />
    );
  } else body = <Browser link={link} share={stage.share} call={call} />;

  return (
    <div className="hcs-file-download" data-testid="file-download" style={{ maxWidth: 960, margin: '48px auto', padding: '0 16px' }}>
      <Card title={t('visit.title')}>{body}</Card>
    </div>
  );
}
