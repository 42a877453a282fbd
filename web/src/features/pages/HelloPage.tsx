// /hello: the test page of spec 2; a signed-out reachability check of the built app.
import { Result } from 'antd';
import { useTranslation } from 'react-i18next';

export default function HelloPage() {
  const { t } = useTranslation();
  return <Result status="success" title={t('routes.hello')} subTitle={t('common.helloText')} data-testid="hello" />;
}
