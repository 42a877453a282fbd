// /businessLibraryProperty?libCode= (issue #18): every attribute of a library in one table, with its classifier and
// how many files hold a value of it: add one (its code checked against the whole library as it is typed,
// exisAttrCode), edit one, or delete one with its values. The server validates every change (modClassifier).
import { useState } from 'react';
import { Button, Checkbox, Form, Input, Modal, Select, Space, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { exisAttrCode, getDataTypes, getGetDataTypesQueryKey, modClassifier } from '../../api/gen/business-libs/business-libs.ts';
import type { Attribute, Classifier, DataTypeCode } from '../../api/gen/model/index.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { confirmDialog, toastError, toastSuccess } from '../../shared/notify.ts';
import { LibPicker, NoLibrary, ScreenLinks, statsOf, useAllLibs, useChosenLib, useClassifiers, useLibName, useRefreshLibs, useStats } from './screens.tsx';

interface Row extends Attribute {
  classifier: Classifier;
}

interface PropertyForm extends Omit<Attribute, 'options'> {
  classifierId: string;
  options?: string;
}

export default function BusinessLibraryPropertyPage() {
  const { t } = useTranslation();
  const name = useLibName();
  const libs = useAllLibs();
  const custom = (libs.data ?? []).filter((l) => l.custom === 1);
  const [lib, choose] = useChosenLib(libs.data ? custom : undefined);
  const libCode = lib?.libCode ?? '';
  const classifiers = useClassifiers(libCode);
  const stats = useStats(libCode);
  const types = useQuery({ queryKey: getGetDataTypesQueryKey(), queryFn: async ({ signal }) => (await getDataTypes({ signal, quiet: true })).data ?? [] });
  const refresh = useRefreshLibs();
  // undefined: closed; null: a new attribute; else the row edited.
  const [editing, setEditing] = useState<Row | null | undefined>();
  const [form] = Form.useForm<PropertyForm>();
  const dataType = Form.useWatch('dataType', form) as DataTypeCode | undefined;

  if (libs.data && custom.length === 0) return <NoLibrary />;
  const rows: Row[] = (classifiers.data ?? []).flatMap((c) => c.attributes.map((a) => ({ ...a, classifier: c })));
  const valuesOf = (a: Attribute) => statsOf(stats.data, libCode)?.byAttribute.find((x) => x.attrId === a.attrId)?.values ?? 0;
  const typeName = (code: DataTypeCode) => {
    const ty = types.data?.find((x) => x.code === code);
    return ty ? (name.en ? ty.nameEn : ty.name) : code;
  };
  const attrName = (a: Attribute) => (name.en ? a.attrNameEn : a.attrName);
  const yes = (v: boolean) => (v ? t('bizlibs.yes') : t('bizlibs.no'));

  /** Sends the classifier's whole new attribute list, as modClassifier takes it (kept ones by attrId). */
  const replace = async (c: Classifier, attributes: Attribute[], done: string) => {
    try {
      await modClassifier({ classifierId: c.classifierId, attributes }, { quiet: true });
      toastSuccess(done);
      await refresh();
      return true;
    } catch (err) {
      toastError(errorMessage(err));
      return false;
    }
  };
  const start = (row: Row | null) => {
    form.resetFields();
    form.setFieldsValue(
      row
        ? { ...row, classifierId: row.classifier.classifierId, options: (row.options ?? []).join(', ') }
        : { classifierId: classifiers.data?.[0]?.classifierId, attrCode: '', attrName: '', attrNameEn: '', dataType: 'text', required: false, unique: false },
    );
    setEditing(row);
  };
  const save = async () => {
    const { classifierId, options, ...v } = await form.validateFields();
    const c = (classifiers.data ?? []).find((x) => x.classifierId === classifierId);
    if (!c) return;
    const attr: Attribute = {
      ...(editing ? { attrId: editing.attrId, sort: editing.sort } : {}),
      attrCode: v.attrCode, attrName: v.attrName, attrNameEn: v.attrNameEn, dataType: v.dataType, required: !!v.required, unique: !!v.unique,
      options: v.dataType === 'enumeration' ? (options ?? '').split(',').map((o) => o.trim()).filter(Boolean) : [],
    };
    const list = editing ? c.attributes.map((a) => (a.attrId === editing.attrId ? attr : a)) : [...c.attributes, attr];
    if (await replace(c, list, t('bizscreens.saved'))) setEditing(undefined);
  };
  const remove = (row: Row) =>
    confirmDialog({
      title: t('bizscreens.deletePropertyConfirm', { name: attrName(row), count: valuesOf(row) }),
      okButtonProps: { danger: true },
      onOk: () => replace(row.classifier, row.classifier.attributes.filter((a) => a.attrId !== row.attrId), t('bizscreens.saved')),
    });
  // A new attribute's code must be free in the whole library; an edited one may keep its own.
  const codeFree = async (_: unknown, code: string) => {
    if (!code || !/^[A-Za-z][A-Za-z0-9_]{0,31}$/.test(code) || (editing && editing.attrCode.toLowerCase() === code.toLowerCase())) return;
    const r = await exisAttrCode({ libCode, attrCode: code }, { quiet: true });
    if (r.data?.exists) throw new Error(t('bizscreens.attrCodeTaken'));
  };

  return (
    <div data-testid="business-property-page">
      <Typography.Title level={4}>{t('routes.businessLibraryProperty')}</Typography.Title>
      <Space direction="vertical" size="middle" style={{ width: '100%' }}>
        <Space wrap size="large">
          <LibPicker libs={custom} value={lib?.libCode} onChange={choose} />
          {lib && <ScreenLinks libCode={lib.libCode} except="/businessLibraryProperty" />}
        </Space>
        <Typography.Text type="secondary">{t('bizscreens.propertiesIntro')}</Typography.Text>
        <Space>
          <Button type="primary" disabled={!classifiers.data?.length} onClick={() => start(null)} data-testid="property-add">
            {t('bizscreens.addProperty')}
          </Button>
          {classifiers.data && classifiers.data.length === 0 && <Typography.Text type="secondary">{t('bizscreens.noClassifier')}</Typography.Text>}
        </Space>
        <Table<Row>
          rowKey="attrId"
          size="middle"
          pagination={false}
          loading={classifiers.isLoading}
          dataSource={rows}
          columns={[
            { title: t('bizlibs.attrCode'), dataIndex: 'attrCode', width: 140 },
            { title: t('bizlibs.name'), key: 'n', render: (_: unknown, a) => <span data-testid={`property-${a.attrCode}`}>{attrName(a)}</span> },
            { title: t('bizlibs.classifier'), key: 'c', render: (_: unknown, a) => name.classifier(a.classifier) },
            { title: t('bizlibs.dataType'), key: 'd', render: (_: unknown, a) => `${typeName(a.dataType)}${a.options?.length ? ` (${a.options.join(', ')})` : ''}` },
            { title: t('bizlibs.required'), key: 'r', width: 70, render: (_: unknown, a) => yes(a.required) },
            { title: t('bizlibs.unique'), key: 'u', width: 70, render: (_: unknown, a) => yes(a.unique) },
            { title: t('bizscreens.valueCount'), key: 'v', width: 110, render: (_: unknown, a) => valuesOf(a) },
            {
              title: t('bizlibs.actions'),
              key: 'a',
              width: 150,
              render: (_: unknown, a) => (
                <Space size="small">
                  <Button size="small" onClick={() => start(a)} data-testid={`property-edit-${a.attrCode}`}>
                    {t('bizlibs.edit')}
                  </Button>
                  <Button size="small" danger onClick={() => remove(a)} data-testid={`property-delete-${a.attrCode}`}>
                    {t('bizlibs.delete')}
                  </Button>
                </Space>
              ),
            },
          ]}
        />
      </Space>
      <Modal open={editing !== undefined} title={editing ? t('bizscreens.editProperty') : t('bizscreens.addProperty')} onOk={() => void save()} onCancel={() => setEditing(undefined)} forceRender>
        <Form form={form} layout="vertical" data-testid="property-form">
          <Form.Item name="classifierId" label={t('bizlibs.classifier')} rules={[{ required: true }]}>
            <Select disabled={!!editing} options={(classifiers.data ?? []).map((c) => ({ value: c.classifierId, label: name.classifier(c) }))} data-testid="property-classifier" />
          </Form.Item>
          <Form.Item
            name="attrCode"
            label={t('bizlibs.attrCode')}
            validateDebounce={280}
            rules={[{ required: true, pattern: /^[A-Za-z][A-Za-z0-9_]{0,31}$/, message: t('bizlibs.attrCodeHint') }, { validator: codeFree }]}
          >
            <Input data-testid="property-code" />
          </Form.Item>
          <Form.Item name="attrName" label={t('bizlibs.nameZh')} rules={[{ required: true, max: 64 }]}>
            <Input data-testid="property-name-zh" />
          </Form.Item>
          <Form.Item name="attrNameEn" label={t('bizlibs.nameEn')} rules={[{ required: true, max: 64 }]}>
            <Input data-testid="property-name-en" />
          </Form.Item>
          <Form.Item name="dataType" label={t('bizlibs.dataType')} rules={[{ required: true }]}>
            <Select options={(types.data ?? []).map((ty) => ({ value: ty.code, label: name.en ? ty.nameEn : ty.name }))} data-testid="property-type" />
          </Form.Item>
          {dataType === 'enumeration' && (
            <Form.Item name="options" label={t('bizlibs.options')} rules={[{ required: true }]}>
              <Input data-testid="property-options" />
            </Form.Item>
          )}
          <Space>
            <Form.Item name="required" valuePropName="checked">
              <Checkbox data-testid="property-required">{t('bizlibs.required')}</Checkbox>
            </Form.Item>
            <Form.Item name="unique" valuePropName="checked">
              <Checkbox data-testid="property-unique">{t('bizlibs.unique')}</Checkbox>
            </Form.Item>
          </Space>
        </Form>
      </Modal>
    </div>
  );
}
