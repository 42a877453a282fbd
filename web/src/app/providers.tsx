// App-wide providers: react-query, i18n, and the notifier host. antd's theme, locale and toast holders (antd-root.tsx)
// come with each antd page instead of wrapping the app here, so the sign-in page loads no antd; a toast on a page
// without them (the sign-out message on /login, a failed call) mounts a holder on demand.
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { I18nextProvider } from 'react-i18next';
import { i18n } from '../shared/i18n.ts';
import { onNotifierNeeded } from '../shared/notify.ts';
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

const NotifierHost = lazy(() => import('./antd-root.tsx'));

export function Providers({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  const [host, setHost] = useState(false);
  useEffect(() => {
    onNotifierNeeded(() => setHost(true));
    return () => onNotifierNeeded(undefined);
  }, []);
  return (
    <QueryClientProvider client={client}>
      <I18nextProvider i18n={i18n}>
        {children}
        {host && (
          <Suspense fallback={null}>
            <NotifierHost />
          </Suspense>
        )}
      </I18nextProvider>
    </QueryClientProvider>
  );
}
