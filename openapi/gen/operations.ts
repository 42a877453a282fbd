/* eslint-disable */
// GENERATED FILE - DO NOT EDIT. Source: openapi/src (run `npm run gen`).
/** The authority catalogue (x-hcs-permissions): what a caller may need on the instances a request names. */
export const PERMISSIONS = ['view', 'preview', 'download', 'upload', 'create', 'edit', 'delete', 'version', 'share', 'shareExternal', 'manage'] as const;
export type Permission = (typeof PERMISSIONS)[number];
export interface AccessNeed {
  readonly permission: Permission;
  /** Where the instance ids are: query.X, path.X or body.X (each item's X for a list body). */
  readonly ids: readonly string[];
  /** Batch calls: a refused instance fails as its own item (failed[]) instead of refusing the request. */
  readonly each: boolean;
}
/**
 * The department-manager mark: administrators, or a manager of the department each named value is (dept) or of the
 * department of each named account (user), or of a department above it. An absent dept value is the root department.
 */
export interface ManagesNeed {
  readonly manages: 'dept' | 'user';
  readonly ids: readonly string[];
  /** Batch calls: an account or department outside the caller's subtree fails as its own item. */
  readonly each: boolean;
}
export type Access = 'public' | 'signed-in' | 'admin' | readonly (AccessNeed | ManagesNeed)[];

export interface OperationInfo {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  readonly path: string;
  readonly tag: string;
  /** security: [] in the contract: callable without a session. */
  readonly public: boolean;
  /** Requires the X-Requested-With header. */
  readonly csrf: boolean;
  /** Answers a raw body (stream, file) instead of the envelope. */
  readonly raw: boolean;
  /** Changes state (every non-GET, and the GETs the spec uses for changes: x-hcs-mutating). */
  readonly mutating: boolean;
  /** What the caller needs (x-hcs-access), enforced by the server's route layer. */
  readonly access: Access;
}

