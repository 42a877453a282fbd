// /mySharing (issue #17): the owner's public links. Search by item name and status, copy the address, change the
// code, expiry, limits and options, cancel or delete, and read a link's share log (every visit, code attempt,
// preview, download and upload). Links are created from the file lists (CreateLinkDialog).
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Button, Drawer, Input, Modal, Select, Space, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { cancelShare, deleteShares, getPageShareLogsQueryKey, getPageSharesQueryKey, modifyShare, pageShareLogs, pageShares } from '../../api/gen/shares/shares.ts';
import type { FileShare } from '../../api/gen/model/fileShare.ts';
import type { ShareLog } from '../../api/gen/model/shareLog.ts';
import type { ShareStatus } from '../../api/gen/model/shareStatus.ts';
import { codeMessage, errorMessage } from '../../shared/error-message.ts';
import { formatDate } from '../../shared/format.ts';
import { confirmDialog, toastError, toastSuccess } from '../../shared/notify.ts';
import { DEFAULT_FORM, formValid, LinkSettingsFields, settingsOf, type LinkForm } from '../../shared/sharing/CreateLinkDialog.tsx';
import { copyText, LinkResult, linkText } from '../../shared/sharing/LinkResult.tsx';

const STATUS_COLOUR: Record<ShareStatus, string> = { active: 'green', expired: 'default', cancelled: 'red', exhausted: 'orange' };
const STATUSES: readonly ShareStatus[] = ['active', 'expired', 'cancelled', 'exhausted'];

/** The form as a link's current settings fill it (the code itself is never known: "keep" is the default). */
function formOf(s: FileShare): LinkForm {
  return {
    ...DEFAULT_FORM,
    codeMode: s.hasCode ? 'generate' : 'none',
    expiry: s.expireTime === null ? 'never' : 'date',
    date: s.expireTime === null ? undefined : dayjs(s.expireTime),
    maxViews: s.maxViews, maxDownloads: s.maxDownloads, previewOnly: s.previewOnly, verifyCode: s.verifyCode, watermark: s.watermark === true,
    uploadMaxFiles: s.uploadMaxFiles ?? null, uploadMaxMb: s.uploadMaxBytes ? s.uploadMaxBytes / (1024 * 1024) : null, uploadAllowList: s.uploadAllowList === true,
  };
}

const limitText = (used: number, max: number | null) => (max === null ? String(used) : `${used}/${max}`);

function LogDrawer({ share, onClose }: { share: FileShare; onClose: () => void }) {
  const { t } = useTranslation();
  const [pageNo, setPageNo] = useState(1);
  const params = { shareId: share.shareId, pageNo, pageSize: 20 };
  const logs = useQuery({ queryKey: getPageShareLogsQueryKey(params), queryFn: async ({ signal }) => (await pageShareLogs(params, { signal, quiet: true })).data });
  return (
    <Drawer open width={820} title={t('sharing.logTitle', { name: share.items.map((i) => i.instanceName).join(', ') })} onClose={onClose} data-testid="link-log">
      <Table<ShareLog>
        rowKey="id"
        size="small"
        loading={logs.isLoading}
        dataSource={logs.data?.list ?? []}
        pagination={{ current: pageNo, pageSize: 20, total: logs.data?.total ?? 0, onChange: setPageNo }}
        columns={[
          { title: t('sharing.logType'), dataIndex: 'optType', width: 120, render: (v: string) => t(`sharing.log.${v}`) },
          { title: t('sharing.logObject'), dataIndex: 'optObjName' },
          { title: t('sharing.logSubject'), dataIndex: 'optSubject', width: 110 },
          { title: 'IP', dataIndex: 'ip', width: 130 },
          { title: t('sharing.logDevice'), dataIndex: 'optDevice', ellipsis: true },
          { title: t('sharing.logTime'), dataIndex: 'createTime', width: 170, render: (v: number) => formatDate(v) },
        ]}
      />
    </Drawer>
  );
}

