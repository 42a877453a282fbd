// The create-link dialog (issue #17, /mySharing): a public download link to the chosen items, or an upload link into
// one folder. Before creating, the items are checked against the DLP rules (checkDLP); a blocked share is not
// created but may be sent for approval (checkAuth). The server enforces both again: this only saves a round trip
// and explains the refusal. The answer's code is shown this once (the server keeps only its hash).
import { useState } from 'react';
import { Alert, Button, Checkbox, DatePicker, Form, Input, InputNumber, Modal, Radio, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Dayjs } from 'dayjs';
import { checkAuth, checkDLP } from '../../api/gen/dlp/dlp.ts';
import { createShare } from '../../api/gen/shares/shares.ts';
import type { DlpHit } from '../../api/gen/model/dlpHit.ts';
import type { FileShare } from '../../api/gen/model/fileShare.ts';
import type { ShareSettings } from '../../api/gen/model/shareSettings.ts';
import { errorMessage } from '../error-message.ts';
import { toastError, toastSuccess } from '../notify.ts';
import { LinkResult } from './LinkResult.tsx';

export interface LinkItem {
  instanceId: string;
  instanceName: string;
  classifierId: string;
}

type CodeMode = 'generate' | 'choose' | 'none';
type ExpiryMode = 'days' | 'date' | 'never';

export interface LinkForm {
  codeMode: CodeMode;
  code: string;
  expiry: ExpiryMode;
  days: number;
  date?: Dayjs | null;
  maxViews: number | null;
  maxDownloads: number | null;
  previewOnly: boolean;
  verifyCode: boolean;
  watermark: boolean;
  uploadMaxFiles: number | null;
  uploadMaxMb: number | null;
  uploadAllowList: boolean;
}

export const DEFAULT_FORM: LinkForm = {
  codeMode: 'generate', code: '', expiry: 'days', days: 7, maxViews: null, maxDownloads: null, previewOnly: false, verifyCode: false,
  watermark: false, uploadMaxFiles: null, uploadMaxMb: null, uploadAllowList: false,
};

const CODE = /^[A-Za-z0-9]{4,8}$/;
const MB = 1024 * 1024;

/** The settings the form sends (create and modify share them); `modify` leaves the code alone unless asked. */
export function settingsOf(f: LinkForm, upload: boolean, modify = false): ShareSettings {
  const s: ShareSettings = {
    maxViews: f.maxViews, maxDownloads: upload ? null : f.maxDownloads, previewOnly: f.previewOnly || f.watermark, verifyCode: f.verifyCode,
    watermark: f.watermark,
  };
  if (f.codeMode === 'choose') s.code = f.code.trim();
  else if (f.codeMode === 'generate' && !modify) s.generateCode = true;
  else if (f.codeMode === 'none' && modify) s.removeCode = true;
  if (f.expiry === 'days') s.days = f.days;
  else if (f.expiry === 'date' && f.date) s.expireTime = f.date.endOf('day').valueOf();
  else if (f.expiry === 'never' && modify) s.expireTime = null;
  if (upload) {
    s.uploadMaxFiles = f.uploadMaxFiles;
    s.uploadMaxBytes = f.uploadMaxMb === null ? null : Math.round(f.uploadMaxMb * MB);
    s.uploadAllowList = f.uploadAllowList;
  }
  return s;
}

export function formValid(f: LinkForm): boolean {
  if (f.codeMode === 'choose' && !CODE.test(f.code.trim())) return false;
  if (f.expiry === 'date' && !f.date) return false;
  return true;
}

