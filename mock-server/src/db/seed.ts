// First-start setup, safe to run on every start: the administrator, the default business libraries, the
// administration menu and system defaults. Existing rows are never overwritten, so an operator's changes stay.
import { writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from './sql/tx.ts';
import { AppError } from '../http/errors.ts';
import { createUser, getUserByName } from './users-repo.ts';
import { ensureBusinessLib, ensureMenu, ensureSysConfig, type Menu } from './libraries-repo.ts';
import { generatePassword, passwordStrength, PASSWORD_MIN_STRENGTH } from '../auth/passwords.ts';

export const NETDISK = 'NetDisk';
export const SYSCONFIG = 'SysConfig';
export const ADMIN_PASSWORD_FILE = 'admin-password.txt';

/** sys_config keys this module owns. */
export const CONFIG_KEYS = {
  language: 'language',
  /** JSON array of { ip: "10.1.2.3" | "10.0.0.0/8", host: "https://gw.example.com" }. */
  gatewayMappings: 'specialGatewayMapping',
} as const;

type MenuSeed = Pick<Menu, 'menuCode' | 'menuName' | 'menuStr' | 'menuUrl' | 'menuIcon'> & { children?: MenuSeed[] };

/** The administration menu (spec section 2 routes), grouped one level deep where entries belong together. */
const SYSCONFIG_MENU: MenuSeed[] = [
  {
    menuCode: 'organization',
    menuName: 'Organization',
    menuStr: '组织管理',
    menuUrl: '',
    menuIcon: 'team',
    children: [
      { menuCode: 'roleManage', menuName: 'Role Management', menuStr: '角色管理', menuUrl: '/roleManage', menuIcon: 'safety' },
      { menuCode: 'departmentManage', menuName: 'Department Management', menuStr: '部门管理', menuUrl: '/departmentManage', menuIcon: 'apartment' },
    ],
  },
  { menuCode: 'businessManage', menuName: 'Business Libraries', menuStr: '业务库管理', menuUrl: '/businessManage', menuIcon: 'appstore' },
  {
    menuCode: 'infrastructure',
    menuName: 'Storage and Nodes',
    menuStr: '存储与节点',
    menuUrl: '',
    menuIcon: 'cloud-server',
    children: [
      { menuCode: 'cloudStorageManage', menuName: 'Cloud Storage', menuStr: '云存储管理', menuUrl: '/cloudStorageManage', menuIcon: 'cloud' },
      { menuCode: 'nodeManage', menuName: 'Nodes', menuStr: '节点管理', menuUrl: '/nodeManage', menuIcon: 'cluster' },
      { menuCode: 'clusterManage', menuName: 'Clusters', menuStr: '集群管理', menuUrl: '/clusterManage', menuIcon: 'deployment-unit' },
    ],
  },
  {
    menuCode: 'securityConfig',
    menuName: 'Access and Configuration',
    menuStr: '访问与配置',
    menuUrl: '',
    menuIcon: 'setting',
    children: [
      { menuCode: 'ipWhiteList', menuName: 'IP White List', menuStr: 'IP白名单', menuUrl: '/ipWhiteList', menuIcon: 'global' },
      { menuCode: 'otherConfig', menuName: 'System Configuration', menuStr: '系统配置', menuUrl: '/otherConfig', menuIcon: 'control' },
      { menuCode: 'integrationPlatform', menuName: 'LDAP Integration', menuStr: 'LDAP集成', menuUrl: '/integrationPlatform', menuIcon: 'api' },
    ],
  },
  { menuCode: 'logManage', menuName: 'Operation Logs', menuStr: '操作日志', menuUrl: '/logManage', menuIcon: 'file-search' },
  { menuCode: 'fileManagement', menuName: 'File Management', menuStr: '文件管理', menuUrl: '/fileManagement', menuIcon: 'folder-open' },
];

async function seedMenu(db: Db, libCode: string, entries: MenuSeed[], parentId = '0'): Promise<void> {
  for (const [i, e] of entries.entries()) {
    const id = `${libCode}.${e.menuCode}`;
    await ensureMenu(db, {
      id,
      libCode,
      menuCode: e.menuCode,
      menuName: e.menuName,
      menuStr: e.menuStr,
      menuUrl: e.menuUrl,
      parentId,
      menuIndex: (i + 1) * 10,
      menuShow: true,
      menuIcon: e.menuIcon,
    });
    if (e.children) await seedMenu(db, libCode, e.children, id);
  }
}

async function seedAdmin(ctx: AppContext): Promise<void> {
  const { config, db } = ctx;
  if (await getUserByName(db, config.admin.user)) return;
  const configured = config.admin.password;
  const password = configured ?? generatePassword();
  const weak = configured !== undefined && passwordStrength(configured, config.admin.user) < PASSWORD_MIN_STRENGTH;
  try {
    await createUser(db, {
      userName: config.admin.user,
      realName: 'Administrator',
      password,
      isAdmin: true,
      quotaBytes: null,
      // An operator-chosen password is accepted as given (they may need it to get in), but a generated or weak
      // one must be replaced at the first sign-in.
      mustChangePassword: configured === undefined || weak,
      skipPolicy: configured !== undefined,
    });
  } catch (err) {
    // Another node starting on the same database created it first: that node reports its password.
    if (err instanceof AppError && err.code === 'NAME_EXISTS') return;
    throw err;
  }
  if (weak) ctx.log.warn('HCS_ADMIN_PASSWORD does not meet the password policy; the administrator must change it at first sign-in');
  if (configured === undefined) {
    const file = join(config.dataDir, ADMIN_PASSWORD_FILE);
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, `${config.admin.user}\n${password}\n`, { mode: 0o600 });
    renameSync(tmp, file);
    // Deliberately console.log, not the logger: the password must reach the operator once, never a log pipeline.
    console.log(
      `\nAdministrator account created: user "${config.admin.user}", password: ${password}\n` +
        `(also written to ${file}, readable only by this user; change it after the first sign-in)\n`,
    );
  }
}

export async function seed(ctx: AppContext): Promise<void> {
  await seedAdmin(ctx);
  await transaction(ctx.db, async (trx) => {
    await ensureBusinessLib(trx, {
      libCode: NETDISK,
      libName: '网盘',
      libNameEn: 'NetDisk',
      webIcon: 'netdisk',
      isShow: true,
      isHome: true,
      adminOnly: false,
      sort: 10,
    });
    await ensureBusinessLib(trx, {
      libCode: SYSCONFIG,
      libName: '系统配置',
      libNameEn: 'System Configuration',
      webIcon: 'sysconfig',
      isShow: true,
      isHome: true,
      adminOnly: true,
      sort: 1000,
    });
    await seedMenu(trx, SYSCONFIG, SYSCONFIG_MENU);
    await ensureSysConfig(trx, CONFIG_KEYS.language, ctx.config.defaultLanguage);
    await ensureSysConfig(trx, CONFIG_KEYS.gatewayMappings, '[]');
  });
}