export const operations = {
  addFavourite: { method: 'POST', path: '/hcs/controller/collectionFile', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"view","ids":["body.ids"],"each":true}] },
  addOrUpdateGroupInstance: { method: 'POST', path: '/hcs/controller/addOrUpdateGroupInstance', tag: 'groups', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  addSecondGroupUser: { method: 'POST', path: '/hcs/controller/groupUser/addSecondGroupUser', tag: 'groups', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  addTemplate: { method: 'POST', path: '/hcs/controller/fileTemplate', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"view","ids":["body.instanceId"],"each":false}] },
  addUserForLarge: { method: 'POST', path: '/hcs/controller/groupFile/addUserForLarge', tag: 'groups', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  bulkUpload: { method: 'POST', path: '/hcs/controller/API/bulk-upload', tag: 'upload', public: false, csrf: true, raw: true, mutating: true, access: 'signed-in' },
  changePassword: { method: 'POST', path: '/hcs/controller/Users/userPassword', tag: 'session', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  checkFileExist: { method: 'GET', path: '/hcs/controller/API/check-file-exist', tag: 'upload', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"view","ids":["query.parentId"],"each":false}] },
  checkSpecialGatewayMapping: { method: 'POST', path: '/hcs/services/API/1.0/checkSpecialGatewayMapping', tag: 'session', public: true, csrf: true, raw: false, mutating: true, access: 'public' },
  copyInstances: { method: 'GET', path: '/hcs/controller/copyInstance', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"download","ids":["query.ids"],"each":true},{"permission":"create","ids":["query.targetInstanceId"],"each":false}] },
  countSubDepts: { method: 'GET', path: '/hcs/controller/sysGroup/getSubDeptNum', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  createFileSharing: { method: 'POST', path: '/hcs/controller/fileSharing', tag: 'shares', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"share","ids":["body.instanceId"],"each":false}] },
  createInstances: { method: 'POST', path: '/hcs/controller/Instances', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"create","ids":["body.parentId"],"each":false}] },
  createLabel: { method: 'POST', path: '/hcs/controller/labels', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  createOfficeFile: { method: 'POST', path: '/hcs/controller/officeFile', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"create","ids":["body.parentId"],"each":false}] },
  delGroupRoleUser: { method: 'POST', path: '/hcs/controller/SysRoleUser/delGroupRoleUser', tag: 'roles', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"manage","ids":["body.instanceId"],"each":false}] },
  deleteDept: { method: 'POST', path: '/hcs/controller/sysGroup/delGroupInfo', tag: 'org', public: false, csrf: true, raw: false, mutating: true, access: [{"manages":"dept","ids":["body.id"],"each":false},{"manages":"dept","ids":["body.moveMembersTo"],"each":false}] },
  deleteFavourite: { method: 'GET', path: '/hcs/controller/delCollectionFile', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  deleteFileSharing: { method: 'GET', path: '/hcs/controller/delFileSharing', tag: 'shares', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  deleteGroupUser: { method: 'POST', path: '/hcs/controller/groupUser/deleteGroupUser', tag: 'groups', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  deleteInstances: { method: 'GET', path: '/hcs/controller/delete', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"delete","ids":["query.ids"],"each":true}] },
  deleteLabel: { method: 'POST', path: '/hcs/controller/labels/{id}/delete', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  deletePartInfo: { method: 'POST', path: '/hcs/controller/API/deletePartInfo', tag: 'upload', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  deleteRoleInfo: { method: 'POST', path: '/hcs/controller/SysRole/deleteRoleInfo', tag: 'roles', public: false, csrf: true, raw: false, mutating: true, access: 'admin' },
  deleteSecRecycle: { method: 'GET', path: '/hcs/controller/deleteSecRecycle', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: 'admin' },
  deleteSecondAuth: { method: 'POST', path: '/hcs/controller/groupUser/deleteSecondAuth', tag: 'groups', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  deleteTemplate: { method: 'POST', path: '/hcs/controller/fileTemplate/{id}/delete', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: 'admin' },
  deleteUsers: { method: 'POST', path: '/hcs/controller/Users/delUserInfo', tag: 'org', public: false, csrf: true, raw: false, mutating: true, access: [{"manages":"user","ids":["body.userIds"],"each":true}] },
  destroyPartInfo: { method: 'POST', path: '/hcs/controller/API/destroyPartInfo', tag: 'upload', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  dissolveGroup: { method: 'POST', path: '/hcs/controller/groupFile/dissolveGroup', tag: 'groups', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  downloadAgentPackage: { method: 'GET', path: '/hcs/services/API/agent/hcs-drive.mjs', tag: 'agent', public: true, csrf: false, raw: true, mutating: false, access: 'public' },
  downloadZip: { method: 'GET', path: '/hcs/services/API/zip/{ticket}', tag: 'download', public: true, csrf: false, raw: true, mutating: false, access: 'public' },
  emptyRecycle: { method: 'POST', path: '/hcs/controller/emptyRecycle', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  emptySecRecycle: { method: 'POST', path: '/hcs/controller/emptySecRecycle', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: 'admin' },
  explainAccess: { method: 'GET', path: '/hcs/controller/SysRoleUser/explainAccess', tag: 'roles', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"view","ids":["query.instanceId"],"each":false}] },
  fileSharePreview: { method: 'GET', path: '/hcs/controller/FileShare/preview', tag: 'download', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"preview","ids":["query.instanceId"],"each":false}] },
  fileSharingRoleList: { method: 'GET', path: '/hcs/controller/SysRole/fileSharingRoleList', tag: 'roles', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getAgentInstallPage: { method: 'GET', path: '/hcs/services/API/agent/install', tag: 'agent', public: true, csrf: false, raw: true, mutating: false, access: 'public' },
  getAllAuth: { method: 'GET', path: '/hcs/controller/SysAuth/getAllAuth', tag: 'roles', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getAllRoleInfo: { method: 'GET', path: '/hcs/controller/SysRole/getAllRoleInfo', tag: 'roles', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getBusinessMenu: { method: 'GET', path: '/hcs/controller/BusinessLibs/businessMenu', tag: 'libraries', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getCaptcha: { method: 'GET', path: '/hcs/services/System/captcha', tag: 'session', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  getCdnDownload: { method: 'GET', path: '/hcs/controller/API/getCDNDownload', tag: 'download', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"download","ids":["query.instanceId"],"each":false}] },
  getCloudProvider: { method: 'GET', path: '/hcs/controller/API/getCloudProvider', tag: 'download', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getCurrentUser: { method: 'GET', path: '/hcs/controller/System/Current/User', tag: 'session', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getCurrentUserAlias: { method: 'GET', path: '/hcs/controller/System/CurrentUser', tag: 'session', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getDeptInfo: { method: 'GET', path: '/hcs/controller/sysGroup/getGroupInfo', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: [{"manages":"dept","ids":["query.id"],"each":false}] },
  getDeptTree: { method: 'GET', path: '/hcs/controller/sysGroup/treeGroup', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getDeptTreeLevel: { method: 'GET', path: '/hcs/controller/sysGroup/treeData', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getDeptUserTree: { method: 'GET', path: '/hcs/controller/Users/treeGroupAndUser', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getDownloadFileInfo: { method: 'GET', path: '/hcs/controller/API/getDownloadFileInfo', tag: 'download', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"download","ids":["query.instanceId"],"each":false}] },
  getFileInfoById: { method: 'GET', path: '/hcs/controller/API/GetFileInfoById/{id}', tag: 'download', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"view","ids":["path.id"],"each":false}] },
  getFileSharing: { method: 'GET', path: '/hcs/controller/getFileSharing', tag: 'shares', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getFileUploadable: { method: 'GET', path: '/hcs/controller/API/file-uploadable', tag: 'upload', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"upload","ids":["query.parentId"],"each":false}] },
  getFolderInfo: { method: 'GET', path: '/hcs/controller/getFolderInfo', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"download","ids":["query.instanceId"],"each":false}] },
  getGroupCapInfo: { method: 'GET', path: '/hcs/controller/groupCapacity/groupCapInfo/{deptId}/{libCode}', tag: 'capacity', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getGroupCapInfoById: { method: 'GET', path: '/hcs/controller/groupCapacity/getGroupCapInfo', tag: 'capacity', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getHandoverInfo: { method: 'GET', path: '/hcs/controller/groupFile/getHandoverInfo', tag: 'groups', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getHistoryVersion: { method: 'GET', path: '/hcs/controller/getHistoryVersion', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"version","ids":["query.instanceId"],"each":false}] },
  getInstance: { method: 'GET', path: '/hcs/controller/Instances/{id}', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"view","ids":["path.id"],"each":false}] },
  getLibCode: { method: 'GET', path: '/hcs/controller/API/getLibCode', tag: 'upload', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getLocale: { method: 'GET', path: '/hcs/services/System/locale', tag: 'session', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  getOneSyncState: { method: 'GET', path: '/hcs/controller/System/getOneSyncState', tag: 'session', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getParentAuth: { method: 'GET', path: '/hcs/controller/getParentAuth', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"view","ids":["query.instanceId"],"each":false}] },
  getPartInfo: { method: 'GET', path: '/hcs/controller/API/getPartInfo', tag: 'upload', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getPlatformInfo: { method: 'GET', path: '/hcs/services/System/platformInfo', tag: 'session', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  getPreview: { method: 'GET', path: '/hcs/controller/API/1.0/preview', tag: 'download', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"preview","ids":["query.instanceId"],"each":false}] },
  getRecycleFileInfo: { method: 'GET', path: '/hcs/controller/API/getRecycleFileInfo', tag: 'download', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"delete","ids":["query.instanceId"],"each":false}] },
  getRequestIp: { method: 'GET', path: '/hcs/services/System/requestIp', tag: 'session', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  getS3DownloadUrl: { method: 'GET', path: '/hcs/controller/API/getS3DownloadUrl', tag: 'download', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"download","ids":["query.instanceId"],"each":false}] },
  getSecondGroupUser: { method: 'GET', path: '/hcs/controller/groupUser/getSecondGroupUser', tag: 'groups', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getSkin: { method: 'GET', path: '/drive/static/skin/{skin}/skin.css', tag: 'static', public: true, csrf: false, raw: true, mutating: false, access: 'public' },
  getSsoAccess: { method: 'GET', path: '/hcs/controller/System/sso/access', tag: 'session', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getSsoToken: { method: 'GET', path: '/hcs/controller/System/sso/Token', tag: 'session', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getSsoUserInfo: { method: 'GET', path: '/hcs/controller/System/sso/userInfo', tag: 'session', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getSubDepartment: { method: 'GET', path: '/hcs/controller/groupUser/getSubDepartment', tag: 'groups', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getSystemLanguage: { method: 'GET', path: '/hcs/services/sysConfig/language', tag: 'session', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  getSystemWarnings: { method: 'GET', path: '/hcs/controller/System/warnings', tag: 'session', public: false, csrf: true, raw: false, mutating: false, access: 'admin' },
  getThumbnail: { method: 'GET', path: '/hcs/controller/API/1.0/thumbnail', tag: 'download', public: false, csrf: false, raw: true, mutating: false, access: [{"permission":"preview","ids":["query.instanceId"],"each":false}] },
  getToolName: { method: 'GET', path: '/hcs/services/API/getToolName', tag: 'session', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  getTranslations: { method: 'GET', path: '/drive/static/i18n/{lang}/translate.json', tag: 'static', public: true, csrf: false, raw: true, mutating: false, access: 'public' },
  getTreeFolder: { method: 'POST', path: '/hcs/controller/getTreeFolder', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  getTreeFolderData: { method: 'GET', path: '/hcs/controller/tree/folderData', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"view","ids":["query.id"],"each":false}] },
  getUserAgreement: { method: 'GET', path: '/hcs/controller/System/userAgreement', tag: 'session', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  getUserCapInfo: { method: 'GET', path: '/hcs/controller/userCapacity/userCapInfo/{userId}/{libCode}', tag: 'capacity', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getUserCount: { method: 'GET', path: '/hcs/controller/groupUser/getUserCount', tag: 'groups', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getUserInfo: { method: 'GET', path: '/hcs/controller/Users/userInfo', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: [{"manages":"user","ids":["query.userId"],"each":false}] },
  getUserLabels: { method: 'GET', path: '/hcs/controller/Users/userLabels', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: [{"manages":"user","ids":["query.userId"],"each":false}] },
  getUserTreeLevel: { method: 'GET', path: '/hcs/controller/Users/treeData', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  getZipDownloadUrl: { method: 'GET', path: '/hcs/controller/API/getZipDownloadUrl', tag: 'download', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"download","ids":["query.ids"],"each":false}] },
  groupSync: { method: 'POST', path: '/hcs/controller/System/groupSync', tag: 'libraries', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  importUsers: { method: 'POST', path: '/hcs/controller/Users/importUsers', tag: 'org', public: false, csrf: true, raw: false, mutating: true, access: [{"manages":"dept","ids":["query.deptId"],"each":false}] },
  initPartInfo: { method: 'POST', path: '/hcs/controller/API/initPartInfo', tag: 'upload', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  issueAgentPairingToken: { method: 'POST', path: '/hcs/controller/API/agent/pairing-token', tag: 'agent', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  judgeGroupSize: { method: 'POST', path: '/hcs/controller/groupCapacity/judgeGroupSize', tag: 'capacity', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  judgeUserSize: { method: 'POST', path: '/hcs/controller/userCapacity/judgeUserSize', tag: 'capacity', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  listBusinessLibs: { method: 'GET', path: '/hcs/controller/BusinessLibs', tag: 'libraries', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  listChildDepts: { method: 'GET', path: '/hcs/controller/sysGroup/getAllSubList', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  listDeletedUsers: { method: 'GET', path: '/hcs/controller/Users/deletedUsers', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: [{"manages":"dept","ids":["query.deptId"],"each":false}] },
  listDeptMembers: { method: 'GET', path: '/hcs/controller/sysGroup/groupRoleUserList', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: [{"manages":"dept","ids":["query.id"],"each":false}] },
  listDeptUsers: { method: 'GET', path: '/hcs/controller/Users/listByGroupId', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: [{"manages":"dept","ids":["query.deptId"],"each":false}] },
  listFileSharingUsers: { method: 'GET', path: '/hcs/controller/fileSharingUser', tag: 'shares', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  listInstances: { method: 'GET', path: '/hcs/controller/Page', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"view","ids":["query.parentId"],"each":false}] },
  listLabels: { method: 'GET', path: '/hcs/controller/labels', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  listMenus: { method: 'GET', path: '/hcs/controller/BusinessLibs/Menus', tag: 'libraries', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  listReachableDepts: { method: 'GET', path: '/hcs/controller/sysGroup/getNPDept', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  listSubtreeDepts: { method: 'GET', path: '/hcs/controller/sysGroup/getAllSubDept', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  listSysConfigMenus: { method: 'GET', path: '/hcs/controller/BusinessLibs/Menus/sysConfig', tag: 'libraries', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  listTemplates: { method: 'GET', path: '/hcs/controller/fileTemplate', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  login: { method: 'GET', path: '/hcs/services/System/Token', tag: 'session', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  logout: { method: 'GET', path: '/hcs/controller/System/sso/logout', tag: 'session', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  modGroupRoleUser: { method: 'POST', path: '/hcs/controller/SysRoleUser/modGroupRoleUser', tag: 'roles', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"manage","ids":["body.instanceId"],"each":false}] },
  modGroupUser: { method: 'POST', path: '/hcs/controller/groupUser/modGroupUser', tag: 'groups', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  modifyFileSharing: { method: 'POST', path: '/hcs/controller/modFileSharing', tag: 'shares', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  modifyInstance: { method: 'POST', path: '/hcs/controller/Instances/{id}', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"edit","ids":["path.id"],"each":false}] },
  modifyLabel: { method: 'POST', path: '/hcs/controller/labels/{id}', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  moveInstances: { method: 'GET', path: '/hcs/controller/moveInstance', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"edit","ids":["query.ids"],"each":true},{"permission":"create","ids":["query.targetInstanceId"],"each":false}] },
  moveSecRecycle: { method: 'POST', path: '/hcs/controller/moveSecRecycle', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: 'admin' },
  moveUsers: { method: 'POST', path: '/hcs/controller/Users/moveUsers', tag: 'org', public: false, csrf: true, raw: false, mutating: true, access: [{"manages":"user","ids":["body.userIds"],"each":true},{"manages":"dept","ids":["body.deptId"],"each":false}] },
  newGroup: { method: 'POST', path: '/hcs/controller/groupFile/newGroup', tag: 'groups', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  oneDiskSync: { method: 'POST', path: '/hcs/controller/System/oneDiskSync', tag: 'libraries', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  pageFavourites: { method: 'GET', path: '/hcs/controller/pageCollectionFile', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  pageFileSharing: { method: 'GET', path: '/hcs/controller/pageFileSharing', tag: 'shares', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  pageFileSharingList: { method: 'GET', path: '/hcs/controller/pageFileSharingList', tag: 'shares', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  pageFilesForManager: { method: 'GET', path: '/hcs/controller/FileInfos/PageForMgr', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: 'admin' },
  pageGroupFile: { method: 'GET', path: '/hcs/controller/groupFile/pageGroupFile', tag: 'groups', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  pageGroupRoleGroupList: { method: 'GET', path: '/hcs/controller/SysRoleUser/pageGroupRoleGroupList', tag: 'roles', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"manage","ids":["query.instanceId"],"each":false}] },
  pageGroupRoleList: { method: 'GET', path: '/hcs/controller/SysRoleUser/pageGroupRoleList', tag: 'roles', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"manage","ids":["query.instanceId"],"each":false}] },
  pageRecycle: { method: 'GET', path: '/hcs/controller/pageRecycle', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  pageRoleInfo: { method: 'GET', path: '/hcs/controller/SysRole/pageRoleInfo', tag: 'roles', public: false, csrf: true, raw: false, mutating: false, access: 'admin' },
  pageSecRecycle: { method: 'GET', path: '/hcs/controller/pageSecRecycle', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: 'admin' },
  pairAgent: { method: 'POST', path: '/hcs/services/API/agent/pair', tag: 'agent', public: true, csrf: true, raw: false, mutating: true, access: 'public' },
  pickDeptUsers: { method: 'GET', path: '/hcs/controller/Users/group/users', tag: 'org', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  precessGroupHandover: { method: 'POST', path: '/hcs/controller/groupFile/precessGroupHandover', tag: 'groups', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  previewVideo: { method: 'GET', path: '/hcs/controller/FileInfos/preview/video', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"preview","ids":["query.instanceId"],"each":false}] },
  purgeUser: { method: 'POST', path: '/hcs/controller/Users/realDeleteUser', tag: 'org', public: false, csrf: true, raw: false, mutating: true, access: 'admin' },
  quitGroup: { method: 'POST', path: '/hcs/controller/groupUser/quitGroup', tag: 'groups', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  recycleFilesForManager: { method: 'POST', path: '/hcs/controller/FileInfos/recycleForMgr', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: 'admin' },
  recycleStorageFile: { method: 'POST', path: '/hcs/controller/API/recycle-storage-file', tag: 'upload', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  removeRecycled: { method: 'GET', path: '/hcs/controller/remove/delete', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"delete","ids":["query.ids"],"each":true}] },
  resetUserPassword: { method: 'POST', path: '/hcs/controller/Users/resetPassword', tag: 'org', public: false, csrf: true, raw: false, mutating: true, access: [{"manages":"user","ids":["body.userId"],"each":false}] },
  restoreFilesForManager: { method: 'POST', path: '/hcs/controller/FileInfos/restoreForMgr', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: 'admin' },
  restoreInstances: { method: 'GET', path: '/hcs/controller/restore', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"delete","ids":["query.ids"],"each":true}] },
  restoreSecRecycle: { method: 'GET', path: '/hcs/controller/restoreSecRecycle', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: 'admin' },
  restoreUsers: { method: 'POST', path: '/hcs/controller/Users/restoreDelUser', tag: 'org', public: false, csrf: true, raw: false, mutating: true, access: [{"manages":"user","ids":["body.userIds"],"each":true}] },
  roleInfo: { method: 'POST', path: '/hcs/controller/SysRole/roleInfo', tag: 'roles', public: false, csrf: true, raw: false, mutating: true, access: 'admin' },
  rollbackFile: { method: 'POST', path: '/hcs/controller/rollbackFile', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"version","ids":["body.instanceId"],"each":false}] },
  saveDept: { method: 'POST', path: '/hcs/controller/sysGroup/setGroupInfo', tag: 'org', public: false, csrf: true, raw: false, mutating: true, access: [{"manages":"dept","ids":["body.id"],"each":false},{"manages":"dept","ids":["body.parentId"],"each":false}] },
  saveInstance: { method: 'POST', path: '/hcs/controller/API/save-instance', tag: 'upload', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"upload","ids":["body.parentId"],"each":false}] },
  saveInstanceLabel: { method: 'POST', path: '/hcs/controller/saveInstanceLabel', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"view","ids":["body.instanceId"],"each":false}] },
  saveInstanceRemark: { method: 'POST', path: '/hcs/controller/saveInstanceRemark', tag: 'files', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"edit","ids":["body.instanceId"],"each":false}] },
  saveUser: { method: 'POST', path: '/hcs/controller/Users/setUserInfo', tag: 'org', public: false, csrf: true, raw: false, mutating: true, access: [{"manages":"user","ids":["body.userId"],"each":false},{"manages":"dept","ids":["body.deptId"],"each":false}] },
  searchAll: { method: 'GET', path: '/hcs/controller/groupUser/searchAll', tag: 'groups', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  searchGroup: { method: 'GET', path: '/hcs/controller/groupFile/searchGroup', tag: 'groups', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  searchGroupPage: { method: 'GET', path: '/hcs/controller/es/searchGroupPage', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  searchGroupUser: { method: 'GET', path: '/hcs/controller/groupUser/searchGroupUser', tag: 'groups', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  searchPage: { method: 'GET', path: '/hcs/controller/es/searchPage', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: [{"permission":"view","ids":["query.parentId"],"each":false}] },
  searchUserPage: { method: 'GET', path: '/hcs/controller/es/searchUserPage', tag: 'files', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  secondTransfer: { method: 'POST', path: '/hcs/controller/API/second-transfer', tag: 'upload', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"upload","ids":["body.parentId"],"each":false}] },
  setGroupAuth: { method: 'POST', path: '/hcs/controller/SysRoleUser/setGroupAuth', tag: 'roles', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"manage","ids":["body.instanceId"],"each":false}] },
  setGroupRoleGroup: { method: 'POST', path: '/hcs/controller/SysRoleUser/setGroupRoleGroup', tag: 'roles', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"manage","ids":["body.instanceId"],"each":false}] },
  setGroupRoleUser: { method: 'POST', path: '/hcs/controller/SysRoleUser/setGroupRoleUser', tag: 'roles', public: false, csrf: true, raw: false, mutating: true, access: [{"permission":"manage","ids":["body.instanceId"],"each":false}] },
  setLanguage: { method: 'POST', path: '/hcs/controller/setlanguage', tag: 'session', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  setPartInfo: { method: 'POST', path: '/hcs/controller/API/setPartInfo', tag: 'upload', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  setUserLabels: { method: 'POST', path: '/hcs/controller/Users/userLabels', tag: 'org', public: false, csrf: true, raw: false, mutating: true, access: [{"manages":"user","ids":["body.userId"],"each":false}] },
  setUsersEnabled: { method: 'POST', path: '/hcs/controller/Users/setUserState', tag: 'org', public: false, csrf: true, raw: false, mutating: true, access: [{"manages":"user","ids":["body.userIds"],"each":true}] },
  setUsersQuota: { method: 'POST', path: '/hcs/controller/Users/setUserQuota', tag: 'org', public: false, csrf: true, raw: false, mutating: true, access: [{"manages":"user","ids":["body.userIds"],"each":true}] },
  shareCheckFileExist: { method: 'GET', path: '/hcs/services/API/check-file-exist', tag: 'upload', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  shareDestroyPartInfo: { method: 'POST', path: '/hcs/services/API/destroyPartInfo', tag: 'upload', public: true, csrf: true, raw: false, mutating: true, access: 'public' },
  shareDownload: { method: 'GET', path: '/hcs/services/ShareAPI/shareDownload', tag: 'download', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  shareGetCdnDownload: { method: 'GET', path: '/hcs/services/ShareAPI/getCDNDownload', tag: 'download', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  shareGetCloudProvider: { method: 'GET', path: '/hcs/services/ShareAPI/getCloudProvider', tag: 'download', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  shareGetDownloadFileInfo: { method: 'GET', path: '/hcs/services/ShareAPI/getDownloadFileInfo', tag: 'download', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  shareGetFileInfoById: { method: 'GET', path: '/hcs/services/ShareAPI/GetFileInfoById/{id}', tag: 'download', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  shareGetFileUploadable: { method: 'GET', path: '/hcs/services/API/file-uploadable', tag: 'upload', public: true, csrf: true, raw: false, mutating: true, access: 'public' },
  shareGetPartInfo: { method: 'GET', path: '/hcs/services/API/getPartInfo', tag: 'upload', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  shareGetUploadToken: { method: 'GET', path: '/hcs/services/API/System/Token', tag: 'upload', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  shareInitPartInfo: { method: 'POST', path: '/hcs/services/API/initPartInfo', tag: 'upload', public: true, csrf: true, raw: false, mutating: true, access: 'public' },
  sharePreview: { method: 'GET', path: '/hcs/services/ShareAPI/preview', tag: 'download', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  shareSaveInstance: { method: 'POST', path: '/hcs/services/API/save-instance', tag: 'upload', public: true, csrf: true, raw: false, mutating: true, access: 'public' },
  shareSecondTransfer: { method: 'POST', path: '/hcs/services/API/second-transfer', tag: 'upload', public: true, csrf: true, raw: false, mutating: true, access: 'public' },
  shareSetPartInfo: { method: 'POST', path: '/hcs/services/API/setPartInfo', tag: 'upload', public: true, csrf: true, raw: false, mutating: true, access: 'public' },
  shareSignDownloadRequest: { method: 'GET', path: '/hcs/services/ShareAPI/StringToSign', tag: 'download', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  shareSignStorageRequest: { method: 'GET', path: '/hcs/services/API/S3Cloud/StringToSign', tag: 'upload', public: true, csrf: true, raw: false, mutating: false, access: 'public' },
  signStorageRequest: { method: 'GET', path: '/hcs/controller/API/S3Cloud/StringToSign', tag: 'upload', public: false, csrf: true, raw: false, mutating: false, access: 'signed-in' },
  streamPreview: { method: 'GET', path: '/hcs/services/API/preview/{ticket}', tag: 'download', public: true, csrf: false, raw: true, mutating: false, access: 'public' },
  streamVideo: { method: 'GET', path: '/hcs/services/API/preview/video/{ticket}', tag: 'files', public: true, csrf: false, raw: true, mutating: false, access: 'public' },
  submitGroupHandover: { method: 'POST', path: '/hcs/controller/groupFile/submitGroupHandover', tag: 'groups', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  updateGroup: { method: 'POST', path: '/hcs/controller/groupFile/updateGroup', tag: 'groups', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
  updateGroupUserInfo: { method: 'POST', path: '/hcs/controller/groupUser/updateGroupUserInfo', tag: 'groups', public: false, csrf: true, raw: false, mutating: true, access: 'signed-in' },
} as const satisfies Record<string, OperationInfo>;

export type OperationId = keyof typeof operations;

/** Every error code a failure envelope may carry (ErrorData.code), with the HTTP status the server answers it with. */
export const errorStatus = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  CSRF_HEADER_MISSING: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  NAME_INVALID: 422,
  NAME_EXISTS: 409,
  VALIDATION_FAILED: 422,
  PAYLOAD_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  RATE_LIMITED: 429,
  NOT_IMPLEMENTED: 501,
  METHOD_NOT_ALLOWED: 405,
  ACCOUNT_FROZEN: 403,
  ACCOUNT_EXPIRED: 403,
  LOGIN_FAILED: 401,
  CAPTCHA_REQUIRED: 401,
  CAPTCHA_INVALID: 401,
  PASSWORD_POLICY: 422,
  PASSWORD_WRONG: 403,
  SPACE_NOT_ENOUGH: 409,
  HASH_MISMATCH: 409,
  PROOF_REJECTED: 403,
  UPLOAD_SESSION_MISSING: 404,
  TOO_MANY_UPLOADS: 409,
  ROLE_BUILTIN: 409,
  ROLE_IN_USE: 409,
  ROLE_EXISTS: 409,
  GRANT_EXISTS: 409,
  STORAGE_ERROR: 502,
  INTERNAL: 500,
  DEPT_NOT_EMPTY: 409,
  PASSWORD_CHANGE_REQUIRED: 403,
  THUMBNAIL_UNAVAILABLE: 422,
  GROUP_LAST_ADMIN: 409,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export const ERROR_CODES = Object.keys(errorStatus) as readonly ErrorCode[];

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(errorStatus, code);
}
