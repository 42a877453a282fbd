// /businessManage (issue #18): the administrators' business libraries (code, Chinese and English names, icon, on the
// home strip or not, order, enabled), each with its classifiers and their typed attributes. The server validates
// every value and answers by code; this screen only collects them.
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Button, Checkbox, Drawer, Form, Input, InputNumber, Modal, Select, Space, Switch, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  addBusinessLib, addClassifier, deleteBusinessLib, getAllBusinessLibs, getDataTypes, getGetAllBusinessLibsQueryKey, getGetDataTypesQueryKey,
  getListClassifiersQueryKey, listClassifiers, modClassifier, setClassifierFeatures, updateBusinessLib,
} from '../../api/gen/business-libs/business-libs.ts';
import { getListBusinessLibsQueryKey } from '../../api/gen/libraries/libraries.ts';
import type { Attribute, BusinessLibAdmin, Classifier, DataTypeCode, Feature } from '../../api/gen/model/index.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { confirmDialog, toastError } from '../../shared/notify.ts';
import { FEATURES, LIB_ICONS } from './screens.tsx';

interface LibForm {
  libCode: string;
  libName: string;
  libNameEn: string;
  webIcon: string;
  isHome: boolean;
  sort: number;
}

interface AttrRow extends Omit<Attribute, 'options'> {
  options?: string;
}

interface ClassifierForm {
  classifierCode: string;
  classifierName: string;
  classifierNameEn: string;
  features: Feature[];
  attributes: AttrRow[];
}


