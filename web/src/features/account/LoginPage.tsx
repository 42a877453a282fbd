// Sign-in with a local account (spec 4/7): the password is RSA-OAEP encrypted with the server's public key
// (getPlatformInfo) and sent in wire Base64 to services/System/Token; the session comes back as an HttpOnly cookie.
// After repeated failures the server holds sign-ins back; it says so (CAPTCHA_REQUIRED) and the page then shows a
// challenge whose answer lets the next attempt through at once. Without an answer the attempt still works, later.
import { useState } from 'react';
import { useSearchParams, Link } from 'react-router-dom';
import { Button, Card, Dropdown, Form, Input, Typography } from 'antd';
import { GlobalOutlined, LockOutlined, ReloadOutlined, SafetyOutlined, UserOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { getCaptcha, getPlatformInfo, login } from '../../api/gen/session/session.ts';
import type { Captcha } from '../../api/gen/model/index.ts';
import { HcsError } from '../../api/hcs-error.ts';
import { encryptPassword } from '../../shared/wire-encoding.ts';
import { LANGUAGES, LANGUAGE_KEY, isLanguage, type Language } from '../../shared/i18n.ts';
import { errorMessage, LocalizedError } from '../../shared/error-message.ts';
import { BASE, hardNav, safeRedirect } from '../../shared/navigation.ts';
import { getUserInfo, setUserInfo, userInfoFromServer } from '../../shared/session.ts';
import { changeLanguage } from '../../shared/account.ts';

interface Values {
  username: string;
  password: string;
  captcha?: string;
}

/** Answers after which the next attempt is better made with a solved challenge. */
const CAPTCHA_CODES = new Set(['CAPTCHA_REQUIRED', 'CAPTCHA_INVALID', 'RATE_LIMITED']);


export default function LoginPage() {
  const { t, i18n } = useTranslation();
  const [params] = useSearchParams();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [captcha, setCaptcha] = useState<Captcha | null>(null);
  const [form] = Form.useForm<Values>();
  const target = safeRedirect(params.get('redirect'));

  const newCaptcha = async () => {
    form.setFieldValue('captcha', '');
    try {
      setCaptcha((await getCaptcha()).data ?? null);
    } catch {
      // Without a challenge the user can still sign in: the server only holds the attempt back a while.
      setCaptcha(null);
    }
  };

  const submit = async (v: Values) => {
    setBusy(true);
    setError(null);
    // A challenge is good for one attempt, whatever its outcome.
    const answer = captcha && v.captcha?.trim() ? { captchaId: captcha.captchaId, captchaAnswer: v.captcha.trim() } : {};
    try {
      // Quiet: the form shows the failure itself, once.
      const info = (await getPlatformInfo({ quiet: true })).data;
      if (!info?.publicKey) throw new LocalizedError('login.noPublicKey');
      const password = await encryptPassword(v.password, info.publicKey);
      const res = await login({ username: v.username.trim(), password, platformId: info.platformId, ...answer }, { quiet: true });
      const user = res.data?.user;
      if (!user) throw new LocalizedError('errors.unexpected');
      setUserInfo(userInfoFromServer(user, getUserInfo()));
      if (isLanguage(user.languageId) && user.languageId !== i18n.language) localStorage.setItem(LANGUAGE_KEY, user.languageId);
      // A full load: fresh caches for the new user, and the saved language applies from the first paint.
      hardNav.assign(`${BASE}${target}`);
    } catch (e) {
      setError(errorMessage(e));
      if ((e instanceof HcsError && CAPTCHA_CODES.has(e.code)) || 'captchaId' in answer) await newCaptcha();
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
        <Form<Values> form={form} layout="vertical" onFinish={(v) => void submit(v)} disabled={busy} requiredMark={false}>
          <Form.Item name="username" label={t('login.username')} rules={[{ required: true, whitespace: true, message: t('login.enterUsername') }]}>
            <Input prefix={<UserOutlined />} autoComplete="username" autoFocus data-testid="login-username" />
          </Form.Item>
          <Form.Item name="password" label={t('login.password')} rules={[{ required: true, message: t('login.enterPassword') }]}>
            <Input.Password prefix={<LockOutlined />} autoComplete="current-password" data-testid="login-password" />
          </Form.Item>
          {captcha && (
            <Form.Item label={t('login.captcha')} extra={t('login.captchaHint')}>
              <div style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
                <Form.Item name="captcha" noStyle>
                  <Input prefix={<SafetyOutlined />} autoComplete="off" maxLength={16} placeholder={t('login.enterCaptcha')} data-testid="login-captcha" />
                </Form.Item>
                <img src={captcha.image} alt={t('login.captchaImage')} width={120} height={40} data-testid="login-captcha-image" />
                <Button
                  type="text"
                  icon={<ReloadOutlined />}
                  aria-label={t('login.newCaptcha')}
                  title={t('login.newCaptcha')}
                  onClick={() => void newCaptcha()}
                  data-testid="login-captcha-refresh"
                />
              </div>
            </Form.Item>
          )}
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
