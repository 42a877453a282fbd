// /businessLevelProperty?libCode= (issue #18): a library's levels, i.e. its classifiers (the document types shown
// under Files in its menu), in their order: add one, rename it, move it up or down, set what its files offer, and
// delete one no file carries (the server refuses the others, and says so).
import { useState } from 'react';
import { Button, Checkbox, Form, Input, Modal, Space, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { addClassifier, deleteClassifier, modClassifier, setClassifierFeatures } from '../../api/gen/business-libs/business-libs.ts';
import type { Classifier, Feature } from '../../api/gen/model/index.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { confirmDialog, toastError, toastSuccess } from '../../shared/notify.ts';
import { FEATURES, LibPicker, NoLibrary, ScreenLinks, statsOf, useAllLibs, useChosenLib, useClassifiers, useLibName, useRefreshLibs, useStats } from './screens.tsx';

interface LevelForm {
  classifierCode: string;
  classifierName: string;
  classifierNameEn: string;
  features: Feature[];
}

export default function BusinessLevelPropertyPage() {
  const { t } = useTranslation();
  const name = useLibName();
  const libs = useAllLibs();
  const custom = (libs.data ?? []).filter((l) => l.custom === 1);
  const [lib, choose] = useChosenLib(libs.data ? custom : undefined);
  const libCode = lib?.libCode ?? '';
  const classifiers = useClassifiers(libCode);
  const stats = useStats(libCode);
  const refresh = useRefreshLibs();
  // undefined: closed; null: a new level; else the level renamed.
  const [editing, setEditing] = useState<Classifier | null | undefined>();
  const [form] = Form.useForm<LevelForm>();

  if (libs.data && custom.length === 0) return <NoLibrary />;
  const list = classifiers.data ?? [];
  const filesOf = (c: Classifier) => statsOf(stats.data, libCode)?.byClassifier.find((x) => x.classifierId === c.classifierId)?.files ?? 0;

  const run = async (fn: () => Promise<unknown>, done?: string) => {
    try {
      await fn();
      if (done) toastSuccess(done);
      await refresh();
      return true;
    } catch (err) {
      toastError(errorMessage(err));
      await refresh();
      return false;
    }
  };
  // The order is sent as places 10, 20, ...: only the levels whose place changes are written.
  const move = (from: number, to: number) =>
    run(async () => {
      const order = [...list];
      const [c] = order.splice(from, 1);
      order.splice(to, 0, c!);
      for (const [i, x] of order.entries()) if (x.sort !== (i + 1) * 10) await modClassifier({ classifierId: x.classifierId, sort: (i + 1) * 10 }, { quiet: true });
    });
  const remove = (c: Classifier) =>
    confirmDialog({
      title: t('bizscreens.deleteLevelConfirm', { name: name.classifier(c) }),
      okButtonProps: { danger: true },
      onOk: () => run(() => deleteClassifier({ classifierId: c.classifierId }, { quiet: true }), t('bizscreens.saved')),
    });
  const start = (c: Classifier | null) => {
    form.resetFields();
    form.setFieldsValue(c ? { ...c } : { classifierCode: '', classifierName: '', classifierNameEn: '', features: ['upload', 'download', 'preview'] });
    setEditing(c);
  };
  const save = async () => {
    const v = await form.validateFields();
    const ok = await run(
      () =>
        editing
          ? modClassifier({ classifierId: editing.classifierId, classifierName: v.classifierName, classifierNameEn: v.classifierNameEn }, { quiet: true })
          : addClassifier({ libCode, classifierCode: v.classifierCode, classifierName: v.classifierName, classifierNameEn: v.classifierNameEn, features: v.features ?? [] }, { quiet: true }),
      t('bizscreens.saved'),
    );
    if (ok) setEditing(undefined);
  };

  return (
    <div data-testid="business-level-page">
      <Typography.Title level={4}>{t('routes.businessLevelProperty')}</Typography.Title>
      <Space direction="vertical" size="middle" style={{ width: '100%' }}>
        <Space wrap size="large">
          <LibPicker libs={custom} value={lib?.libCode} onChange={choose} />
          {lib && <ScreenLinks libCode={lib.libCode} except="/businessLevelProperty" />}
        </Space>
        <Typography.Text type="secondary">{t('bizscreens.levelsIntro')}</Typography.Text>
        <div>
          <Button type="primary" disabled={!lib} onClick={() => start(null)} data-testid="level-add">
            {t('bizscreens.addLevel')}
          </Button>
        </div>
        <Table<Classifier>
          rowKey="classifierId"
          size="middle"
          pagination={false}
          loading={classifiers.isLoading}
          dataSource={list}
          columns={[
            { title: t('bizscreens.order'), key: 'i', width: 70, render: (_: unknown, _c, i) => i + 1 },
            { title: t('bizlibs.code'), dataIndex: 'classifierCode', width: 140 },
            { title: t('bizlibs.name'), key: 'n', render: (_: unknown, c) => <span data-testid={`level-${c.classifierCode}`}>{name.classifier(c)}</span> },
            {
              title: t('bizlibs.features'),
              key: 'f',
              render: (_: unknown, c) => (
                <Checkbox.Group
                  value={c.features}
                  options={FEATURES.map((f) => ({ value: f, label: t(`bizlibs.feature.${f}`) }))}
                  onChange={(features) => void run(() => setClassifierFeatures({ classifierId: c.classifierId, features: features as Feature[] }, { quiet: true }))}
                  data-testid={`level-features-${c.classifierCode}`}
                />
              ),
            },
            { title: t('bizscreens.classifierFiles'), key: 'files', width: 80, render: (_: unknown, c) => filesOf(c) },
            {
              title: t('bizlibs.actions'),
              key: 'a',
              width: 300,
              render: (_: unknown, c, i) => (
                <Space size="small">
                  <Button size="small" disabled={i === 0} onClick={() => void move(i, i - 1)} data-testid={`level-up-${c.classifierCode}`}>
                    {t('bizscreens.moveUp')}
                  </Button>
                  <Button size="small" disabled={i === list.length - 1} onClick={() => void move(i, i + 1)} data-testid={`level-down-${c.classifierCode}`}>
                    {t('bizscreens.moveDown')}
                  </Button>
                  <Button size="small" onClick={() => start(c)} data-testid={`level-rename-${c.classifierCode}`}>
                    {t('bizscreens.rename')}
                  </Button>
                  <Button size="small" danger onClick={() => remove(c)} data-testid={`level-delete-${c.classifierCode}`}>
                    {t('bizlibs.delete')}
                  </Button>
                </Space>
              ),
            },
          ]}
        />
      </Space>
      <Modal open={editing !== undefined} title={editing ? t('bizscreens.rename') : t('bizscreens.addLevel')} onOk={() => void save()} onCancel={() => setEditing(undefined)} forceRender>
        <Form form={form} layout="vertical" data-testid="level-form">
          <Form.Item name="classifierCode" label={t('bizlibs.code')} rules={[{ required: true, pattern: /^[A-Za-z][A-Za-z0-9_]{0,31}$/, message: t('bizlibs.attrCodeHint') }]}>
            <Input disabled={!!editing} data-testid="level-code" />
          </Form.Item>
          <Form.Item name="classifierName" label={t('bizlibs.nameZh')} rules={[{ required: true, max: 64 }]}>
            <Input data-testid="level-name-zh" />
          </Form.Item>
          <Form.Item name="classifierNameEn" label={t('bizlibs.nameEn')} rules={[{ required: true, max: 64 }]}>
            <Input data-testid="level-name-en" />
          </Form.Item>
          {!editing && (
            <Form.Item name="features" label={t('bizlibs.features')}>
              <Checkbox.Group options={FEATURES.map((f) => ({ value: f, label: t(`bizlibs.feature.${f}`) }))} />
            </Form.Item>
          )}
        </Form>
      </Modal>
    </div>
  );
}
