// /businessConfig?libCode= (issue #18): a library's own settings: how many history versions its files keep and for
// how long (empty: the server's defaults, shown beside), whether it is for administrators only, and whether it is
// listed and on the home strip. NetDisk's retention is set here too; who may use a built-in library is fixed.
import { useEffect } from 'react';
import { Alert, Button, Card, Form, InputNumber, Switch, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { getBusinessLibConfig, getGetBusinessLibConfigQueryKey, setBusinessLibConfig, updateBusinessLib } from '../../api/gen/business-libs/business-libs.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { toastError, toastSuccess } from '../../shared/notify.ts';
import { LibPicker, ScreenLinks, useAllLibs, useChosenLib, useRefreshLibs } from './screens.tsx';

interface ConfigForm {
  versionMaxCount: number | null;
  versionMaxDays: number | null;
  adminOnly: boolean;
  isShow: boolean;
  isHome: boolean;
}

export default function BusinessConfigPage() {
  const { t } = useTranslation();
  const libs = useAllLibs();
  const [lib, choose] = useChosenLib(libs.data);
  const libCode = lib?.libCode ?? '';
  const config = useQuery({
    queryKey: getGetBusinessLibConfigQueryKey({ libCode }),
    enabled: libCode !== '',
    queryFn: async ({ signal }) => (await getBusinessLibConfig({ libCode }, { signal, quiet: true })).data,
  });
  const refresh = useRefreshLibs();
  const [form] = Form.useForm<ConfigForm>();
  const custom = lib?.custom === 1;

  const c = config.data;
  useEffect(() => {
    if (!c || !lib || c.libCode !== lib.libCode) return;
    form.setFieldsValue({ versionMaxCount: c.versionMaxCount, versionMaxDays: c.versionMaxDays, adminOnly: c.adminOnly === 1, isShow: lib.isShow === 1, isHome: lib.isHome === 1 });
  }, [c, lib, form]);

  const save = async () => {
    if (!lib || !c) return;
    const v = await form.validateFields();
    try {
      await setBusinessLibConfig(
        { libCode: lib.libCode, versionMaxCount: v.versionMaxCount ?? null, versionMaxDays: v.versionMaxDays ?? null, ...(custom ? { adminOnly: v.adminOnly ? 1 : 0 } : {}) },
        { quiet: true },
      );
      // Built-in libraries' placement is not the administrators' to change (updateBusinessLib refuses them).
      if (custom) await updateBusinessLib(lib.libId, { isShow: v.isShow ? 1 : 0, isHome: v.isHome ? 1 : 0 }, { quiet: true });
      toastSuccess(t('bizscreens.saved'));
      await Promise.all([refresh(), config.refetch()]);
    } catch (err) {
      toastError(errorMessage(err));
    }
  };

  return (
    <div data-testid="business-config-page">
      <Typography.Title level={4}>{t('routes.businessConfig')}</Typography.Title>
      <Space direction="vertical" size="middle" style={{ width: '100%' }}>
        <Space wrap size="large">
          <LibPicker libs={libs.data ?? []} value={lib?.libCode} onChange={choose} />
          {lib && custom && <ScreenLinks libCode={lib.libCode} except="/businessConfig" />}
        </Space>
        <Typography.Text type="secondary">{t('bizscreens.configIntro')}</Typography.Text>
        {config.isError && <Alert type="error" showIcon message={errorMessage(config.error)} />}
        {lib && c && (
          <Card style={{ maxWidth: 640 }}>
            <Form form={form} layout="vertical" data-testid="config-form" onFinish={() => void save()}>
              <Form.Item name="versionMaxCount" label={t('bizscreens.versionMaxCount')} extra={t('bizscreens.serverDefault', { value: c.defaults.versionMaxCount })}>
                <InputNumber min={1} max={100000} precision={0} style={{ width: 200 }} data-testid="config-version-count" />
              </Form.Item>
              <Form.Item
                name="versionMaxDays"
                label={t('bizscreens.versionMaxDays')}
                extra={<>{t('bizscreens.serverDefault', { value: c.defaults.versionMaxDays })}<br />{t('bizscreens.versionDaysHint')}</>}
              >
                <InputNumber min={0} max={100000} precision={0} style={{ width: 200 }} data-testid="config-version-days" />
              </Form.Item>
              <Form.Item name="adminOnly" label={t('bizscreens.adminOnly')} valuePropName="checked" extra={custom ? undefined : t('bizscreens.adminOnlyBuiltIn')}>
                <Switch disabled={!custom} data-testid="config-admin-only" />
              </Form.Item>
              {custom && (
                <Space size="large">
                  <Form.Item name="isShow" label={t('bizscreens.isShow')} valuePropName="checked">
                    <Switch data-testid="config-is-show" />
                  </Form.Item>
                  <Form.Item name="isHome" label={t('bizlibs.home')} valuePropName="checked">
                    <Switch data-testid="config-is-home" />
                  </Form.Item>
                </Space>
              )}
              <Form.Item>
                <Button type="primary" htmlType="submit" data-testid="config-save">
                  {t('bizscreens.save')}
                </Button>
              </Form.Item>
            </Form>
          </Card>
        )}
      </Space>
    </div>
  );
}
