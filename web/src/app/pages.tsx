// The component behind each page name of the route table, loaded on first visit. The app is the one layer that
// may import every feature, so the table names pages and this module alone imports them.
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { PageName } from '../shared/routes.ts';

export const PAGES: Readonly<Record<PageName, LazyExoticComponent<ComponentType>>> = {
  login: lazy(() => import('../features/account/LoginPage.tsx')),
  home: lazy(() => import('../features/home/HomePage.tsx')),
  personalFile: lazy(() => import('../features/files/PersonalFilePage.tsx')),
  error: lazy(() => import('../features/pages/ErrorPage.tsx')),
  hello: lazy(() => import('../features/pages/HelloPage.tsx')),
  fileDownload: lazy(() => import('../features/pages/FileDownloadPage.tsx')),
  agreement: lazy(() => import('../features/pages/AgreementPage.tsx')),
};
