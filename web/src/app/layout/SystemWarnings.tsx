// Configuration problems the server noticed (System/warnings), shown to administrators only: the server refuses
// the call to anyone else, so it is not even made for them.
import { Alert } from 'antd';
import { useTranslation } from 'react-i18next';
import { useGetSystemWarnings } from '../../api/gen/session/session.ts';
import { useUserInfo } from '../../shared/session.ts';

export function SystemWarnings() {
  const { t, i18n } = useTranslation();
  const user = useUserInfo();
  const q = useGetSystemWarnings({ query: { enabled: user?.isAdmin === true, staleTime: 5 * 60_000 } });
  // A code this app has no text for (a newer server) is left out rather than shown as a raw key.
  const warnings = (q.data?.data ?? []).filter((w) => i18n.exists(`layout.warnings.${w.code}`));
  if (!user?.isAdmin || warnings.length === 0) return null;
  return (
    <div data-testid="system-warnings" style={{ padding: '8px 16px 0' }}>
      {warnings.map((w) => (
        <Alert
          key={w.code}
          type="warning"
          showIcon
          closable
          style={{ marginBottom: 8 }}
          title={t('layout.warnings.title')}
          description={t(`layout.warnings.${w.code}`, { peerIp: w.peerIp })}
          data-testid={`system-warning-${w.code}`}
        />
      ))}
    </div>
  );
}