export default function MySharingPage() {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const [status, setStatus] = useState<ShareStatus | undefined>();
  const [pageNo, setPageNo] = useState(1);
  const params = { pageNo, pageSize: 20, ...(keyword ? { keyword } : {}), ...(status ? { status } : {}) };
  const shares = useQuery({ queryKey: getPageSharesQueryKey(params), queryFn: async ({ signal }) => (await pageShares(params, { signal, quiet: true })).data });
  const [editing, setEditing] = useState<{ share: FileShare; form: LinkForm } | undefined>();
  const [changed, setChanged] = useState<FileShare | undefined>();
  const [logsOf, setLogsOf] = useState<FileShare | undefined>();
  const [selected, setSelected] = useState<string[]>([]);

  const refresh = () => void shares.refetch();
  const save = async () => {
    if (!editing) return;
    try {
      const res = await modifyShare(editing.share.shareId, settingsOf(editing.form, editing.share.shareType === 'upload', true), { quiet: true });
      setEditing(undefined);
      // A new code is shown this once, like on creation.
      if (res.data?.code) setChanged(res.data);
      else toastSuccess(t('sharing.saved'));
      refresh();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };
  const batch = (ids: string[], kind: 'cancel' | 'delete') =>
    confirmDialog({
      title: t(kind === 'cancel' ? 'sharing.cancelConfirm' : 'sharing.deleteConfirm', { count: ids.length }),
      okText: t('files.ok'),
      cancelText: t('files.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          const res = kind === 'cancel' ? await cancelShare({ shareIds: ids }, { quiet: true }) : await deleteShares({ shareIds: ids.join(',') }, { quiet: true });
          const failed = res.data?.failed?.[0];
          if (failed) toastError(codeMessage(failed.code) ?? t('errors.unexpected'));
          setSelected([]);
          refresh();
        } catch (err) {
          toastError(errorMessage(err));
        }
      },
    });

  return (
    <div data-testid="my-sharing-page">
      <Space style={{ marginBottom: 12, width: '100%', justifyContent: 'space-between' }} wrap>
        <Space wrap>
          <Input.Search allowClear placeholder={t('sharing.search')} onSearch={(v) => { setKeyword(v.trim()); setPageNo(1); }} style={{ width: 260 }} data-testid="link-search" />
          <Select allowClear placeholder={t('sharing.status')} value={status} onChange={(v?: ShareStatus) => { setStatus(v); setPageNo(1); }} style={{ width: 140 }}
            options={STATUSES.map((s) => ({ value: s, label: t(`sharing.statusName.${s}`) }))} />
          <Button disabled={selected.length === 0} onClick={() => batch(selected, 'cancel')}>{t('sharing.cancelLink')}</Button>
          <Button danger disabled={selected.length === 0} onClick={() => batch(selected, 'delete')}>{t('files.delete')}</Button>
        </Space>
        <Link to="/dlpApproval">{t('routes.dlpApproval')}</Link>
      </Space>
      <Typography.Paragraph type="secondary">{t('sharing.createHint')}</Typography.Paragraph>
      <Table<FileShare>
        rowKey="shareId"
        size="middle"
        loading={shares.isLoading}
        dataSource={shares.data?.list ?? []}
        rowSelection={{ selectedRowKeys: selected, onChange: (keys) => setSelected(keys as string[]) }}
        pagination={{ current: pageNo, pageSize: 20, total: shares.data?.total ?? 0, onChange: setPageNo }}
        columns={[
          {
            title: t('sharing.items'),
            key: 'items',
            render: (_: unknown, s) => (
              <Space direction="vertical" size={0}>
                <span data-testid={`link-row-${s.shareId}`}>{s.items.map((i) => i.instanceName).join(', ')}</span>
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>{t(s.shareType === 'upload' ? 'sharing.typeUpload' : 'sharing.typeDownload')}{s.previewOnly ? ` · ${t('sharing.previewOnly')}` : ''}</Typography.Text>
              </Space>
            ),
          },
          { title: t('sharing.status'), dataIndex: 'status', width: 100, render: (v: ShareStatus) => <Tag color={STATUS_COLOUR[v]}>{t(`sharing.statusName.${v}`)}</Tag> },
          { title: t('sharing.expiry'), dataIndex: 'expireTime', width: 170, render: (v: number | null) => (v === null ? t('sharing.expiryNever') : formatDate(v)) },
          { title: t('sharing.views'), key: 'views', width: 90, render: (_: unknown, s) => limitText(s.viewCount, s.maxViews) },
          { title: t('sharing.downloads'), key: 'downloads', width: 90, render: (_: unknown, s) => (s.shareType === 'upload' ? limitText(s.uploadCount ?? 0, s.uploadMaxFiles ?? null) : limitText(s.downloadCount, s.maxDownloads)) },
          { title: t('files.createTime'), dataIndex: 'createTime', width: 170, render: (v: number) => formatDate(v) },
          {
            title: t('files.actions'),
            key: 'actions',
            width: 260,
            render: (_: unknown, s) => (
              <Space size={0} wrap>
                <Button type="link" size="small" onClick={() => void copyText(linkText(s.fullLink))} data-testid={`link-copy-${s.shareId}`}>{t('sharing.copyLink')}</Button>
                {s.status !== 'cancelled' && (
                  <Button type="link" size="small" onClick={() => setEditing({ share: s, form: formOf(s) })} data-testid={`link-edit-${s.shareId}`}>{t('sharing.modify')}</Button>
                )}
                <Button type="link" size="small" onClick={() => setLogsOf(s)} data-testid={`link-logs-${s.shareId}`}>{t('sharing.logs')}</Button>
                {s.status !== 'cancelled' && (
                  <Button type="link" size="small" danger onClick={() => batch([s.shareId], 'cancel')}>{t('sharing.cancelLink')}</Button>
                )}
              </Space>
            ),
          },
        ]}
      />
      <Modal
        open={editing !== undefined}
        title={t('sharing.modify')}
        okText={t('files.ok')}
        cancelText={t('files.cancel')}
        onCancel={() => setEditing(undefined)}
        onOk={() => void save()}
        okButtonProps={{ disabled: !editing || !formValid(editing.form) }}
        destroyOnHidden
      >
        {editing && <LinkSettingsFields form={editing.form} set={(form) => setEditing({ ...editing, form })} upload={editing.share.shareType === 'upload'} modify />}
      </Modal>
      <Modal open={changed !== undefined} title={t('sharing.modify')} footer={null} onCancel={() => setChanged(undefined)} destroyOnHidden>
        {changed && <LinkResult share={changed} />}
      </Modal>
      {logsOf && <LogDrawer share={logsOf} onClose={() => setLogsOf(undefined)} />}
    </div>
  );
}
