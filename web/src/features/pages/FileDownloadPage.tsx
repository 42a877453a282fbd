// /fileDownload?link=...: the public share download page. No header, no sign-in; the visitor's access is the link.
// The public-link calls (FileShare checklink, ShareAPI) are not in the contract yet: until the server has them the
// page states that, and it never shows made-up files.
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import { Card, Result, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { hcsFetch } from '../../api/http.ts';
import { NotAvailable } from './FeaturePage.tsx';
import { isNotAvailable } from './not-available.ts';
import { errorMessage } from '../../shared/error-message.ts';

export default function FileDownloadPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const link = params.get('link') ?? '';
  const valid = /^[A-Za-z0-9_-]{1,256}$/.test(link);
  const q = useQuery({
    queryKey: ['share-link', link],
    queryFn: ({ signal }) => hcsFetch(`/hcs/services/FileShare/checklink?${new URLSearchParams({ link })}`, { method: 'GET', signal, quiet: true }),
    enabled: valid,
    retry: false,
  });
  let body;
  if (!valid) body = <Result status="warning" title={t('share.invalidLink')} data-testid="share-invalid" />;
  else if (q.isLoading) body = <Spin />;
  else if (q.isError)
    body = isNotAvailable(q.error, 'legacy') ? (
      <NotAvailable />
    ) : (
      <Result status="error" title={t('share.linkFailed')} subTitle={errorMessage(q.error)} />
    );
  else body = <Typography.Paragraph>{t('share.linkValid')}</Typography.Paragraph>;
  return (
    <div className="hcs-file-download" data-testid="file-download" style={{ maxWidth: 720, margin: '48px auto' }}>
      <Card title={t('routes.fileDownload')}>{body}</Card>
    </div>
  );
}
