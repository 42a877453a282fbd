// The one route table (spec 2): path, i18n name key, icon, access, layout flags and the page. The router, the
// NetDisk menu and the tests all read it; nothing else declares routes. Pages are named, not imported: the pages
// read this table (menus, library landing, the feature frame), so importing them here would make every page and
// the table one cycle; app/pages.tsx maps each name to its lazily loaded component.
import type { OperationId } from '@hcs/openapi/operations';
import { getUserInfo, type UserInfo } from './session.ts';

// A probe loads the generated call it makes when it runs, one function each (`import(m).then(({ fn }) => ...)`, which
// the bundler tree-shakes): imported here, the calls would be in the entry chunk the sign-in page loads too, and a
// module imported whole (`(await import(m)).fn`) kept every export of it in the files screen's chunks (3.8 KB gzip
// of /personalFile; web/scripts/check-budget.ts).

/** 'manager': administrators and department managers (a screen that scopes itself to the managed subtree). */
export type Access = 'public' | 'user' | 'admin' | 'manager';

/**
 * How a later-feature page asks the server for its first page of data: through the generated client, never a
 * hand-written URL, so the page only ever asks what the contract defines (a server answers 501 until it implements
 * the operation). A screen whose call the contract does not define yet has no probe and shows "not available"
 * without asking: a URL outside the contract could only meet a 404 "no route".
 */
export interface Probe {
  /** The contract operation `load` calls (routes-contract.spec checks that it is the one it sends). */
  operation: OperationId;
  /** A keyword search: the call waits for the user's input. */
  needsKeyword?: boolean;
  /** Sent quiet: the page shows a failure itself (not available, or load failed), never a toast on top. */
  load: (keyword: string, signal: AbortSignal) => Promise<unknown>;
}

export interface RouteDef {
  path: string;
  nameKey: string;
  icon?: string;
  access: Access;
  /** 'app': inside the layout (header, menu per the layout rules); 'bare': a page of its own, no header. */
  frame: 'app' | 'bare';
  /** The business library whose menu this route belongs to. */
  lib?: 'NetDisk' | 'SysConfig';
  /** Position in the locally built NetDisk menu. */
  netDiskMenu?: number;
  /** The page of its own; without one the router shows the feature frame (features/pages/FeaturePage). */
  page?: PageName;
  probe?: Probe | null;
}

const PAGE = { pageNo: 1, pageSize: 20 } as const;

export type PageName = 'login' | 'home' | 'personalFile' | 'error' | 'hello' | 'fileDownload' | 'agreement'
  | 'businessManage' | 'businessLibrary'
  | 'businessLibraryManage' | 'businessDetail' | 'businessLevelProperty' | 'businessLibraryProperty' | 'businessConfig'
  | 'departFile' | 'groupFile' | 'departmentManage' | 'roleManage' | 'fileShare'
  | 'myCollect' | 'recycleBin' | 'recycleBinManage' | 'tagRemark' | 'quickSearch' | 'searchPanel' | 'fileTemplate' | 'fileManagement'
  | 'dlpManage' | 'dlpApproval' | 'mySharing' | 'localSync'
  | 'otherConfig' | 'ipWhiteList' | 'logManage' | 'dataStatistics' | 'personalTable' | 'patchManagement'
  | 'cloudStorageManage' | 'nodeManage' | 'clusterManage' | 'clusterSync'
  | 'integrationPlatform';

const f = (path: string, nameKey: string, probe: Probe | null, extra: Partial<RouteDef> = {}): RouteDef => ({
  path,
  nameKey,
  access: 'user',
  frame: 'app',
  probe,
  ...extra,
});
const admin = (path: string, nameKey: string, probe: Probe | null, extra: Partial<RouteDef> = {}): RouteDef =>
  f(path, nameKey, probe, { access: 'admin', lib: 'SysConfig', icon: 'setting', ...extra });