/** The fields of a link's settings (create and modify). */
export function LinkSettingsFields({ form, set, upload, modify }: { form: LinkForm; set: (f: LinkForm) => void; upload: boolean; modify?: boolean }) {
  const { t } = useTranslation();
  const codeBad = form.codeMode === 'choose' && form.code !== '' && !CODE.test(form.code.trim());
  return (
    <Form layout="vertical">
      <Form.Item label={t('sharing.code')} validateStatus={codeBad ? 'error' : undefined} help={codeBad ? t('sharing.codeRule') : undefined}>
        <Space direction="vertical" style={{ width: '100%' }}>
          <Radio.Group value={form.codeMode} onChange={(e) => set({ ...form, codeMode: e.target.value as CodeMode })} data-testid="link-code-mode">
            <Radio value="generate">{t(modify ? 'sharing.codeKeep' : 'sharing.codeGenerate')}</Radio>
            <Radio value="choose">{t('sharing.codeChoose')}</Radio>
            <Radio value="none">{t('sharing.codeNone')}</Radio>
          </Radio.Group>
          {form.codeMode === 'choose' && (
            <Input value={form.code} maxLength={8} placeholder={t('sharing.codeRule')} onChange={(e) => set({ ...form, code: e.target.value })} data-testid="link-code" />
          )}
        </Space>
      </Form.Item>
      <Form.Item label={t('sharing.expiry')}>
        <Space wrap>
          <Radio.Group value={form.expiry} onChange={(e) => set({ ...form, expiry: e.target.value as ExpiryMode })}>
            <Radio value="days">{t('sharing.expiryDays')}</Radio>
            <Radio value="date">{t('sharing.expiryDate')}</Radio>
            <Radio value="never">{t('sharing.expiryNever')}</Radio>
          </Radio.Group>
          {form.expiry === 'days' && <InputNumber min={1} max={36500} value={form.days} onChange={(v) => set({ ...form, days: v ?? 1 })} addonAfter={t('sharing.daysUnit')} />}
          {form.expiry === 'date' && <DatePicker value={form.date} onChange={(date) => set({ ...form, date })} disabledDate={(d) => d.isBefore(new Date(), 'day')} />}
        </Space>
      </Form.Item>
      <Space wrap size="large">
        <Form.Item label={t('sharing.maxViews')}>
          <InputNumber min={1} max={1000000} value={form.maxViews} placeholder={t('sharing.unlimited')} onChange={(v) => set({ ...form, maxViews: v ?? null })} data-testid="link-max-views" />
        </Form.Item>
        {!upload && (
          <Form.Item label={t('sharing.maxDownloads')}>
            <InputNumber min={1} max={1000000} value={form.maxDownloads} placeholder={t('sharing.unlimited')} onChange={(v) => set({ ...form, maxDownloads: v ?? null })} data-testid="link-max-downloads" />
          </Form.Item>
        )}
      </Space>
      {upload ? (
        <Space wrap size="large">
          <Form.Item label={t('sharing.uploadMaxFiles')}>
            <InputNumber min={1} max={100000} value={form.uploadMaxFiles} placeholder={t('sharing.unlimited')} onChange={(v) => set({ ...form, uploadMaxFiles: v ?? null })} />
          </Form.Item>
          <Form.Item label={t('sharing.uploadMaxSize')}>
            <InputNumber min={1} value={form.uploadMaxMb} addonAfter="MB" placeholder={t('sharing.unlimited')} onChange={(v) => set({ ...form, uploadMaxMb: v ?? null })} />
          </Form.Item>
          <Form.Item>
            <Checkbox checked={form.uploadAllowList} onChange={(e) => set({ ...form, uploadAllowList: e.target.checked })}>{t('sharing.uploadAllowList')}</Checkbox>
          </Form.Item>
        </Space>
      ) : (
        <Space direction="vertical">
          <Checkbox checked={form.previewOnly || form.watermark} disabled={form.watermark} onChange={(e) => set({ ...form, previewOnly: e.target.checked })} data-testid="link-preview-only">
            {t('sharing.previewOnly')}
          </Checkbox>
          <Checkbox checked={form.watermark} onChange={(e) => set({ ...form, watermark: e.target.checked })} data-testid="link-watermark">
            {t('sharing.watermark')}
          </Checkbox>
        </Space>
      )}
      <div style={{ marginTop: 8 }}>
        <Checkbox checked={form.verifyCode} onChange={(e) => set({ ...form, verifyCode: e.target.checked })} data-testid="link-verify-code">
          {t('sharing.verifyCode')}
        </Checkbox>
      </div>
    </Form>
  );
}

