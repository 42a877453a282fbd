// The component behind each page name of the route table, loaded on first visit. The app is the one layer that
// may import every feature, so the table names pages and this module alone imports them.
// Every screen, the signed-in frame and the placeholder page alike, is its own chunk: the sign-in page must not
// download the header, the transfer panel or the files table (issue #22 budget, web/scripts/check-budget.ts).
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
  departFile: lazy(() => import('../features/files/DepartmentFilePage.tsx')),
  departmentManage: lazy(() => import('../features/org/DepartmentManagePage.tsx')),
  roleManage: lazy(() => import('../features/org/RoleManagePage.tsx')),
  myCollect: lazy(() => import('../features/files/FavouritesPage.tsx')),
  recycleBin: lazy(() => import('../features/recycle/BinScreen.tsx').then((m) => ({ default: m.RecycleBinPage }))),
  recycleBinManage: lazy(() => import('../features/recycle/BinScreen.tsx').then((m) => ({ default: m.RecycleManagePage }))),
  tagRemark: lazy(() => import('../features/files/TagRemarkPage.tsx')),
  quickSearch: lazy(() => import('../features/files/SearchPage.tsx').then((m) => ({ default: m.QuickSearchPage }))),
  searchPanel: lazy(() => import('../features/files/SearchPage.tsx').then((m) => ({ default: m.SearchPanelPage }))),
  fileTemplate: lazy(() => import('../features/templates/FileTemplatePage.tsx')),
  fileManagement: lazy(() => import('../features/file-management/FileManagementPage.tsx')),
};

/** The signed-in frame (header, side menu, capacity, transfer panel). */
export const AppLayout = lazy(() => import('./layout/AppLayout.tsx').then((m) => ({ default: m.AppLayout })));

/** The placeholder page of a route whose feature has no screen of its own yet. */
export const FeaturePage = lazy(() => import('../features/pages/FeaturePage.tsx'));
