// The component behind each page name of the route table, loaded on first visit. The app is the one layer that
// may import every feature, so the table names pages and this module alone imports them.
// Every screen, the signed-in frame and the placeholder page alike, is its own chunk: the sign-in page must not
// download the header, the transfer panel or the files table (issue #22 budget, web/scripts/check-budget.ts).
// antd's theme, locale and toast holders (antd-root.tsx) come with the signed-in frame and the bare pages that use
// antd (withAntd), loaded beside the page's own chunk; the sign-in page is plain HTML and loads no antd at all.
import { lazy, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';
import type { PageName } from '../shared/routes.ts';

/** A page drawn with antd: its chunk and antd's root load in parallel, and the page renders inside the root. */
function withAntd<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): LazyExoticComponent<ComponentType<P>> {
  return lazy(async () => {
    const [{ default: Page }, { AntdRoot }] = await Promise.all([load(), import('./antd-root.tsx')]);
    return { default: (props: P) => <AntdRoot><Page {...props} /></AntdRoot> };
  });
}

export const PAGES: Readonly<Record<PageName, LazyExoticComponent<ComponentType>>> = {
  login: lazy(() => import('../features/account/LoginPage.tsx')),
  home: lazy(() => import('../features/home/HomePage.tsx')),
  personalFile: lazy(() => import('../features/files/PersonalFilePage.tsx')),
  error: withAntd(() => import('../features/pages/ErrorPage.tsx')),
  hello: withAntd(() => import('../features/pages/HelloPage.tsx')),
  fileDownload: withAntd(() => import('../features/pages/FileDownloadPage.tsx')),
  agreement: withAntd(() => import('../features/pages/AgreementPage.tsx')),
  departFile: lazy(() => import('../features/files/DepartmentFilePage.tsx')),
  groupFile: lazy(() => import('./GroupFileScreen.tsx')),
  fileShare: lazy(() => import('../features/shares/FileSharePage.tsx')),
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
  dlpManage: lazy(() => import('../features/dlp/DlpRulesPage.tsx')),
  dlpApproval: lazy(() => import('../features/dlp/DlpApprovalsPage.tsx')),
  mySharing: lazy(() => import('../features/sharing/MySharingPage.tsx')),
  otherConfig: lazy(() => import('../features/admin-console/OtherConfigPage.tsx')),
  ipWhiteList: lazy(() => import('../features/admin-console/IpWhiteListPage.tsx')),
  logManage: lazy(() => import('../features/admin-console/LogManagePage.tsx')),
  dataStatistics: lazy(() => import('../features/admin-console/StatisticsPage.tsx')),
  personalTable: lazy(() => import('../features/admin-console/PersonalTablePage.tsx')),
  patchManagement: lazy(() => import('../features/admin-console/PatchManagementPage.tsx')),
  businessManage: lazy(() => import('../features/business-libs/BusinessManagePage.tsx')),
  businessLibrary: lazy(() => import('../features/business-libs/BusinessLibraryPage.tsx')),
  businessLibraryManage: lazy(() => import('../features/business-libs/BusinessLibraryManagePage.tsx')),
  businessDetail: lazy(() => import('../features/business-libs/BusinessDetailPage.tsx')),
  businessLevelProperty: lazy(() => import('../features/business-libs/BusinessLevelPropertyPage.tsx')),
  businessLibraryProperty: lazy(() => import('../features/business-libs/BusinessLibraryPropertyPage.tsx')),
  businessConfig: lazy(() => import('../features/business-libs/BusinessConfigPage.tsx')),
  cloudStorageManage: lazy(() => import('../features/storage/CloudStorageManagePage.tsx')),
  localSync: lazy(() => import('../features/local-sync/LocalSyncPage.tsx')),
  nodeManage: lazy(() => import('../features/storage/NodeManagePage.tsx')),
  clusterManage: lazy(() => import('../features/storage/ClusterManagePage.tsx')),
  clusterSync: lazy(() => import('../features/cluster-sync/ClusterSyncPage.tsx')),
  integrationPlatform: lazy(() => import('../features/identity/IntegrationPlatformPage.tsx')),
};

/** The signed-in frame (header, side menu, capacity, transfer panel). */
export const AppLayout = withAntd<{ children: ReactNode }>(() => import('./layout/AppLayout.tsx').then((m) => ({ default: m.AppLayout })));

/** The placeholder page of a route whose feature has no screen of its own yet. */
export const FeaturePage = lazy(() => import('../features/pages/FeaturePage.tsx'));
