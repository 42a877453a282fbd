// Sign-in with a local account (spec 4/7): the password is RSA-OAEP encrypted with the server's public key
// (getPlatformInfo) and sent in wire Base64 to services/System/Token; the session comes back as an HttpOnly cookie.
import { useState } from 'react';
import { useSearchParams, Link } from 'react-router-dom';
import { Button, Card, Dropdown, Form, Input, Typography } from 'antd';
import { GlobalOutlined, LockOutlined, UserOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { getPlatformInfo, login } from '../../api/gen/session/session.ts';
import { encryptPassword } from '../../shared/wire-encoding.ts';
import { LANGUAGES, LANGUAGE_KEY, isLanguage, translateMessage, type Language } from '../../app/i18n.ts';
import { BASE, hardNav, safeRedirect } from '../../app/navigation.ts';
import { getUserInfo, setUserInfo, userInfoFromServer } from '../../app/session.ts';
import { changeLanguage } from '../../app/account.ts';

interface Values {
  username: string;
  password: string;
}

export default function LoginPage() {
  const { t, i18n } = useTranslation();
  const [params] = useSearchParams();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const target = safeRedirect(params.get('redirect'));

  const submit = async (v: Values) => {
    setBusy(true);
    setError(null);
    try {
      const info = (await getPlatformInfo()).data;
      if (!info?.publicKey) throw new Error(t('login.noPublicKey'));
      const password = await encryptPassword(v.password, info.publicKey);
      const res = await login({ username: v.username.trim(), password, platformId: info.platformId });
      const user = res.data?.user;
      if (!user) throw new Error(t('errors.unexpected'));
      setUserInfo(userInfoFromServer(user, getUserInfo()));
      if (isLanguage(user.languageId) && user.languageId !== i18n.language) localStorage.setItem(LANGUAGE_KEY, user.languageId);
      // A full load: fresh caches for the new user, and the saved language applies from the first paint.
      hardNav.assign(`${BASE}${target}`);
    } catch (e) {
      setError(translateMessage(e instanceof Error ? e.message : String(e)));
      setBusy(false);
    }
  };

  return (
    <div className="hcs-login" style={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center', background: '#f5f5f5' }}>
      <Card style={{ width: 380 }} data-testid="login-card">
        <div style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', marginBottom: 16 }}>
          <Typography.Title level={3} style={{ margin: 0 }}>
            {t('common.appName')}
          </Typography.Title>
          <Dropdown
            trigger={['click']}
            menu={{
              items: LANGUAGES.map((l) => ({ key: l, label: t(`common.languages.${l}`) })),
              onClick: ({ key }) => void changeLanguage(key as Language),
            }}
          >
            <Button type="text" icon={<GlobalOutlined />} data-testid="login-language">
              {t(`common.languages.${i18n.language}`)}
            </Button>
          </Dropdown>
        </div>
        <Typography.Paragraph type="secondary">{t('login.subtitle')}</Typography.Paragraph>
        <Form<Values> layout="vertical" onFinish={(v) => void submit(v)} disabled={busy} requiredMark={false}>
          <Form.Item name="username" label={t('login.username')} rules={[{ required: true, whitespace: true, message: t('login.enterUsername') }]}>
            <Input prefix={<UserOutlined />} autoComplete="username" autoFocus data-testid="login-username" />
          </Form.Item>
          <Form.Item name="password" label={t('login.password')} rules={[{ required: true, message: t('login.enterPassword') }]}>
            <Input.Password prefix={<LockOutlined />} autoComplete="current-password" data-testid="login-password" />
          </Form.Item>
          {error && (
            <Typography.Paragraph type="danger" data-testid="login-error">
              {error}
            </Typography.Paragraph>
          )}
          <Button type="primary" htmlType="submit" block loading={busy} data-testid="login-submit">
            {t('login.submit')}
          </Button>
        </Form>
        <Typography.Paragraph type="secondary" style={{ marginTop: 16, fontSize: 12 }}>
          {t('login.agreementPrefix')}{' '}
          <Link to={i18n.language === 'en_US' ? '/userServiceAgreementEn' : '/userServiceAgreement'} target="_blank">
            {t('routes.userServiceAgreement')}
          </Link>{' '}
          ·{' '}
          <Link to={i18n.language === 'en_US' ? '/privacyPolicyEn' : '/privacyPolicy'} target="_blank">
            {t('routes.privacyPolicy')}
          </Link>
        </Typography.Paragraph>
      </Card>
    </div>
  );
}