export const ROUTES: readonly RouteDef[] = [
  { path: '/login', nameKey: 'routes.login', access: 'public', frame: 'bare', page: 'login' },
  { path: '/error/:type', nameKey: 'routes.error', access: 'public', frame: 'bare', page: 'error' },
  { path: '/hello', nameKey: 'routes.hello', access: 'public', frame: 'bare', page: 'hello' },
  { path: '/fileDownload', nameKey: 'routes.fileDownload', access: 'public', frame: 'bare', page: 'fileDownload' },
  { path: '/userServiceAgreement', nameKey: 'routes.userServiceAgreement', access: 'public', frame: 'bare', page: 'agreement' },
  { path: '/userServiceAgreementEn', nameKey: 'routes.userServiceAgreement', access: 'public', frame: 'bare', page: 'agreement' },
  { path: '/privacyPolicy', nameKey: 'routes.privacyPolicy', access: 'public', frame: 'bare', page: 'agreement' },
  { path: '/privacyPolicyEn', nameKey: 'routes.privacyPolicy', access: 'public', frame: 'bare', page: 'agreement' },
  { path: '/home', nameKey: 'routes.home', access: 'user', frame: 'app', icon: 'home', page: 'home' },

  // NetDisk, in menu order.
  { path: '/personalFile', nameKey: 'routes.personalFile', icon: 'user', access: 'user', frame: 'app', lib: 'NetDisk', netDiskMenu: 1, page: 'personalFile' },
  f('/groupFile', 'routes.groupFile', null, { icon: 'team', lib: 'NetDisk', netDiskMenu: 2, page: 'groupFile' }),
  f('/fileShare', 'routes.fileShare', { operation: 'pageFileSharing', load: (_k, signal) => import('../api/gen/shares/shares.ts').then(({ pageFileSharing }) => pageFileSharing(PAGE, { signal, quiet: true })) }, { icon: 'share', lib: 'NetDisk', netDiskMenu: 3, page: 'fileShare' }),
  f('/mySharing', 'routes.mySharing', null, { icon: 'link', lib: 'NetDisk', netDiskMenu: 4, page: 'mySharing' }),
  f('/clusterSync', 'routes.clusterSync', null, { icon: 'cluster', lib: 'NetDisk', netDiskMenu: 5, page: 'clusterSync' }),
  f('/myCollect', 'routes.myCollect', { operation: 'pageFavourites', load: (_k, signal) => import('../api/gen/files/files.ts').then(({ pageFavourites }) => pageFavourites(PAGE, { signal, quiet: true })) }, { icon: 'star', lib: 'NetDisk', netDiskMenu: 6, page: 'myCollect' }),
  f('/recycleBin', 'routes.recycleBin', { operation: 'pageRecycle', load: (_k, signal) => import('../api/gen/files/files.ts').then(({ pageRecycle }) => pageRecycle(PAGE, { signal, quiet: true })) }, { icon: 'delete', lib: 'NetDisk', netDiskMenu: 7, page: 'recycleBin' }),

  f('/departFile', 'routes.departFile', null, { icon: 'apartment', lib: 'NetDisk', page: 'departFile' }),
  f('/departmentFile', 'routes.departFile', null, { icon: 'apartment', lib: 'NetDisk', page: 'departFile' }),
  f('/localSync', 'routes.localSync', {
    operation: 'getOneSyncState',
    load: (_k, signal) => import('../api/gen/session/session.ts').then(({ getOneSyncState }) => getOneSyncState({ userName: getUserInfo()?.userName ?? '' }, { signal, quiet: true })),
  }, { icon: 'sync', lib: 'NetDisk', page: 'localSync' }),
  f('/tagRemark', 'routes.tagRemark', { operation: 'listLabels', load: (_k, signal) => import('../api/gen/files/files.ts').then(({ listLabels }) => listLabels({ signal, quiet: true })) }, { icon: 'tags', lib: 'NetDisk', page: 'tagRemark' }),
  f('/quickSearch', 'routes.quickSearch', { operation: 'searchPage', needsKeyword: true, load: (keyword, signal) => import('../api/gen/files/files.ts').then(({ searchPage }) => searchPage({ keyword, ...PAGE }, { signal, quiet: true })) }, { icon: 'search', lib: 'NetDisk', page: 'quickSearch' }),
  f('/searchPanel', 'routes.searchPanel', { operation: 'searchPage', needsKeyword: true, load: (keyword, signal) => import('../api/gen/files/files.ts').then(({ searchPage }) => searchPage({ keyword, ...PAGE }, { signal, quiet: true })) }, { icon: 'search', lib: 'NetDisk', page: 'searchPanel' }),
  f('/fileTemplate', 'routes.fileTemplate', { operation: 'listTemplates', load: (_k, signal) => import('../api/gen/files/files.ts').then(({ listTemplates }) => listTemplates({ signal, quiet: true })) }, { icon: 'file', lib: 'NetDisk', page: 'fileTemplate' }),
  f('/dlpApproval', 'routes.dlpApproval', null, { icon: 'safety', lib: 'NetDisk', page: 'dlpApproval' }),

  admin('/recycleBinManage', 'routes.recycleBinManage', { operation: 'pageSecRecycle', load: (_k, signal) => import('../api/gen/files/files.ts').then(({ pageSecRecycle }) => pageSecRecycle(PAGE, { signal, quiet: true })) }, { page: 'recycleBinManage' }),
  admin('/departmentManage', 'routes.departmentManage', null, { page: 'departmentManage', access: 'manager' }),
  admin('/roleManage', 'routes.roleManage', null, { page: 'roleManage' }),
  admin('/businessManage', 'routes.businessManage', null, { page: 'businessManage' }),
  admin('/businessLibraryManage', 'routes.businessLibraryManage', null, { page: 'businessLibraryManage' }),
  admin('/businessDetail', 'routes.businessDetail', null, { page: 'businessDetail' }),
  admin('/businessLevelProperty', 'routes.businessLevelProperty', null, { page: 'businessLevelProperty' }),
  admin('/businessLibraryProperty', 'routes.businessLibraryProperty', null, { page: 'businessLibraryProperty' }),
  // A library's own file screen: for whoever may use the library (the server decides), in that library's menu.
  f('/businessLibrary', 'routes.businessLibrary', null, { icon: 'folder', page: 'businessLibrary' }),
  admin('/businessConfig', 'routes.businessConfig', null, { page: 'businessConfig' }),
  admin('/nodeManage', 'routes.nodeManage', null, { page: 'nodeManage' }),
  admin('/clusterManage', 'routes.clusterManage', null, { page: 'clusterManage' }),
  admin('/cloudStorageManage', 'routes.cloudStorageManage', null, { page: 'cloudStorageManage' }),
  admin('/ipWhiteList', 'routes.ipWhiteList', null, { page: 'ipWhiteList' }),
  admin('/accessManage', 'routes.accessManage', null, { page: 'ipWhiteList' }),
  admin('/otherConfig', 'routes.otherConfig', null, { page: 'otherConfig' }),
  admin('/integrationPlatform', 'routes.integrationPlatform', null, { page: 'integrationPlatform' }),
  admin('/logManage', 'routes.logManage', null, { page: 'logManage' }),
  admin('/fileManagement', 'routes.fileManagement', { operation: 'pageFilesForManager', load: (_k, signal) => import('../api/gen/files/files.ts').then(({ pageFilesForManager }) => pageFilesForManager(PAGE, { signal, quiet: true })) }, { page: 'fileManagement' }),
  admin('/patchManagement', 'routes.patchManagement', null, { page: 'patchManagement' }),
  admin('/dlpManage', 'routes.dlpManage', null, { page: 'dlpManage', icon: 'safety' }),
  admin('/dataStatisticsManagement', 'routes.dataStatisticsManagement', null, { page: 'dataStatistics' }),
  admin('/personalTable', 'routes.personalTable', null, { page: 'personalTable', icon: 'table' }),
];