export default function BusinessManagePage() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const libs = useQuery({ queryKey: getGetAllBusinessLibsQueryKey(), queryFn: async ({ signal }) => (await getAllBusinessLibs({ signal, quiet: true })).data ?? [] });
  const [editing, setEditing] = useState<{ lib?: BusinessLibAdmin } | undefined>();
  const [libForm] = Form.useForm<LibForm>();
  const [open, setOpen] = useState<BusinessLibAdmin | undefined>();

  // The home strip and the header switcher read the same libraries: they refresh with this list.
  const refresh = () => {
    void libs.refetch();
    void queryClient.invalidateQueries({ queryKey: getListBusinessLibsQueryKey().slice(0, 1) });
  };
  const run = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      refresh();
      return true;
    } catch (err) {
      toastError(errorMessage(err));
      return false;
    }
  };

  const startEdit = (lib?: BusinessLibAdmin) => {
    libForm.setFieldsValue(
      lib
        ? { libCode: lib.libCode, libName: lib.libName, libNameEn: lib.libNameEn, webIcon: lib.webIcon, isHome: lib.isHome === 1, sort: lib.sort }
        : { libCode: '', libName: '', libNameEn: '', webIcon: 'appstore', isHome: true, sort: 100 },
    );
    setEditing({ ...(lib ? { lib } : {}) });
  };
  const saveLib = async () => {
    const v = await libForm.validateFields();
    const body = { libName: v.libName, libNameEn: v.libNameEn, webIcon: v.webIcon, isHome: v.isHome ? (1 as const) : (0 as const), sort: v.sort };
    const lib = editing?.lib;
    if (await run(() => (lib ? updateBusinessLib(lib.libId, body, { quiet: true }) : addBusinessLib({ ...body, libCode: v.libCode }, { quiet: true })))) setEditing(undefined);
  };
  const remove = (lib: BusinessLibAdmin) =>
    confirmDialog({
      title: t('bizlibs.deleteConfirm', { name: lib.libName }),
      okButtonProps: { danger: true },
      onOk: () => run(() => deleteBusinessLib(lib.libId, { quiet: true })),
    });

  const name = (l: BusinessLibAdmin) => (i18n.language === 'en_US' ? l.libNameEn : l.libName);
  return (
    <div data-testid="business-manage-page">
      <Typography.Title level={4}>{t('routes.businessManage')}</Typography.Title>
      <Space style={{ marginBottom: 12 }} size="large">
        <Button type="primary" onClick={() => startEdit()} data-testid="lib-add">
          {t('bizlibs.add')}
        </Button>
        <Link to="/businessLibraryManage" data-testid="lib-overview">
          {t('bizscreens.overview')}
        </Link>
      </Space>
      <Table<BusinessLibAdmin>
        rowKey="libId"
        size="middle"
        loading={libs.isLoading}
        dataSource={libs.data ?? []}
        pagination={false}
        columns={[
          { title: t('bizlibs.code'), dataIndex: 'libCode', width: 180 },
          { title: t('bizlibs.name'), key: 'name', render: (_: unknown, l) => <span data-testid={`lib-row-${l.libCode}`}>{name(l)}</span> },
          { title: t('bizlibs.home'), dataIndex: 'isHome', width: 90, render: (v: number) => (v ? t('bizlibs.yes') : t('bizlibs.no')) },
          { title: t('bizlibs.sort'), dataIndex: 'sort', width: 80 },
          {
            title: t('bizlibs.enabled'),
            dataIndex: 'isEnabled',
            width: 100,
            render: (v: number, l) =>
              l.custom ? (
                <Switch checked={v === 1} onChange={(on) => void run(() => updateBusinessLib(l.libId, { isEnabled: on ? 1 : 0 }, { quiet: true }))} data-testid={`lib-enabled-${l.libCode}`} />
              ) : (
                <Tag>{t('bizlibs.builtIn')}</Tag>
              ),
          },
          {
            title: t('bizlibs.actions'),
            key: 'actions',
            width: 260,
            render: (_: unknown, l) =>
              l.custom ? (
                <Space>
                  <Button size="small" onClick={() => setOpen(l)} data-testid={`lib-classifiers-${l.libCode}`}>
                    {t('bizlibs.classifiers')}
                  </Button>
                  <Button size="small" onClick={() => startEdit(l)}>
                    {t('bizlibs.edit')}
                  </Button>
                  <Button size="small" danger onClick={() => remove(l)}>
                    {t('bizlibs.delete')}
                  </Button>
                </Space>
              ) : null,
          },
        ]}
      />
      <Modal open={editing !== undefined} title={editing?.lib ? t('bizlibs.edit') : t('bizlibs.add')} onOk={() => void saveLib()} onCancel={() => setEditing(undefined)} destroyOnHidden forceRender>
        <Form form={libForm} layout="vertical" data-testid="lib-form">
          <Form.Item name="libCode" label={t('bizlibs.code')} extra={t('bizlibs.codeHint')} rules={[{ required: true, pattern: /^[A-Za-z][A-Za-z0-9_]{1,31}$/, message: t('bizlibs.codeHint') }]}>
            <Input disabled={editing?.lib !== undefined} data-testid="lib-code" />
          </Form.Item>
          <Form.Item name="libName" label={t('bizlibs.nameZh')} rules={[{ required: true, max: 64 }]}>
            <Input data-testid="lib-name-zh" />
          </Form.Item>
          <Form.Item name="libNameEn" label={t('bizlibs.nameEn')} rules={[{ required: true, max: 64 }]}>
            <Input data-testid="lib-name-en" />
          </Form.Item>
          <Form.Item name="webIcon" label={t('bizlibs.icon')}>
            <Select options={LIB_ICONS.map((i) => ({ value: i, label: i }))} />
          </Form.Item>
          <Space>
            <Form.Item name="isHome" label={t('bizlibs.home')} valuePropName="checked">
              <Switch />
            </Form.Item>
            <Form.Item name="sort" label={t('bizlibs.sort')}>
              <InputNumber min={0} max={100000} />
            </Form.Item>
          </Space>
        </Form>
      </Modal>
      <Drawer open={open !== undefined} width={760} title={open ? `${name(open)} · ${t('bizlibs.classifiers')}` : ''} onClose={() => setOpen(undefined)} destroyOnHidden>
        {open && <Classifiers libCode={open.libCode} />}
      </Drawer>
    </div>
  );
}

