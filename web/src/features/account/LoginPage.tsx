// Sign-in with a local account (spec 4/7): the password is RSA-OAEP encrypted with the server's public key
// (getPlatformInfo) and sent in wire Base64 to services/System/Token; the session comes back as an HttpOnly cookie.
// After repeated failures the server holds sign-ins back; it says so (CAPTCHA_REQUIRED) and the page then shows a
// challenge whose answer lets the next attempt through at once. Without an answer the attempt still works, later.
//
// The first page most users load, so it is plain HTML and CSS (login.css) rather than antd: antd's Form, Card,
// Dropdown and Typography bring its form engine, menus, tabs and skeletons, a third of the page's weight (issue #22
// budget, web/scripts/check-budget.ts). The fields behave as antd's did: checked on change and on submit, the
// message under the field, the whole form disabled while a sign-in is under way.
import { useEffect, useState, type FormEvent } from 'react';
import { useSearchParams, Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { EyeInvisibleOutlined, EyeOutlined, GlobalOutlined, LoadingOutlined, LockOutlined, ReloadOutlined, SafetyOutlined, UserOutlined } from '@ant-design/icons';
import { getCaptcha, getCurrentUser, getPlatformInfo, login } from '../../api/gen/session/session.ts';
import type { Captcha, LoginMethods } from '../../api/gen/model/index.ts';
import { HcsError } from '../../api/hcs-error.ts';
import { encryptPassword } from '../../shared/wire-encoding.ts';
import { LANGUAGES, LANGUAGE_KEY, isLanguage } from '../../shared/i18n.ts';
import { errorMessage, LocalizedError } from '../../shared/error-message.ts';
import { BASE, hardNav, safeRedirect } from '../../shared/navigation.ts';
import { getUserInfo, setUserInfo, userInfoFromServer } from '../../shared/session.ts';
import { changeLanguage } from '../../shared/account.ts';
import './login.css';
import { addStrings } from '../../shared/page-strings.ts';
import zhCN from './sso.zh_CN.json';
import enUS from './sso.en_US.json';

addStrings({ zh_CN: zhCN, en_US: enUS });

interface Values {
  username: string;
  password: string;
  captcha: string;
}
type Field = 'username' | 'password';

/** Answers after which the next attempt is better made with a solved challenge. */
const CAPTCHA_CODES = new Set(['CAPTCHA_REQUIRED', 'CAPTCHA_INVALID', 'RATE_LIMITED']);

/** The rule of each required field: the locale key of its message when the value breaks it, else null. */
const RULES: Record<Field, (v: string) => string | null> = {
  username: (v) => (v.trim() ? null : 'login.enterUsername'),
  password: (v) => (v ? null : 'login.enterPassword'),
};

/** The server's start of single sign-on with a provider (a 302 to it), coming back to `target`. */
const ssoHref = (providerId: string, target: string) =>
  `/hcs/services/System/sso/login?providerId=${encodeURIComponent(providerId)}&redirect=${encodeURIComponent(target)}`;

export default function LoginPage() {
  const { t, i18n } = useTranslation();
  const [params] = useSearchParams();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [captcha, setCaptcha] = useState<Captcha | null>(null);
  const [values, setValues] = useState<Values>({ username: '', password: '', captcha: '' });
  const [invalid, setInvalid] = useState<Partial<Record<Field, string>>>({});
  const [showPassword, setShowPassword] = useState(false);
  const target = safeRedirect(params.get('redirect'));
  // Company sign-in (issue #19): the providers to offer, and a refusal the single sign-on callback sent back.
  const [methods, setMethods] = useState<LoginMethods | null>(null);
  const ssoError = params.get('ssoError');
  const ssoDevice = params.get('ssoDevice') === 'done';

  useEffect(() => {
    let live = true;
    // Back from single sign-on the browser holds a session cookie but the app no user yet: with a provider
    // configured, take the user from the server and go on to the page asked for. Without a session this answers 401,
    // which the sign-in page ignores.
    const resume = async (m: LoginMethods) => {
      const r = await getCurrentUser({ quiet: true }).catch(() => null);
      if (!live) return;
      if (r?.data) {
        setUserInfo(userInfoFromServer(r.data, getUserInfo()));
        hardNav.assign(`${BASE}${target}`);
      } else if (m.localLogin === 'admins' && m.ssoProviders.length === 1 && !params.has('local')) {
        // Staff have no other way in: /login (and the spec's 302 handling, which lands here) goes straight to the
        // provider. Administrators and share visitors keep the form at /login?local=1.
        hardNav.assign(ssoHref(m.ssoProviders[0]!.id, target));
      }
    };
    getPlatformInfo({ quiet: true })
      .then((r) => {
        if (!live) return;
        const m = r.data?.loginMethods ?? null;
        setMethods(m);
        if (m && m.ssoProviders.length > 0 && !ssoError && !ssoDevice) return resume(m);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [ssoError, ssoDevice, target, params]);

  const change = (field: keyof Values, value: string) => {
    setValues((v) => ({ ...v, [field]: value }));
    if (field !== 'captcha') setInvalid((e) => ({ ...e, [field]: RULES[field](value) ?? undefined }));
  };

  const newCaptcha = async () => {
    setValues((v) => ({ ...v, captcha: '' }));
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
    const answer = captcha && v.captcha.trim() ? { captchaId: captcha.captchaId, captchaAnswer: v.captcha.trim() } : {};
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

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const found: Partial<Record<Field, string>> = {};
    for (const f of Object.keys(RULES) as Field[]) found[f] = RULES[f](values[f]) ?? undefined;
    setInvalid(found);
    const first = (Object.keys(RULES) as Field[]).find((f) => found[f]);
    if (first) {
      document.getElementById(`login-${first}`)?.focus();
      return;
    }
    void submit(values);
  };

  const fieldError = (f: Field) =>
    invalid[f] ? (
      <div className="hcs-login-explain" id={`login-${f}-error`} role="alert">
        {t(invalid[f])}
      </div>
    ) : null;

  return (
    <div className="hcs-login">
      <main className="hcs-login-card" data-testid="login-card">
        <div className="hcs-login-head">
          <h1 className="hcs-login-title">{t('common.appName')}</h1>
          <label className="hcs-login-language">
            <GlobalOutlined />
            <select
              aria-label={t('login.language')}
              value={i18n.language}
              onChange={(e) => void changeLanguage(e.target.value as (typeof LANGUAGES)[number])}
              data-testid="login-language"
            >
              {LANGUAGES.map((l) => (
                <option key={l} value={l}>
                  {t(`common.languages.${l}`)}
                </option>
              ))}
            </select>
          </label>
        </div>
        <p className="hcs-login-secondary">{t('login.subtitle')}</p>
        {ssoDevice && (
          <p className="hcs-login-secondary" role="status" data-testid="login-sso-device">
            {t('identity.deviceDone')}
          </p>
        )}
        {ssoError && (
          <p className="hcs-login-error" role="alert" data-testid="login-sso-error">
            {t(`errors.codes.${ssoError}`, { defaultValue: t('errors.codes.SSO_FAILED') })}
          </p>
        )}
        {methods && methods.ssoProviders.length > 0 && (
          <div className="hcs-login-sso">
            {methods.ssoProviders.map((p) => (
              // A navigation, not a call: the server answers with the provider's sign-in page (302).
              <a key={p.id} className="hcs-login-submit" href={ssoHref(p.id, target)} data-testid="login-sso">
                {t('identity.ssoButton', { name: p.name })}
              </a>
            ))}
            <p className="hcs-login-secondary">{methods.localLogin === 'admins' ? t('identity.adminsOnly') : t('identity.orLocal')}</p>
          </div>
        )}
        <form onSubmit={onSubmit} noValidate>
          <fieldset disabled={busy}>
            <div className="hcs-login-item">
              <label htmlFor="login-username">{t('login.username')}</label>
              <span className={`hcs-login-input${invalid.username ? ' hcs-login-input-error' : ''}`}>
                <UserOutlined />
                <input
                  id="login-username"
                  value={values.username}
                  onChange={(e) => change('username', e.target.value)}
                  autoComplete="username"
                  autoFocus
                  aria-invalid={invalid.username ? true : undefined}
                  aria-describedby={invalid.username ? 'login-username-error' : undefined}
                  data-testid="login-username"
                />
              </span>
              {fieldError('username')}
            </div>
            <div className="hcs-login-item">
              <label htmlFor="login-password">{t('login.password')}</label>
              <span className={`hcs-login-input${invalid.password ? ' hcs-login-input-error' : ''}`}>
                <LockOutlined />
                <input
                  id="login-password"
                  type={showPassword ? 'text' : 'password'}
                  value={values.password}
                  onChange={(e) => change('password', e.target.value)}
                  autoComplete="current-password"
                  aria-invalid={invalid.password ? true : undefined}
                  aria-describedby={invalid.password ? 'login-password-error' : undefined}
                  data-testid="login-password"
                />
                <button
                  type="button"
                  className="hcs-login-icon-btn"
                  aria-pressed={showPassword}
                  aria-label={t(showPassword ? 'login.hidePassword' : 'login.showPassword')}
                  title={t(showPassword ? 'login.hidePassword' : 'login.showPassword')}
                  onClick={() => setShowPassword((s) => !s)}
                >
                  {showPassword ? <EyeOutlined /> : <EyeInvisibleOutlined />}
                </button>
              </span>
              {fieldError('password')}
            </div>
            {captcha && (
              <div className="hcs-login-item">
                <label htmlFor="login-captcha">{t('login.captcha')}</label>
                <div className="hcs-login-captcha">
                  <span className="hcs-login-input">
                    <SafetyOutlined />
                    <input
                      id="login-captcha"
                      value={values.captcha}
                      onChange={(e) => change('captcha', e.target.value)}
                      autoComplete="off"
                      maxLength={16}
                      placeholder={t('login.enterCaptcha')}
                      aria-describedby="login-captcha-hint"
                      data-testid="login-captcha"
                    />
                  </span>
                  <img src={captcha.image} alt={t('login.captchaImage')} width={120} height={40} data-testid="login-captcha-image" />
                  <button
                    type="button"
                    className="hcs-login-icon-btn"
                    aria-label={t('login.newCaptcha')}
                    title={t('login.newCaptcha')}
                    onClick={() => void newCaptcha()}
                    data-testid="login-captcha-refresh"
                  >
                    <ReloadOutlined />
                  </button>
                </div>
                <div className="hcs-login-secondary" id="login-captcha-hint">
                  {t('login.captchaHint')}
                </div>
              </div>
            )}
            {error && (
              <p className="hcs-login-error" role="alert" data-testid="login-error">
                {error}
              </p>
            )}
            <button type="submit" className="hcs-login-submit" aria-busy={busy} data-testid="login-submit">
              {busy && <LoadingOutlined />}
              {t('login.submit')}
            </button>
          </fieldset>
        </form>
        <p className="hcs-login-secondary hcs-login-legal">
          {t('login.agreementPrefix')}{' '}
          <Link to={i18n.language === 'en_US' ? '/userServiceAgreementEn' : '/userServiceAgreement'} target="_blank">
            {t('routes.userServiceAgreement')}
          </Link>{' '}
          ·{' '}
          <Link to={i18n.language === 'en_US' ? '/privacyPolicyEn' : '/privacyPolicy'} target="_blank">
            {t('routes.privacyPolicy')}
          </Link>
        </p>
      </main>
    </div>
  );
}
