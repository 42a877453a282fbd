// /fileDownload?link=...: the public share download page. No header, no sign-in; the visitor's access is the link.
// The public-link calls (FileShare checklink, loginShare, ...) are not in the contract yet, so the page asks the
// server nothing: a well-formed link gets "not available on this server", and it never shows made-up files.
import { useSearchParams } from 'react-router-dom';
import { Card, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { NotAvailable } from './FeaturePage.tsx';

export default function FileDownloadPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const valid = /^[A-Za-z0-9_-]{1,256}$/.test(params.get('link') ?? '');
  return (
    <div className="hcs-file-download" data-testid="file-download" style={{ maxWidth: 720, margin: '48px auto' }}>
      <Card title={t('routes.fileDownload')}>
        {valid ? <NotAvailable /> : <Result status="warning" title={t('share.invalidLink')} data-testid="share-invalid" />}
      </Card>
    </div>
  );
}
