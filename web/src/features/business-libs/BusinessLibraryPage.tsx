// /businessLibrary (issue #18): the files of a custom business library with their attribute values as columns, a
// filter per attribute (the server filters, indexed), an attribute editor per file, and uploads that carry the
// chosen classifier's values (saved with the file; the server validates them and refuses the file otherwise).
// The library is the one opened from the home strip or the switcher (currentLib), or ?libCode=; a classifier menu
// entry narrows the screen to that classifier (?classifierId=). "Whole library" searches every folder of it.
import { useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Alert, Button, Checkbox, DatePicker, Empty, Form, Input, InputNumber, Modal, Select, Space, Table, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import {
  getListClassifiersQueryKey, getPageLibFilesQueryKey, listClassifiers, pageLibFiles, setInstanceAttrs,
} from '../../api/gen/business-libs/business-libs.ts';
import { useListBusinessLibs } from '../../api/gen/libraries/libraries.ts';
import type { Attribute, AttrValue, Classifier, LibFile } from '../../api/gen/model/index.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate, formatSize } from '../../shared/format.ts';
import { toastError, toastSuccess } from '../../shared/notify.ts';
import { useStore, useUserInfo } from '../../shared/session.ts';
import { NETDISK, SYSCONFIG } from '../../shared/libraries.ts';
import { openTransferPanel } from '../../shared/transfer-counters.ts';
import { fromFileList } from '../../shared/transfers/pick-files.ts';
import { planUpload, sessionMemory } from '../../shared/transfers/upload-flow.ts';
import { usePrompts } from '../../shared/transfers/use-prompts.tsx';
import { getTransferStore, useTransferSnapshot } from '../../shared/transfers/runtime.ts';

type Values = Record<string, AttrValue>;
const PAGE_SIZE = 20;

/** What a form field holds for an attribute -> the wire value (dates as YYYY-MM-DD, empty as null). */
function toWire(a: Attribute, v: unknown): AttrValue {
  if (v === undefined || v === null || v === '') return null;
  if (a.dataType === 'date') return dayjs.isDayjs(v) ? v.format('YYYY-MM-DD') : String(v);
  if (a.dataType === 'number') return Number(v);
  return String(v);
}
const toField = (a: Attribute, v: AttrValue | undefined): unknown => (a.dataType === 'date' && typeof v === 'string' ? dayjs(v) : v ?? undefined);

function AttrInput({ attr, testId, ...rest }: { attr: Attribute; testId: string; value?: unknown; onChange?: (v: unknown) => void }) {
  if (attr.dataType === 'enumeration') return <Select allowClear style={{ minWidth: 140 }} options={(attr.options ?? []).map((o) => ({ value: o, label: o }))} data-testid={testId} {...rest} />;
  if (attr.dataType === 'number') return <InputNumber style={{ width: 140 }} data-testid={testId} {...(rest as { value?: number; onChange?: (v: number | null) => void })} />;
  if (attr.dataType === 'date') return <DatePicker data-testid={testId} {...(rest as { value?: Dayjs; onChange?: (v: Dayjs | null) => void })} />;
  return <Input style={{ width: 160 }} data-testid={testId} {...(rest as { value?: string; onChange?: (e: unknown) => void })} />;
}

export default function BusinessLibraryPage() {
  const { t, i18n } = useTranslation();
  const en = i18n.language === 'en_US';
  const [params] = useSearchParams();
  const { currentLib } = useStore();
  const user = useUserInfo();
  const fromStore = currentLib && currentLib !== NETDISK && currentLib !== SYSCONFIG ? currentLib : undefined;
  const libCode = params.get('libCode') ?? fromStore;
  const classifierId = params.get('classifierId') ?? undefined;
  const libs = useListBusinessLibs();
  const lib = libs.data?.data?.find((l) => l.libCode === libCode);

  const [filter, setFilter] = useState<Values>({});
  const [search, setSearch] = useState<{ keyword?: string; deep: boolean }>({ deep: false });
  const [pageNo, setPageNo] = useState(1);
  const classifiers = useQuery({
    queryKey: getListClassifiersQueryKey({ libCode: libCode ?? '' }),
    enabled: !!libCode,
    queryFn: async ({ signal }) => (await listClassifiers({ libCode: libCode! }, { signal, quiet: true })).data ?? [],
  });
  const shown: Classifier[] = (classifiers.data ?? []).filter((c) => !classifierId || c.classifierId === classifierId);
  const attrs = useMemo(() => {
    const seen = new Map<string, Attribute>();
    for (const c of shown) for (const a of c.attributes) if (!seen.has(a.attrCode)) seen.set(a.attrCode, a);
    return [...seen.values()];
  }, [shown]);

  const query = { libCode: libCode ?? '', pageNo, pageSize: PAGE_SIZE, ...(classifierId ? { classifierId } : {}), ...(Object.keys(filter).length ? { attrFilter: JSON.stringify(filter) } : {}), ...(search.keyword ? { keyword: search.keyword } : {}), ...(search.deep ? { deep: true } : {}) };
  const files = useQuery({
    queryKey: getPageLibFilesQueryKey(query),
    enabled: !!libCode,
    queryFn: async ({ signal }) => (await pageLibFiles(query, { signal, quiet: true })).data,
  });

  const store = useMemo(() => getTransferStore(user?.userId ?? 'anonymous'), [user?.userId]);
  const finished = useTransferSnapshot(store).finished.length;
  const lastFinished = useRef(finished);
  const refetch = files.refetch;
  // A finished upload lands in this library: show it with its values without a manual reload.
  useEffect(() => {
    if (finished === lastFinished.current) return;
    lastFinished.current = finished;
    void refetch();
  }, [finished, refetch]);

  const [filterForm] = Form.useForm();
  const [editing, setEditing] = useState<LibFile | undefined>();
  const [editForm] = Form.useForm();
  const [uploading, setUploading] = useState(false);
  const [uploadForm] = Form.useForm();
  const prompts = usePrompts();
  const memory = useMemo(() => sessionMemory(), []);
  const fileInput = useRef<HTMLInputElement>(null);
  const pendingAttrs = useRef<{ classifierId: string; values: Values } | undefined>(undefined);
  const editCid = Form.useWatch('classifierId', editForm) as string | undefined;
  const uploadCid = Form.useWatch('classifierId', uploadForm) as string | undefined;

  if (!libCode) return <Empty description={t('bizlibs.chooseLibrary')} />;
  if (files.isError) return <Alert type="error" showIcon message={errorMessage(files.error)} data-testid="library-error" />;

  const attrsOf = (cid: string | undefined) => (classifiers.data ?? []).find((c) => c.classifierId === cid)?.attributes ?? [];
  const collect = (list: readonly Attribute[], form: Record<string, unknown>): Values => Object.fromEntries(list.map((a) => [a.attrCode, toWire(a, form[a.attrCode])]));
  const title = (c: Classifier) => (en ? c.classifierNameEn : c.classifierName);
  const attrTitle = (a: Attribute) => (en ? a.attrNameEn : a.attrName);

  const applyFilter = () => {
    const v = filterForm.getFieldsValue() as Record<string, unknown>;
    setFilter(Object.fromEntries(Object.entries(collect(attrs, v)).filter(([, x]) => x !== null)));
    const keyword = typeof v.__keyword === 'string' ? v.__keyword.trim() : '';
    setSearch({ ...(keyword ? { keyword } : {}), deep: v.__deep === true });
    setPageNo(1);
  };
  const startEdit = (f: LibFile) => {
    const cid = f.attrClassifierId ?? classifierId ?? classifiers.data?.[0]?.classifierId;
    editForm.resetFields();
    editForm.setFieldsValue({ classifierId: cid, ...Object.fromEntries(attrsOf(cid).map((a) => [a.attrCode, toField(a, f.attrs[a.attrCode])])) });
    setEditing(f);
  };
  const saveEdit = async () => {
    if (!editing) return;
    const v = (await editForm.validateFields()) as Record<string, unknown>;
    const cid = v.classifierId as string;
    try {
      await setInstanceAttrs({ instanceId: editing.instanceId, classifierId: cid, values: collect(attrsOf(cid), v) }, { quiet: true });
      setEditing(undefined);
      toastSuccess(t('bizlibs.saved'));
      void files.refetch();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };
  const startUpload = () => {
    uploadForm.resetFields();
    uploadForm.setFieldsValue({ classifierId: classifierId ?? classifiers.data?.[0]?.classifierId });
    setUploading(true);
  };
  // The values are checked here first (required), then by the server when each file is saved.
  const chooseFiles = async () => {
    const v = (await uploadForm.validateFields()) as Record<string, unknown>;
    const cid = v.classifierId as string;
    pendingAttrs.current = { classifierId: cid, values: Object.fromEntries(Object.entries(collect(attrsOf(cid), v)).filter(([, x]) => x !== null)) };
    fileInput.current?.click();
  };
  const onFiles = async (list: FileList | null) => {
    const pick = fromFileList(list ?? []);
    const attrsToSave = pendingAttrs.current;
    const root = files.data?.parentId;
    if (!attrsToSave || !root || pick.files.length === 0) return;
    setUploading(false);
    try {
      const r = await planUpload(pick, { parentId: root, path: '/', libCode, instanceType: '3', attrs: attrsToSave }, prompts.upload, memory, (items) => store.add(items));
      if ('queued' in r) {
        prompts.upload.notice('info', 'transfer.queued', { count: r.queued });
        openTransferPanel('upload');
      }
    } catch (err) {
      toastError(errorMessage(err));
    }
  };

  const attrFields = (list: readonly Attribute[], prefix: string) =>
    list.map((a) => (
      <Form.Item key={a.attrCode} name={a.attrCode} label={attrTitle(a)} rules={a.required ? [{ required: true, message: t('bizlibs.requiredValue', { name: attrTitle(a) }) }] : []}>
        <AttrInput attr={a} testId={`${prefix}-${a.attrCode}`} />
      </Form.Item>
    ));
  const classifierSelect = (testId: string) => (
    <Form.Item name="classifierId" label={t('bizlibs.classifier')} rules={[{ required: true }]}>
      <Select options={(classifiers.data ?? []).map((c) => ({ value: c.classifierId, label: title(c) }))} data-testid={testId} />
    </Form.Item>
  );

  const libTitle = lib ? (en ? lib.libNameEn || lib.libCode : lib.libName) : libCode;
  return (
    <div data-testid="business-library-page">
      {prompts.holder}
      <input ref={fileInput} type="file" multiple hidden data-testid="lib-upload-input" onChange={(e) => {
        const list = e.target.files;
        void onFiles(list).finally(() => (e.target.value = ''));
      }} />
      <Typography.Title level={4} data-testid="library-title">
        {libTitle}
        {shown.length === 1 && classifierId ? ` · ${title(shown[0]!)}` : ''}
      </Typography.Title>
      <Space wrap style={{ marginBottom: 12 }}>
        <Button type="primary" disabled={!classifiers.data?.length} onClick={startUpload} data-testid="lib-upload">
          {t('bizlibs.upload')}
        </Button>
      </Space>
      {attrs.length > 0 && (
        <Form form={filterForm} layout="inline" style={{ marginBottom: 12 }} data-testid="attr-filters" onFinish={applyFilter}>
          <Form.Item name="__keyword" label={t('bizlibs.fileName')}>
            <Input allowClear style={{ width: 160 }} data-testid="filter-keyword" />
          </Form.Item>
          {attrs.map((a) => (
            <Form.Item key={a.attrCode} name={a.attrCode} label={attrTitle(a)}>
              <AttrInput attr={a} testId={`filter-${a.attrCode}`} />
            </Form.Item>
          ))}
          <Form.Item name="__deep" valuePropName="checked">
            <Checkbox data-testid="filter-deep">{t('bizlibs.wholeLibrary')}</Checkbox>
          </Form.Item>
          <Button htmlType="submit" data-testid="filter-apply">
            {t('bizlibs.filter')}
          </Button>
          <Button
            onClick={() => {
              filterForm.resetFields();
              setFilter({});
              setSearch({ deep: false });
            }}
            data-testid="filter-reset"
          >
            {t('bizlibs.reset')}
          </Button>
        </Form>
      )}
      <Table<LibFile>
        rowKey="instanceId"
        size="middle"
        loading={files.isLoading}
        dataSource={files.data?.list ?? []}
        pagination={{ current: pageNo, pageSize: PAGE_SIZE, total: files.data?.total ?? 0, onChange: setPageNo }}
        columns={[
          { title: t('bizlibs.fileName'), dataIndex: 'instanceName', render: (n: string, f) => <span data-testid={`lib-file-${f.instanceName}`}>{n}</span> },
          { title: t('bizlibs.size'), dataIndex: 'fSize', width: 100, render: (s: number, f) => (f.classifierId === 'Folder' ? '' : formatSize(s)) },
          ...attrs.map((a) => ({
            title: attrTitle(a),
            key: `attr-${a.attrCode}`,
            render: (_: unknown, f: LibFile) => <span data-testid={`cell-${f.instanceName}-${a.attrCode}`}>{f.attrs[a.attrCode] ?? ''}</span>,
          })),
          { title: t('bizlibs.createTime'), dataIndex: 'createTime', width: 170, render: (v: number) => formatDate(v) },
          {
            title: t('bizlibs.actions'),
            key: 'actions',
            width: 120,
            render: (_: unknown, f) =>
              f.classifierId === 'File' && !f.editIsDisabled ? (
                <Button size="small" onClick={() => startEdit(f)} data-testid={`edit-attrs-${f.instanceName}`}>
                  {t('bizlibs.editAttrs')}
                </Button>
              ) : null,
          },
        ]}
      />
      <Modal open={uploading} title={t('bizlibs.upload')} okText={t('bizlibs.chooseFiles')} onOk={() => void chooseFiles()} onCancel={() => setUploading(false)} forceRender>
        <Form form={uploadForm} layout="vertical" data-testid="upload-attrs-form">
          {classifierSelect('upload-classifier')}
          {attrFields(attrsOf(uploadCid), 'upload')}
        </Form>
      </Modal>
      <Modal open={editing !== undefined} title={`${t('bizlibs.editAttrs')} · ${editing?.instanceName ?? ''}`} onOk={() => void saveEdit()} onCancel={() => setEditing(undefined)} forceRender>
        <Form form={editForm} layout="vertical" data-testid="edit-attrs-form">
          {classifierSelect('edit-classifier')}
          {attrFields(attrsOf(editCid), 'edit')}
        </Form>
      </Modal>
    </div>
  );
}
