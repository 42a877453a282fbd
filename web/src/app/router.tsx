// Builds the router from the route table: history mode under /drive/, redirects, lazy pages.
import { Suspense, type ReactNode } from 'react';
import { createBrowserRouter, createMemoryRouter, Navigate, Outlet, type RouteObject } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { ROUTES, REDIRECTS, FALLBACK_PATH, type RouteDef } from '../shared/routes.ts';
import { RequireSession } from './RequireSession.tsx';
import { Shell } from './Shell.tsx';
import { AppLayout, FeaturePage, PAGES } from './pages.tsx';

/** Drawn while a page's chunk loads: plain (index.html's CSS), since antd is not in the entry (pages.tsx). */
function Loading() {
  const { t } = useTranslation();
  return <div className="hcs-page-loading" role="status" aria-label={t('common.loading')} />;
}

function Lazy({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Loading />}>{children}</Suspense>;
}

function element(def: RouteDef): ReactNode {
  const Page = def.page && PAGES[def.page];
  return <Lazy>{Page ? <Page /> : <FeaturePage def={def} />}</Lazy>;
}

export function routeObjects(): RouteObject[] {
  const bare = ROUTES.filter((r) => r.frame === 'bare');
  const app = ROUTES.filter((r) => r.frame === 'app');
  return [
    {
      element: <Shell />,
      children: [
        ...bare.map((r) => ({ path: r.path, element: element(r) })),
        {
          element: (
            <RequireSession>
              <Lazy>
                <AppLayout>
                  <Outlet />
                </AppLayout>
              </Lazy>
            </RequireSession>
          ),
          children: app.map((r) => ({ path: r.path, element: element(r) })),
        },
        ...Object.entries(REDIRECTS).map(([from, to]) => ({ path: from, element: <Navigate to={to} replace /> })),
        { path: '*', element: <Navigate to={FALLBACK_PATH} replace /> },
      ],
    },
  ];
}

export function createAppRouter() {
  return createBrowserRouter(routeObjects(), { basename: '/drive' });
}

export function createTestRouter(initialPath: string) {
  return createMemoryRouter(routeObjects(), { initialEntries: [initialPath] });
}
