// Coherent answers for the calls the shell depends on, shared by dev:mock and the component tests.
import { http, HttpResponse, type RequestHandler } from 'msw';
import type { BusinessLib, CapacityInfo, CurrentUser, MenuItem } from '../api/gen/model/index.ts';

export const mockUser: CurrentUser = {
  userId: 'u-1',
  userName: 'alice',
  userRealName: 'Alice',
  userDeptId: 'd-1',
  userIsEnabled: 1,
  userExpiredTime: 1,
  platformId: 'NetDisk',
  isAdmin: true,
};

export const mockLibs: BusinessLib[] = [
  { libId: '1', libCode: 'NetDisk', libName: '网盘', libNameEn: 'NetDisk', webIcon: 'database' },
  { libId: '2', libCode: 'SysConfig', libName: '系统配置', libNameEn: 'System configuration', webIcon: 'setting' },
];

export const mockSysMenu: MenuItem[] = [
  { menuId: 'm1', menuCode: 'org', menuName: 'Organisation', menuStr: '组织管理', menuUrl: '', menuParentId: '0', menuIndex: 1, menuShow: 1, menuIcon: 'apartment', libCode: 'SysConfig' },
  { menuId: 'm2', menuCode: 'dept', menuName: 'Departments', menuStr: '部门管理', menuUrl: '/departmentManage', menuParentId: 'm1', menuIndex: 1, menuShow: 1, menuIcon: 'apartment', libCode: 'SysConfig' },
  { menuId: 'm3', menuCode: 'role', menuName: 'Roles', menuStr: '角色管理', menuUrl: '/roleManage', menuParentId: 'm1', menuIndex: 2, menuShow: 1, menuIcon: 'team', libCode: 'SysConfig' },
  { menuId: 'm4', menuCode: 'log', menuName: 'Operation logs', menuStr: '操作日志', menuUrl: '/logManage', menuParentId: '0', menuIndex: 2, menuShow: 1, menuIcon: 'log', libCode: 'SysConfig' },
];

export const mockCapacity: CapacityInfo = { isLimist: '1', totalSize: '10GB', usedSize: '2GB', totalBytes: 10 * 1024 ** 3, usedBytes: 2 * 1024 ** 3 };

const ok = (data: unknown) => HttpResponse.json({ ret: 0, msg: 'success', data });

/** A throwaway RSA key for the mock sign-in (the mock never decrypts; the real server does). */
async function mockPublicKeyPem(): Promise<string> {
  const pair = await crypto.subtle.generateKey(
    { name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['encrypt', 'decrypt'],
  );
  const der = new Uint8Array(await crypto.subtle.exportKey('spki', pair.publicKey));
  const b64 = btoa(String.fromCharCode(...der));
  return `-----BEGIN PUBLIC KEY-----\n${b64.match(/.{1,64}/g)?.join('\n')}\n-----END PUBLIC KEY-----\n`;
}

export async function mockFixtures(): Promise<RequestHandler[]> {
  const publicKey = await mockPublicKeyPem();
  return [
    http.get('*/hcs/controller/System/Current/User', () => ok(mockUser)),
    http.get('*/hcs/services/System/platformInfo', () =>
      ok({ platformId: 'NetDisk', publicKey, passwordEncryption: 'RSA-OAEP-256', loginMethod: 'local', defaultLanguage: 'zh_CN', skin: 'redblack', version: 'mock' }),
    ),
    http.get('*/hcs/services/System/Token', () => ok({ token: 'mock', expiresAt: Date.now() + 3600_000, user: mockUser })),
    http.get('*/hcs/services/sysConfig/language', () => ok('zh_CN')),
    http.get('*/hcs/controller/BusinessLibs', () => ok(mockLibs)),
    http.get('*/hcs/controller/BusinessLibs/Menus/sysConfig', () => ok(mockSysMenu)),
    http.get('*/hcs/controller/userCapacity/userCapInfo/:userId/:libCode', () => ok(mockCapacity)),
    http.get('*/hcs/controller/groupCapacity/groupCapInfo/:deptId/:libCode', () =>
      ok({ isLimist: '0', totalSize: '', usedSize: '5GB', totalBytes: null, usedBytes: 5 * 1024 ** 3 }),
    ),
    http.get('*/hcs/services/API/getToolName', () => ok(null)),
  ];
}