/** Paths that lead to /personalFile (spec 2); any unknown path does too. /home is the Home screen, see README. */
export const REDIRECTS: Readonly<Record<string, string>> = {
  '/': '/personalFile',
  '/index': '/personalFile',
  '/index.html': '/personalFile',
  '/hcs/controller/login/require': '/login',
};
export const FALLBACK_PATH = '/personalFile';

export const NETDISK_MENU: readonly RouteDef[] = ROUTES.filter((r) => r.netDiskMenu != null).sort(
  (a, b) => (a.netDiskMenu ?? 0) - (b.netDiskMenu ?? 0),
);

/** Whether the signed-in user may open the route (the server decides every call; this keeps screens honest). */
export function mayEnter(def: Pick<RouteDef, 'access'>, user: Pick<UserInfo, 'isAdmin' | 'managedDeptIds'> | null): boolean {
  if (def.access === 'public') return true;
  if (!user) return false;
  if (def.access === 'user' || user.isAdmin) return true;
  return def.access === 'manager' && (user.managedDeptIds?.length ?? 0) > 0;
}

export function findRoute(pathname: string): RouteDef | undefined {
  const p = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  return ROUTES.find((r) => r.path === p || (r.path.includes('/:') && p.startsWith(r.path.slice(0, r.path.indexOf('/:') + 1))));
}