/** The DLP refusal, with the request for approval. */
function Blocked({ items, hits, onDone }: { items: readonly LinkItem[]; hits: readonly DlpHit[]; onDone: () => void }) {
  const { t } = useTranslation();
  const [reason, setReason] = useState('');
  const [sending, setSending] = useState(false);
  const send = async () => {
    setSending(true);
    try {
      await checkAuth({ instanceIds: items.map((i) => i.instanceId), ...(reason.trim() ? { reason: reason.trim() } : {}) }, { quiet: true });
      toastSuccess(t('dlp.requested'));
      onDone();
    } catch (err) {
      toastError(errorMessage(err));
    } finally {
      setSending(false);
    }
  };
  return (
    <Space direction="vertical" style={{ width: '100%' }} data-testid="link-dlp-blocked">
      <Alert type="warning" showIcon message={t('dlp.blockedTitle')} description={t('dlp.blockedHint')} />
      <ul>
        {hits.map((h) => (
          <li key={`${h.instanceId}-${h.ruleId}`}>{t('dlp.hitLine', { name: h.instanceName, rule: t(`dlp.kind.${h.kind}`), value: h.value })}</li>
        ))}
      </ul>
      <Input.TextArea rows={2} maxLength={500} placeholder={t('dlp.reasonPlaceholder')} value={reason} onChange={(e) => setReason(e.target.value)} />
      <Button type="primary" loading={sending} onClick={() => void send()} data-testid="link-request-approval">
        {t('dlp.requestApproval')}
      </Button>
    </Space>
  );
}

export default function CreateLinkDialog({ items, onClose, onCreated }: { items: readonly LinkItem[]; onClose: () => void; onCreated?: (s: FileShare) => void }) {
  const { t } = useTranslation();
  const oneFolder = items.length === 1 && items[0]!.classifierId === 'Folder';
  const [upload, setUpload] = useState(false);
  const [form, setForm] = useState<LinkForm>(DEFAULT_FORM);
  const [busy, setBusy] = useState(false);
  const [blocked, setBlocked] = useState<DlpHit[] | undefined>();
  const [created, setCreated] = useState<FileShare | undefined>();
  const instanceIds = items.map((i) => i.instanceId);

  const create = async () => {
    setBusy(true);
    try {
      // Upload links share nothing out: the DLP rules guard what leaves, not what comes in.
      if (!upload) {
        const verdict = (await checkDLP({ instanceIds }, { quiet: true })).data;
        if (verdict && !verdict.pass) {
          setBlocked(verdict.hits);
          return;
        }
      }
      const res = await createShare({ instanceIds, shareType: upload ? 'upload' : 'download', ...settingsOf(form, upload) }, { quiet: true });
      if (res.data) {
        setCreated(res.data);
        onCreated?.(res.data);
      }
    } catch (err) {
      toastError(errorMessage(err, { name: items[0]?.instanceName }));
    } finally {
      setBusy(false);
    }
  };

  const title = items.length === 1 ? t('sharing.createFor', { name: items[0]!.instanceName }) : t('sharing.createForMany', { count: items.length });
  return (
    <Modal
      open
      title={title}
      onCancel={onClose}
      destroyOnHidden
      footer={created || blocked ? <Button onClick={onClose}>{t('sharing.close')}</Button> : undefined}
      okText={t('sharing.create')}
      cancelText={t('files.cancel')}
      onOk={() => void create()}
      okButtonProps={{ disabled: !formValid(form), loading: busy }}
      data-testid="link-create-dialog"
    >
      {created ? (
        <LinkResult share={created} />
      ) : blocked ? (
        <Blocked items={items} hits={blocked} onDone={onClose} />
      ) : (
        <>
          {oneFolder && (
            <Radio.Group value={upload ? 'upload' : 'download'} onChange={(e) => setUpload(e.target.value === 'upload')} style={{ marginBottom: 12 }} data-testid="link-type">
              <Radio.Button value="download">{t('sharing.typeDownload')}</Radio.Button>
              <Radio.Button value="upload">{t('sharing.typeUpload')}</Radio.Button>
            </Radio.Group>
          )}
          <Typography.Paragraph type="secondary">{t(upload ? 'sharing.uploadIntro' : 'sharing.downloadIntro')}</Typography.Paragraph>
          <LinkSettingsFields form={form} set={setForm} upload={upload} />
        </>
      )}
    </Modal>
  );
}
