// /businessDetail?libCode= (issue #18): one library as a whole: its settings, what it holds, its classifiers with
// their files, and the menu its users get (the server's, as they see it). Its names, icon and placement are edited
// here too.
import { useState } from 'react';
import { Button, Card, Descriptions, Form, Input, InputNumber, Modal, Select, Space, Statistic, Switch, Table, Tag, Tree, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { updateBusinessLib } from '../../api/gen/business-libs/business-libs.ts';
import { getBusinessMenu, getGetBusinessMenuQueryKey } from '../../api/gen/libraries/libraries.ts';
import type { Classifier, MenuItem } from '../../api/gen/model/index.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatSize } from '../../shared/format.ts';
import { toastError, toastSuccess } from '../../shared/notify.ts';
import { LIB_ICONS, LibPicker, NoLibrary, ScreenLinks, statsOf, useAllLibs, useChosenLib, useClassifiers, useLibName, useRefreshLibs, useStats } from './screens.tsx';

interface MenuNode {
  key: string;
  title: string;
  children: MenuNode[];
}

interface EditForm {
  libName: string;
  libNameEn: string;
  webIcon: string;
  isShow: boolean;
  isHome: boolean;
  sort: number;
}

export default function BusinessDetailPage() {
  const { t } = useTranslation();
  const name = useLibName();
  const libs = useAllLibs();
  const custom = (libs.data ?? []).filter((l) => l.custom === 1);
  const [lib, choose] = useChosenLib(libs.data ? custom : undefined);
  const libCode = lib?.libCode ?? '';
  const stats = useStats(libCode);
  const classifiers = useClassifiers(libCode);
  const menu = useQuery({
    queryKey: getGetBusinessMenuQueryKey({ libCode }),
    enabled: libCode !== '',
    queryFn: async ({ signal }) => (await getBusinessMenu({ libCode }, { signal, quiet: true })).data ?? [],
  });
  const refresh = useRefreshLibs();
  const [editing, setEditing] = useState(false);
  const [form] = Form.useForm<EditForm>();

  if (libs.data && custom.length === 0) return <NoLibrary />;
  const s = statsOf(stats.data, libCode);
  const yes = (v: number) => (v === 1 ? t('bizlibs.yes') : t('bizlibs.no'));
  const filesOf = (c: Classifier) => s?.byClassifier.find((x) => x.classifierId === c.classifierId)?.files ?? 0;
  const menuNodes = (items: readonly MenuItem[]): MenuNode[] =>
    items.map((m) => ({ key: m.menuId, title: `${name.en ? m.menuName : m.menuStr} · ${m.menuUrl}`, children: menuNodes(m.children ?? []) }));

  const startEdit = () => {
    if (!lib) return;
    form.setFieldsValue({ libName: lib.libName, libNameEn: lib.libNameEn, webIcon: lib.webIcon, isShow: lib.isShow === 1, isHome: lib.isHome === 1, sort: lib.sort });
    setEditing(true);
  };
  const save = async () => {
    if (!lib) return;
    const v = await form.validateFields();
    try {
      await updateBusinessLib(lib.libId, { libName: v.libName, libNameEn: v.libNameEn, webIcon: v.webIcon, isShow: v.isShow ? 1 : 0, isHome: v.isHome ? 1 : 0, sort: v.sort }, { quiet: true });
      setEditing(false);
      toastSuccess(t('bizscreens.saved'));
      await Promise.all([refresh(), menu.refetch()]);
    } catch (err) {
      toastError(errorMessage(err));
    }
  };

  return (
    <div data-testid="business-detail-page">
      <Typography.Title level={4}>{t('routes.businessDetail')}</Typography.Title>
      <Space direction="vertical" size="middle" style={{ width: '100%' }}>
        <Space wrap size="large">
          <LibPicker libs={custom} value={lib?.libCode} onChange={choose} />
          {lib && <ScreenLinks libCode={lib.libCode} except="/businessDetail" />}
        </Space>
        {lib && (
          <>
            <Card
              title={<span data-testid="detail-title">{name.lib(lib)}</span>}
              extra={<Button onClick={startEdit} data-testid="detail-edit">{t('bizscreens.editLibrary')}</Button>}
            >
              <Descriptions column={3} size="small">
                <Descriptions.Item label={t('bizlibs.code')}>{lib.libCode}</Descriptions.Item>
                <Descriptions.Item label={t('bizlibs.nameZh')}>{lib.libName}</Descriptions.Item>
                <Descriptions.Item label={t('bizlibs.nameEn')}><span data-testid="detail-name-en">{lib.libNameEn}</span></Descriptions.Item>
                <Descriptions.Item label={t('bizlibs.icon')}>{lib.webIcon}</Descriptions.Item>
                <Descriptions.Item label={t('bizlibs.home')}>{yes(lib.isHome)}</Descriptions.Item>
                <Descriptions.Item label={t('bizscreens.isShow')}>{yes(lib.isShow)}</Descriptions.Item>
                <Descriptions.Item label={t('bizlibs.sort')}>{lib.sort}</Descriptions.Item>
                <Descriptions.Item label={t('bizscreens.status')}>
                  {lib.isEnabled === 1 ? <Tag color="green">{t('bizscreens.enabled')}</Tag> : <Tag>{t('bizscreens.disabled')}</Tag>}
                </Descriptions.Item>
                <Descriptions.Item label={t('bizscreens.rootId')}>{lib.rootId ?? ''}</Descriptions.Item>
              </Descriptions>
            </Card>
            <Space wrap size="large" data-testid="detail-stats">
              <Statistic title={t('bizscreens.files')} value={s?.files ?? 0} />
              <Statistic title={t('bizscreens.folders')} value={s?.folders ?? 0} />
              <Statistic title={t('bizscreens.bytes')} value={formatSize(s?.bytes ?? 0)} />
              <Statistic title={t('bizscreens.classifierCount')} value={s?.classifiers ?? 0} />
              <Statistic title={t('bizscreens.attributeCount')} value={s?.attributes ?? 0} />
              <Statistic title={t('bizscreens.unclassified')} value={s?.unclassified ?? 0} />
            </Space>
            <Card title={t('bizlibs.classifiers')} size="small">
              <Table<Classifier>
                rowKey="classifierId"
                size="small"
                pagination={false}
                loading={classifiers.isLoading}
                dataSource={classifiers.data ?? []}
                columns={[
                  { title: t('bizlibs.code'), dataIndex: 'classifierCode' },
                  { title: t('bizlibs.name'), key: 'n', render: (_: unknown, c) => name.classifier(c) },
                  { title: t('bizlibs.features'), key: 'f', render: (_: unknown, c) => c.features.map((f) => t(`bizlibs.feature.${f}`)).join(t('bizlibs.listSeparator')) },
                  { title: t('bizscreens.attributeCount'), key: 'a', render: (_: unknown, c) => c.attributes.length },
                  { title: t('bizscreens.classifierFiles'), key: 'files', render: (_: unknown, c) => filesOf(c) },
                ]}
              />
            </Card>
            <Card title={t('bizscreens.menu')} size="small" data-testid="detail-menu">
              {menu.data?.length ? <Tree defaultExpandAll selectable={false} treeData={menuNodes(menu.data)} /> : <Typography.Text type="secondary">{t('bizscreens.menuEmpty')}</Typography.Text>}
            </Card>
          </>
        )}
      </Space>
      <Modal open={editing} title={t('bizscreens.editLibrary')} onOk={() => void save()} onCancel={() => setEditing(false)} forceRender>
        <Form form={form} layout="vertical" data-testid="detail-form">
          <Form.Item name="libName" label={t('bizlibs.nameZh')} rules={[{ required: true, max: 64 }]}>
            <Input data-testid="detail-form-name-zh" />
          </Form.Item>
          <Form.Item name="libNameEn" label={t('bizlibs.nameEn')} rules={[{ required: true, max: 64 }]}>
            <Input data-testid="detail-form-name-en" />
          </Form.Item>
          <Form.Item name="webIcon" label={t('bizlibs.icon')}>
            <Select options={LIB_ICONS.map((i) => ({ value: i, label: i }))} />
          </Form.Item>
          <Space>
            <Form.Item name="isHome" label={t('bizlibs.home')} valuePropName="checked">
              <Switch />
            </Form.Item>
            <Form.Item name="isShow" label={t('bizscreens.isShow')} valuePropName="checked">
              <Switch />
            </Form.Item>
            <Form.Item name="sort" label={t('bizlibs.sort')}>
              <InputNumber min={0} max={100000} />
            </Form.Item>
          </Space>
        </Form>
      </Modal>
    </div>
  );
}
