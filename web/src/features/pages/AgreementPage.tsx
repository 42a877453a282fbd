// User agreement and privacy policy (Chinese and English routes). No header, no sign-in. The agreement text comes
// from System/userAgreement; the contract has no privacy-policy call yet, so that page says it is not available.
import { useLocation } from 'react-router-dom';
import { Card, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useGetUserAgreement } from '../../api/gen/session/session.ts';
import { NotAvailable } from './FeaturePage.tsx';
import { isNotAvailable } from './not-available.ts';

export default function AgreementPage() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const privacy = pathname.startsWith('/privacyPolicy');
  const languageId = pathname.endsWith('En') ? 'en_US' : 'zh_CN';
  const q = useGetUserAgreement({ languageId }, { query: { enabled: !privacy, retry: false } });
  const a = q.data?.data;
  let body;
  if (privacy) body = <NotAvailable />;
  else if (q.isLoading) body = <Spin />;
  else if (q.isError) body = isNotAvailable(q.error) ? <NotAvailable /> : <Typography.Text type="danger">{t('common.loadFailed')}</Typography.Text>;
  else if (a)
    body = (
      <>
        <Typography.Title level={3}>{a.title}</Typography.Title>
        {a.content.split(/\n\s*\n/).map((p, i) => (
          <Typography.Paragraph key={i} style={{ whiteSpace: 'pre-wrap' }}>
            {p}
          </Typography.Paragraph>
        ))}
        <Typography.Text type="secondary">{t('agreement.version', { version: a.version })}</Typography.Text>
      </>
    );
  return (
    <div className="hcs-agreement" data-testid="agreement" style={{ maxWidth: 860, margin: '32px auto' }}>
      <Card title={t(privacy ? 'routes.privacyPolicy' : 'routes.userServiceAgreement')}>{body}</Card>
    </div>
  );
}
