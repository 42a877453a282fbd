// App-wide providers: react-query, antd (locale per language, spec z-index), i18n, and the notifier registration.
import { useEffect, useState, type ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider } from 'antd';
import zhCN from 'antd/locale/zh_CN';
import enUS from 'antd/locale/en_US';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { i18n } from '../shared/i18n.ts';
import { registerNotifiers, TOAST_SECONDS, TOAST_TOP_PX } from '../shared/notify.ts';
import type { HcsError } from '../api/hcs-error.ts';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Failures are toasted by the HTTP hooks; retrying a refused call would only repeat the toast.
        retry: (count, err) => count < 1 && ((err as HcsError).code === 'NETWORK' || (err as HcsError).status >= 502),
        refetchOnWindowFocus: false,
        staleTime: 30_000,
      },
    },
  });
}

function Notifiers() {
  const { message, modal } = AntApp.useApp();
  const { t } = useTranslation();
  useEffect(() => registerNotifiers(message, modal, t), [message, modal, t]);
  return null;
}

function Antd({ children }: { children: ReactNode }) {
  const { i18n: inst } = useTranslation();
  return (
    <ConfigProvider locale={inst.language === 'en_US' ? enUS : zhCN} theme={{ token: { colorPrimary: '#c8102e', zIndexPopupBase: 2000 } }}>
      <AntApp message={{ top: TOAST_TOP_PX, duration: TOAST_SECONDS, maxCount: 3 }}>
        <Notifiers />
        {children}
      </AntApp>
    </ConfigProvider>
  );
}

export function Providers({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  return (
    <QueryClientProvider client={client}>
      <I18nextProvider i18n={i18n}>
        <Antd>{children}</Antd>
      </I18nextProvider>
    </QueryClientProvider>
  );
}