function Classifiers({ libCode }: { libCode: string }) {
  const { t, i18n } = useTranslation();
  const en = i18n.language === 'en_US';
  const list = useQuery({ queryKey: getListClassifiersQueryKey({ libCode }), queryFn: async ({ signal }) => (await listClassifiers({ libCode }, { signal, quiet: true })).data ?? [] });
  const types = useQuery({ queryKey: getGetDataTypesQueryKey(), queryFn: async ({ signal }) => (await getDataTypes({ signal, quiet: true })).data ?? [] });
  // undefined: closed; null: a new classifier; else the classifier edited (its code stays, its attributes keep their ids).
  const [adding, setAdding] = useState<Classifier | null | undefined>();
  const [form] = Form.useForm<ClassifierForm>();

  const typeName = (code: DataTypeCode) => {
    const ty = types.data?.find((x) => x.code === code);
    return ty ? (en ? ty.nameEn : ty.name) : code;
  };
  const save = async () => {
    const v = await form.validateFields();
    const attributes = (v.attributes ?? []).map(({ options, ...a }) => ({
      ...a,
      required: !!a.required,
      unique: !!a.unique,
      ...(a.dataType === 'enumeration' ? { options: (options ?? '').split(',').map((o) => o.trim()).filter(Boolean) } : {}),
    }));
    try {
      if (adding) {
        await modClassifier({ classifierId: adding.classifierId, classifierName: v.classifierName, classifierNameEn: v.classifierNameEn, attributes }, { quiet: true });
        await setClassifierFeatures({ classifierId: adding.classifierId, features: v.features ?? [] }, { quiet: true });
      } else {
        await addClassifier({ libCode, classifierCode: v.classifierCode, classifierName: v.classifierName, classifierNameEn: v.classifierNameEn, features: v.features ?? [], attributes }, { quiet: true });
      }
      setAdding(undefined);
      void list.refetch();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };

  return (
    <div data-testid="classifiers">
      <Button
        type="primary"
        style={{ marginBottom: 12 }}
        onClick={() => {
          form.resetFields();
          form.setFieldsValue({ classifierCode: '', classifierName: '', classifierNameEn: '', features: ['upload', 'download', 'preview'], attributes: [] });
          setAdding(null);
        }}
        data-testid="classifier-add"
      >
        {t('bizlibs.addClassifier')}
      </Button>
      {(list.data ?? []).map((c: Classifier) => (
        <div key={c.classifierId} style={{ marginBottom: 16 }} data-testid={`classifier-${c.classifierCode}`}>
          <Typography.Title level={5}>
            {en ? c.classifierNameEn : c.classifierName} <Typography.Text type="secondary">({c.classifierCode})</Typography.Text>{' '}
            <Button
              size="small"
              onClick={() => {
                form.resetFields();
                form.setFieldsValue({ ...c, attributes: c.attributes.map((a) => ({ ...a, options: (a.options ?? []).join(', ') })) });
                setAdding(c);
              }}
              data-testid={`classifier-edit-${c.classifierCode}`}
            >
              {t('bizlibs.edit')}
            </Button>
          </Typography.Title>
          <Typography.Paragraph type="secondary">{c.features.map((f) => t(`bizlibs.feature.${f}`)).join(t('bizlibs.listSeparator'))}</Typography.Paragraph>
          <Table<Attribute>
            rowKey="attrCode"
            size="small"
            pagination={false}
            dataSource={c.attributes}
            columns={[
              { title: t('bizlibs.attrCode'), dataIndex: 'attrCode' },
              { title: t('bizlibs.name'), key: 'n', render: (_: unknown, a) => (en ? a.attrNameEn : a.attrName) },
              { title: t('bizlibs.dataType'), dataIndex: 'dataType', render: (d: DataTypeCode, a) => `${typeName(d)}${a.options?.length ? ` (${a.options.join(', ')})` : ''}` },
              { title: t('bizlibs.required'), dataIndex: 'required', render: (v: boolean) => (v ? t('bizlibs.yes') : t('bizlibs.no')) },
              { title: t('bizlibs.unique'), dataIndex: 'unique', render: (v: boolean) => (v ? t('bizlibs.yes') : t('bizlibs.no')) },
            ]}
          />
        </div>
      ))}
      <Modal open={adding !== undefined} width={820} title={adding ? t('bizlibs.edit') : t('bizlibs.addClassifier')} onOk={() => void save()} onCancel={() => setAdding(undefined)} forceRender>
        <Form form={form} layout="vertical" data-testid="classifier-form">
          <Space>
            <Form.Item name="classifierCode" label={t('bizlibs.code')} rules={[{ required: true, pattern: /^[A-Za-z][A-Za-z0-9_]{0,31}$/, message: t('bizlibs.attrCodeHint') }]}>
              <Input disabled={!!adding} data-testid="classifier-code" />
            </Form.Item>
            <Form.Item name="classifierName" label={t('bizlibs.nameZh')} rules={[{ required: true, max: 64 }]}>
              <Input data-testid="classifier-name-zh" />
            </Form.Item>
            <Form.Item name="classifierNameEn" label={t('bizlibs.nameEn')} rules={[{ required: true, max: 64 }]}>
              <Input data-testid="classifier-name-en" />
            </Form.Item>
          </Space>
          <Form.Item name="features" label={t('bizlibs.features')}>
            <Checkbox.Group options={FEATURES.map((f) => ({ value: f, label: t(`bizlibs.feature.${f}`) }))} data-testid="classifier-features" />
          </Form.Item>
          <Form.List name="attributes">
            {(fields, { add, remove }) => (
              <>
                {fields.map((f, i) => (
                  <Space key={f.key} align="baseline" wrap data-testid={`attr-row-${i}`}>
                    <Form.Item name={[f.name, 'attrId']} hidden>
                      <Input />
                    </Form.Item>
                    <Form.Item name={[f.name, 'attrCode']} rules={[{ required: true, pattern: /^[A-Za-z][A-Za-z0-9_]{0,31}$/, message: t('bizlibs.attrCodeHint') }]}>
                      <Input placeholder={t('bizlibs.attrCode')} style={{ width: 120 }} data-testid={`attr-code-${i}`} />
                    </Form.Item>
                    <Form.Item name={[f.name, 'attrName']} rules={[{ required: true, max: 64 }]}>
                      <Input placeholder={t('bizlibs.nameZh')} style={{ width: 110 }} data-testid={`attr-name-zh-${i}`} />
                    </Form.Item>
                    <Form.Item name={[f.name, 'attrNameEn']} rules={[{ required: true, max: 64 }]}>
                      <Input placeholder={t('bizlibs.nameEn')} style={{ width: 110 }} data-testid={`attr-name-en-${i}`} />
                    </Form.Item>
                    <Form.Item name={[f.name, 'dataType']} rules={[{ required: true }]}>
                      <Select style={{ width: 110 }} placeholder={t('bizlibs.dataType')} options={(types.data ?? []).map((ty) => ({ value: ty.code, label: en ? ty.nameEn : ty.name }))} data-testid={`attr-type-${i}`} />
                    </Form.Item>
                    <Form.Item noStyle shouldUpdate>
                      {() =>
                        form.getFieldValue(['attributes', f.name, 'dataType']) === 'enumeration' ? (
                          <Form.Item name={[f.name, 'options']} rules={[{ required: true }]}>
                            <Input placeholder={t('bizlibs.options')} style={{ width: 140 }} data-testid={`attr-options-${i}`} />
                          </Form.Item>
                        ) : null
                      }
                    </Form.Item>
                    <Form.Item name={[f.name, 'required']} valuePropName="checked">
                      <Checkbox data-testid={`attr-required-${i}`}>{t('bizlibs.required')}</Checkbox>
                    </Form.Item>
                    <Form.Item name={[f.name, 'unique']} valuePropName="checked">
                      <Checkbox data-testid={`attr-unique-${i}`}>{t('bizlibs.unique')}</Checkbox>
                    </Form.Item>
                    <Button size="small" onClick={() => remove(f.name)}>
                      {t('bizlibs.remove')}
                    </Button>
                  </Space>
                ))}
                <Button onClick={() => add({ dataType: 'text', required: false, unique: false })} data-testid="attr-add">
                  {t('bizlibs.addAttr')}
                </Button>
              </>
            )}
          </Form.List>
        </Form>
      </Modal>
    </div>
  );
}
