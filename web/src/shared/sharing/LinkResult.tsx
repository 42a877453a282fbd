// A link as handed out: the full address and, the one time it is known, the extraction code, with a copy button
// for both (the text the owner pastes to the visitor).
import { Button, Input, Space, Typography } from 'antd';
import i18n from 'i18next';
import { useTranslation } from 'react-i18next';
import type { FileShare } from '../../api/gen/model/fileShare.ts';
import { toastError, toastSuccess } from '../notify.ts';

/** The text handed to the visitor (in the owner's language). */
export function linkText(fullLink: string, code?: string): string {
  return code ? i18n.t('sharing.copyTextWithCode', { link: fullLink, code }) : i18n.t('sharing.copyText', { link: fullLink });
}

export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    toastSuccess(i18n.t('sharing.copied'));
  } catch {
    toastError(i18n.t('sharing.copyFailed'));
  }
}

export function LinkResult({ share }: { share: FileShare }) {
  const { t } = useTranslation();
  return (
    <Space direction="vertical" style={{ width: '100%' }} data-testid="link-result">
      <Typography.Text strong>{t('sharing.created')}</Typography.Text>
      <Input readOnly value={share.fullLink} data-testid="link-full" />
      {share.code && (
        <Typography.Text>
          {t('sharing.code')}: <Typography.Text code data-testid="link-code-shown">{share.code}</Typography.Text>
        </Typography.Text>
      )}
      {share.hasCode && !share.code && <Typography.Text type="secondary">{t('sharing.codeHidden')}</Typography.Text>}
      <Button type="primary" onClick={() => void copyText(linkText(share.fullLink, share.code))} data-testid="link-copy">
        {t(share.code ? 'sharing.copyWithCode' : 'sharing.copyLink')}
      </Button>
    </Space>
  );
}
