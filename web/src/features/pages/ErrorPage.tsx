// /error/{type}: 404 shows the not-found text; 403, 500 and init (start-up failure) have their own; others generic.
import { useParams, useNavigate } from 'react-router-dom';
import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';

const KNOWN = ['404', '403', '500', 'init'] as const;

export default function ErrorPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { type = '' } = useParams();
  const kind = (KNOWN as readonly string[]).includes(type) ? (type as (typeof KNOWN)[number]) : 'other';
  const status = kind === '404' ? '404' : kind === '403' ? '403' : kind === 'other' ? 'warning' : '500';
  return (
    <div data-testid={`error-${kind}`}>
    <Result
      status={status}
      title={t(`errors.page.${kind}.title`)}
      subTitle={t(`errors.page.${kind}.text`)}
      extra={
        <Button type="primary" onClick={() => navigate('/personalFile')}>
          {t('errors.page.backHome')}
        </Button>
      }
    />
    </div>
  );
}
