// antd's app-wide context: theme (primary colour, the spec's z-index), locale per language, and the App holders
// that draw toasts and alerts (registered with shared/notify.ts). Loaded lazily with every page that is drawn with
// antd (pages.tsx), never in the entry: the sign-in page is plain HTML and must not download antd (issue #22 budget,
// web/scripts/check-budget.ts). Nested roots (a page inside the signed-in frame) collapse into the outer one, so
// there is one theme and one toast holder per screen. A reader whose system asks for reduced motion (WCAG 2.3.3) gets
// antd without its animations: dialogs, menus and toasts appear and go at once.
// Styles are antd's static stylesheet (zeroRuntime): components no longer generate their CSS in the browser on every
// page load. Measured in Chromium on the personal files screen: 1.5-1.6 s of browser CPU to its first paint after
// signing in, against 2.0-3.1 s with the runtime styles, and a reload 0.9-1.2 s against 1.2-1.6 s. The theme's tokens
// (the primary colour, the z-index, motion) still reach the stylesheet as CSS variables.
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { App as AntApp, ConfigProvider } from 'antd';
import 'antd/dist/antd.css';
import zhCN from 'antd/es/locale/zh_CN';
import enUS from 'antd/es/locale/en_US';
import { useTranslation } from 'react-i18next';
import { registerNotifiers, TOAST_SECONDS, TOAST_TOP_PX } from '../shared/notify.ts';

const Inside = createContext(false);

function Notifiers() {
  const { message, modal } = AntApp.useApp();
  const { t } = useTranslation();
  useEffect(() => registerNotifiers(message, modal, t), [message, modal, t]);
  return null;
}

/**
 * Whether the system asks for reduced motion, read when the root mounts (a page load). A change applies at the next
 * load, not live: antd wraps the whole tree in a motion provider when the setting first differs from its default,
 * which remounts the app and would drop what the user has open (a half-filled dialog).
 */
const reducedMotion = () => window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;

export function AntdRoot({ children }: { children?: ReactNode }) {
  const { i18n } = useTranslation();
  const [reduced] = useState(reducedMotion);
  if (useContext(Inside)) return <>{children}</>;
  return (
    <Inside.Provider value>
      <ConfigProvider locale={i18n.language === 'en_US' ? enUS : zhCN} theme={{ zeroRuntime: true, token: { colorPrimary: '#c8102e', zIndexPopupBase: 2000, motion: !reduced } }}>
        <AntApp message={{ top: TOAST_TOP_PX, duration: TOAST_SECONDS, maxCount: 3 }}>
          <Notifiers />
          {children}
        </AntApp>
      </ConfigProvider>
    </Inside.Provider>
  );
}

export default AntdRoot;
