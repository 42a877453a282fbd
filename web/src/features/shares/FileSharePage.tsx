// /fileShare (issue #17 part 1): internal shares. "Shared with me" lists what reaches the caller and opens a shared
// folder, browsed through its fileSharingId (the server holds every call to that share and the caller's share role);
// "Shared by me" lists the caller's shares with their recipients, to modify or cancel. Both page and search.
// What a row allows is the server's decision (rows carry isDisabled without delete); a refusal shows its code's text.
import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Breadcrumb, Button, Empty, Input, Modal, Select, Space, Table, Tabs, Tag, Typography } from 'antd';
import { ArrowLeftOutlined, FileOutlined, FolderOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { deleteFileSharing, modifyFileSharing, pageFileSharing, pageFileSharingList } from '../../api/gen/shares/shares.ts';
import { deleteInstances, listInstances } from '../../api/gen/files/files.ts';
import { getPreview, getS3DownloadUrl } from '../../api/gen/download/download.ts';
import type { FileSharing } from '../../api/gen/model/fileSharing.ts';
import type { Instance } from '../../api/gen/model/instance.ts';
import type { ShareRoleCode } from '../../api/gen/model/shareRoleCode.ts';
import { codeMessage, errorMessage } from '../../shared/error-message.ts';
import { formatDate, formatSize } from '../../shared/format.ts';
import { confirmDialog, toastError, toastSuccess } from '../../shared/notify.ts';
import { roleLabel, ShareDialog, useShareRoles } from '../../shared/ShareDialog.tsx';

type Tab = 'withMe' | 'byMe';
const TAB_PARAM = 'tab';
const PAGE_SIZE = 20;

export default function FileSharePage() {
  const { t } = useTranslation();
  const [search, setSearch] = useSearchParams();
  const tab: Tab = search.get(TAB_PARAM) === 'byMe' ? 'byMe' : 'withMe';
  const [browsing, setBrowsing] = useState<FileSharing | undefined>();
  if (browsing) return <SharedFolder share={browsing} onBack={() => setBrowsing(undefined)} />;
  return (
    <Tabs
      activeKey={tab}
      onChange={(k) => setSearch(new URLSearchParams(k === 'byMe' ? { [TAB_PARAM]: k } : {}))}
      items={[
        { key: 'withMe', label: <span data-testid="shares-tab-withMe">{t('shares.withMe')}</span>, children: <ShareList tab="withMe" onOpen={setBrowsing} /> },
        { key: 'byMe', label: <span data-testid="shares-tab-byMe">{t('shares.byMe')}</span>, children: <ShareList tab="byMe" onOpen={setBrowsing} /> },
      ]}
    />
  );
}

function ShareList({ tab, onOpen }: { tab: Tab; onOpen: (s: FileSharing) => void }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const roles = useShareRoles();
  const [keyword, setKeyword] = useState('');
  const [pageNo, setPageNo] = useState(1);
  const [modifying, setModifying] = useState<FileSharing | undefined>();
  const [preview, setPreview] = useState<{ name: string; url: string } | undefined>();
  const key = ['shares', tab, keyword, pageNo];
  const page = useQuery({
    queryKey: key,
    queryFn: async ({ signal }) => {
      const params = { pageNo, pageSize: PAGE_SIZE, ...(keyword ? { keyword } : {}) };
      return (await (tab === 'withMe' ? pageFileSharingList(params, { signal, quiet: true }) : pageFileSharing(params, { signal, quiet: true }))).data;
    },
    placeholderData: keepPreviousData,
  });
  const reload = () => void queryClient.invalidateQueries({ queryKey: ['shares', tab] });
  const roleName = (code: string | undefined) => {
    const r = roles.data?.find((x) => x.roleCode === code);
    return r ? roleLabel(r, i18n.language) : (code ?? '');
  };

  const cancel = (s: FileSharing) => confirmDialog({
    title: t('shares.cancel'),
    content: t('shares.cancelConfirm', { name: s.instanceName }),
    okButtonProps: { danger: true, 'data-testid': 'share-cancel-ok' } as never,
    onOk: async () => {
      try {
        await deleteFileSharing({ ids: s.fileSharingId }, { quiet: true });
        toastSuccess(t('shares.cancelled'));
        reload();
      } catch (err) {
        toastError(errorMessage(err, { name: s.instanceName }));
      }
    },
  });
  const openItem = async (s: FileSharing) => {
    if (s.classifierId === 'Folder') return onOpen(s);
    try {
      const url = (await getPreview({ instanceId: s.instanceId, fileSharingId: s.fileSharingId }, { quiet: true })).data?.url;
      if (url) setPreview({ name: s.instanceName, url });
    } catch (err) {
      toastError(errorMessage(err, { name: s.instanceName }));
    }
  };

  return (
    <div data-testid={`shares-${tab}`}>
      <Input.Search
        allowClear
        placeholder={t('shares.search')}
        onSearch={(v) => { setKeyword(v.trim()); setPageNo(1); }}
        style={{ width: 260, marginBottom: 12 }}
        data-testid={`shares-search-${tab}`}
      />
      <Table<FileSharing>
        rowKey="fileSharingId"
        loading={page.isLoading}
        dataSource={page.data?.list ?? []}
        locale={{ emptyText: <Empty description={page.error ? errorMessage(page.error) : t('shares.none')} /> }}
        pagination={{ current: pageNo, pageSize: PAGE_SIZE, total: page.data?.total ?? 0, onChange: setPageNo, showSizeChanger: false }}
        columns={[
          {
            title: t('shares.name'),
            key: 'name',
            render: (_, s) => (
              <Typography.Link onClick={() => void openItem(s)} data-testid={`share-open-${s.instanceName}`}>
                {s.classifierId === 'Folder' ? <FolderOutlined /> : <FileOutlined />} {s.instanceName}
              </Typography.Link>
            ),
          },
          tab === 'withMe'
            ? { title: t('shares.owner'), key: 'owner', render: (_, s) => s.ownerRealName || s.ownerName }
            : {
                title: t('shares.recipients'),
                key: 'recipients',
                render: (_, s) => (s.recipients ?? []).map((r) => <Tag key={`${r.kind}:${r.id}`}>{`${t(`shares.kind.${r.kind}`)}: ${r.realName || r.name} · ${roleName(r.roleCode)}`}</Tag>),
              },
          ...(tab === 'withMe' ? [{ title: t('shares.role'), key: 'role', render: (_: unknown, s: FileSharing) => roleName(s.roleCode) }] : []),
          { title: t('shares.time'), key: 'time', render: (_, s) => formatDate(s.createTime) },
          {
            title: t('shares.actions'),
            key: 'actions',
            render: (_, s) => (
              <Space>
                <Button size="small" onClick={() => void openItem(s)}>{s.classifierId === 'Folder' ? t('shares.open') : t('shares.preview')}</Button>
                {tab === 'byMe' && (
                  <>
                    <Button size="small" onClick={() => setModifying(s)} data-testid={`share-modify-${s.instanceName}`}>{t('shares.modify')}</Button>
                    <Button size="small" danger onClick={() => cancel(s)} data-testid={`share-cancel-${s.instanceName}`}>{t('shares.cancel')}</Button>
                  </>
                )}
              </Space>
            ),
          },
        ]}
      />
      <PreviewModal preview={preview} onClose={() => setPreview(undefined)} />
      {modifying && <ModifyDialog share={modifying} onClose={() => { setModifying(undefined); reload(); }} />}
    </div>
  );
}

function PreviewModal({ preview, onClose }: { preview: { name: string; url: string } | undefined; onClose: () => void }) {
  return (
    <Modal open={preview !== undefined} title={preview?.name} footer={null} onCancel={onClose} width={860} destroyOnHidden>
      {preview && <iframe title={preview.name} src={preview.url} sandbox="" style={{ width: '100%', height: 560, border: 0 }} data-testid="share-preview-frame" />}
    </Modal>
  );
}

/** The owner changes recipients' roles or removes them (modFileSharing replaces the set; it takes effect at once). */
function ModifyDialog({ share, onClose }: { share: FileSharing; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const roles = useShareRoles();
  const [list, setList] = useState(share.recipients ?? []);
  const [busy, setBusy] = useState(false);
  const save = async () => {
    setBusy(true);
    try {
      if (list.length === 0) await deleteFileSharing({ ids: share.fileSharingId }, { quiet: true });
      else await modifyFileSharing({ fileSharingId: share.fileSharingId, recipients: list.map((r) => ({ kind: r.kind, id: r.id, roleCode: r.roleCode })) }, { quiet: true });
      toastSuccess(t('shares.saved'));
      onClose();
    } catch (err) {
      toastError(errorMessage(err, { name: share.instanceName }));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal open title={t('shares.modifyTitle', { name: share.instanceName })} okText={t('shares.ok')} cancelText={t('shares.close')} onOk={() => void save()} onCancel={onClose} confirmLoading={busy}>
      {list.map((r, i) => (
        <Space key={`${r.kind}:${r.id}`} style={{ display: 'flex', marginBottom: 8 }}>
          <span style={{ minWidth: 180, display: 'inline-block' }}>{`${t(`shares.kind.${r.kind}`)}: ${r.realName || r.name}`}</span>
          <Select<ShareRoleCode>
            value={r.roleCode}
            style={{ width: 200 }}
            options={(roles.data ?? []).map((x) => ({ value: x.roleCode as ShareRoleCode, label: roleLabel(x, i18n.language) }))}
            onChange={(v) => setList(list.map((x, j) => (j === i ? { ...x, roleCode: v } : x)))}
          />
          <Button size="small" onClick={() => setList(list.filter((_, j) => j !== i))}>{t('shares.remove')}</Button>
        </Space>
      ))}
    </Modal>
  );
}

/** A shared folder, browsed through its share: every call carries the fileSharingId. */
function SharedFolder({ share, onBack }: { share: FileSharing; onBack: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [trail, setTrail] = useState<{ id: string; name: string }[]>([{ id: share.instanceId, name: share.instanceName }]);
  const [preview, setPreview] = useState<{ name: string; url: string } | undefined>();
  const [resharing, setResharing] = useState<Instance | undefined>();
  const here = trail[trail.length - 1]!;
  const fileSharingId = share.fileSharingId;
  const list = useQuery({
    queryKey: ['shares', 'browse', fileSharingId, here.id],
    queryFn: async ({ signal }) => (await listInstances({ parentId: here.id, fileSharingId, pageNo: 1, pageSize: 1000 }, { signal, quiet: true })).data,
  });
  const fail = (err: unknown, name: string) => toastError(errorMessage(err, { name }));
  const doPreview = async (i: Instance) => {
    try {
      const url = (await getPreview({ instanceId: i.instanceId, fileSharingId }, { quiet: true })).data?.url;
      if (url) setPreview({ name: i.instanceName, url });
    } catch (err) {
      fail(err, i.instanceName);
    }
  };
  const doDownload = async (i: Instance) => {
    try {
      const url = (await getS3DownloadUrl({ instanceId: i.instanceId, fileSharingId }, { quiet: true })).data?.url;
      if (!url) return;
      const a = document.createElement('a');
      a.href = url;
      a.download = i.instanceName;
      a.click();
    } catch (err) {
      fail(err, i.instanceName);
    }
  };
  const doDelete = (i: Instance) => confirmDialog({
    title: t('shares.delete'),
    content: i.instanceName,
    okButtonProps: { danger: true, 'data-testid': 'shared-delete-ok' } as never,
    onOk: async () => {
      try {
        const res = await deleteInstances({ ids: i.instanceId, fileSharingId }, { quiet: true });
        const failed = res.data?.failed?.[0];
        if (failed) return toastError(codeMessage(failed.code, { name: i.instanceName }) ?? failed.msg);
        toastSuccess(t('shares.deleted'));
        void queryClient.invalidateQueries({ queryKey: ['shares', 'browse', fileSharingId] });
      } catch (err) {
        fail(err, i.instanceName);
      }
    },
  });

  return (
    <div data-testid="shared-folder">
      <Space style={{ marginBottom: 12 }}>
        <Button icon={<ArrowLeftOutlined />} onClick={onBack} data-testid="shared-back">{t('shares.back')}</Button>
        <Breadcrumb
          items={trail.map((c, i) => ({
            title: i < trail.length - 1 ? <Typography.Link onClick={() => setTrail(trail.slice(0, i + 1))}>{c.name}</Typography.Link> : c.name,
          }))}
        />
      </Space>
      <Table<Instance>
        rowKey="instanceId"
        loading={list.isLoading}
        dataSource={list.data?.list ?? []}
        pagination={false}
        locale={{ emptyText: <Empty description={list.error ? errorMessage(list.error) : t('shares.empty')} /> }}
        columns={[
          {
            title: t('shares.name'),
            key: 'name',
            render: (_, i) => (i.classifierId === 'Folder'
              ? <Typography.Link onClick={() => setTrail([...trail, { id: i.instanceId, name: i.instanceName }])} data-testid={`shared-row-${i.instanceName}`}><FolderOutlined /> {i.instanceName}</Typography.Link>
              : <span data-testid={`shared-row-${i.instanceName}`}><FileOutlined /> {i.instanceName}</span>),
          },
          { title: '', key: 'size', render: (_, i) => (i.classifierId === 'File' ? formatSize(i.fSize) : '') },
          { title: t('shares.time'), key: 'time', render: (_, i) => formatDate(i.updateTime) },
          {
            title: t('shares.actions'),
            key: 'actions',
            render: (_, i) => (
              <Space>
                {i.classifierId === 'File' && (
                  <>
                    <Button size="small" onClick={() => void doPreview(i)} data-testid={`shared-preview-${i.instanceName}`}>{t('shares.preview')}</Button>
                    <Button size="small" onClick={() => void doDownload(i)} data-testid={`shared-download-${i.instanceName}`}>{t('shares.download')}</Button>
                  </>
                )}
                <Button size="small" onClick={() => setResharing(i)}>{t('shares.shareWithColleagues')}</Button>
                <Button size="small" danger disabled={i.isDisabled === true} onClick={() => doDelete(i)} data-testid={`shared-delete-${i.instanceName}`}>{t('shares.delete')}</Button>
              </Space>
            ),
          },
        ]}
      />
      <PreviewModal preview={preview} onClose={() => setPreview(undefined)} />
      <ShareDialog item={resharing} fileSharingId={fileSharingId} onClose={() => setResharing(undefined)} />
    </div>
  );
}
