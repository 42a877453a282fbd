// History versions of a file (issue #16 item 4): the current content first, then the kept versions newest first,
// each with time, size, author and SHA-256; download or preview any of them, and roll back (confirmed) to one.
import { Button, Modal, Space, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { getHistoryVersion, getGetHistoryVersionQueryKey, rollbackFile } from '../../api/gen/files/files.ts';
import { getS3DownloadUrl } from '../../api/gen/download/download.ts';
import type { FileVersion } from '../../api/gen/model/fileVersion.ts';
import type { Instance } from '../../api/gen/model/instance.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate, formatSize } from '../../shared/format.ts';
import { toastError, toastSuccess } from '../../shared/notify.ts';
import { previewKind } from './preview.ts';

/** A presigned link for one version, handed to the browser (download) or a new tab (preview). */
export async function openVersion(item: Instance, v: FileVersion, action: 'download' | 'preview'): Promise<void> {
  const res = await getS3DownloadUrl(
    { instanceId: item.instanceId, version: v.version, action, fileName: encodeURIComponent(item.instanceName) },
    { quiet: true },
  );
  const url = res.data?.url;
  if (!url) throw new Error('no url');
  if (action === 'preview') {
    window.open(url, '_blank', 'noopener');
    return;
  }
  const a = document.createElement('a');
  a.href = url;
  a.rel = 'noopener';
  a.download = '';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

export default function VersionsDialog({ item, onClose, onChanged }: { item: Instance | undefined; onClose: () => void; onChanged: () => void }) {
  const { t } = useTranslation();
  // The hook's modal lives in this tree: it has the app's providers and shows above this dialog.
  const [modal, holder] = Modal.useModal();
  const params = { instanceId: item?.instanceId ?? '' };
  const query = useQuery({
    queryKey: getGetHistoryVersionQueryKey(params),
    queryFn: async ({ signal }) => (await getHistoryVersion(params, { signal, quiet: true })).data,
    enabled: item !== undefined,
  });
  const act = (v: FileVersion, action: 'download' | 'preview') => {
    if (item) openVersion(item, v, action).catch((err: unknown) => toastError(errorMessage(err, { name: item.instanceName })));
  };
  const rollback = (v: FileVersion) => {
    if (!item) return;
    void modal.confirm({
      title: t('versions.rollbackConfirm', { version: v.version }),
      content: item.instanceName,
      okText: t('files.ok'),
      cancelText: t('files.cancel'),
      okButtonProps: { 'data-testid': 'rollback-confirm-ok' } as never,
      zIndex: 2100,
      onOk: async () => {
        try {
          await rollbackFile({ instanceId: item.instanceId, version: v.version }, { quiet: true });
          toastSuccess(t('versions.rolledBack', { version: v.version }));
          await query.refetch();
          onChanged();
        } catch (err) {
          toastError(errorMessage(err, { name: item.instanceName }));
        }
      },
    });
  };
  const canPreview = previewKind(item?.fType) !== 'none';
  // The actions column fits "Download", "Preview" and "Roll back" on one line (at 200 px the English roll back stuck
  // out past the dialog's edge); the SHA-256 column takes what is left, two lines of hex.
  return (
    <Modal open={item !== undefined} title={t('versions.titleOf', { name: item?.instanceName ?? '' })} onCancel={onClose} footer={null} width={1080} destroyOnHidden>
      {holder}
      {query.isError ? (
        <Typography.Text type="danger" data-testid="versions-error">
          {errorMessage(query.error)}
        </Typography.Text>
      ) : (
        <Table<FileVersion>
          rowKey="version"
          size="small"
          loading={query.isLoading}
          dataSource={query.data?.list ?? []}
          pagination={false}
          data-testid="versions-table"
          columns={[
            {
              title: t('versions.version'),
              dataIndex: 'version',
              width: 110,
              render: (v: number, r) => (
                <Space size={4}>
                  <span data-testid={`version-${v}`}>v{v}</span>
                  {r.current && <Tag color="blue">{t('versions.current')}</Tag>}
                </Space>
              ),
            },
            { title: t('versions.time'), dataIndex: 'createTime', width: 170, render: (v: number) => formatDate(v) },
            { title: t('files.size'), dataIndex: 'fSize', width: 100, render: (v: number) => formatSize(v) },
            { title: t('versions.author'), dataIndex: 'userName', width: 110, ellipsis: true },
            { title: 'SHA-256', dataIndex: 'fMd5', render: (v: string) => <Typography.Text code copyable={{ text: v }} style={{ fontSize: 11, wordBreak: 'break-all' }}>{v}</Typography.Text> },
            {
              title: t('files.actions'),
              key: 'actions',
              width: 250,
              render: (_: unknown, r) => (
                <Space size={0}>
                  <Button type="link" size="small" onClick={() => act(r, 'download')} data-testid={`version-download-${r.version}`}>
                    {t('files.download')}
                  </Button>
                  {canPreview && (
                    <Button type="link" size="small" onClick={() => act(r, 'preview')} data-testid={`version-preview-${r.version}`}>
                      {t('files.preview')}
                    </Button>
                  )}
                  {!r.current && (
                    <Button type="link" size="small" onClick={() => rollback(r)} data-testid={`version-rollback-${r.version}`}>
                      {t('versions.rollback')}
                    </Button>
                  )}
                </Space>
              ),
            },
          ]}
        />
      )}
    </Modal>
  );
}
