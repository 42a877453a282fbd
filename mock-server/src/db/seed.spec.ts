import { describe, it, expect, beforeEach, afterEach, vi } from 'vitest';
import { mkdtempSync, rmSync, statSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlDatabase, type SqlDatabase } from './sql/open.ts';
import { loadConfig } from '../config.ts';
import { seed, ADMIN_PASSWORD_FILE, NETDISK, SYSCONFIG } from './seed.ts';
import { getUserByName, getPasswordHash } from './users-repo.ts';
import { listBusinessLibs, listMenus, menuTree, getSysConfig } from './libraries-repo.ts';
import { verifyPassword, passwordStrength } from '../auth/passwords.ts';
import type { AppContext } from '../context.ts';

async function ctxFor(dataDir: string, env: Record<string, string> = {}) {
  const config = loadConfig({ HCS_DATA_DIR: dataDir, ...env });
  const database: SqlDatabase = await openSqlDatabase({ dataDir });
  const warnings: string[] = [];
  const log = { warn: (m: string) => warnings.push(m), info() {}, error() {}, debug() {} };
  return { ctx: { config, db: database.db, log } as unknown as AppContext, warnings, close: () => database.close() };
}

describe('seed', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hcs-seed-'));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('generates an admin password once: printed once, written 0600, must be changed', async () => {
    const out = vi.spyOn(console, 'log').mockImplementation(() => {});
    const { ctx, close } = await ctxFor(dir);
    await seed(ctx);
    await seed(ctx);
    expect(out).toHaveBeenCalledTimes(1);
    const file = join(dir, ADMIN_PASSWORD_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const [user, password] = readFileSync(file, 'utf8').trim().split('\n');
    expect(user).toBe('admin');
    expect(passwordStrength(password!)).toBeGreaterThanOrEqual(2);
    expect(password!.length).toBeGreaterThanOrEqual(16);
    expect(String(out.mock.calls[0]?.[0])).toContain(password);
    const admin = await getUserByName(ctx.db, 'ADMIN');
    expect(admin?.isAdmin).toBe(true);
    expect(admin?.mustChangePassword).toBe(true);
    expect(admin?.quotaBytes).toBeNull();
    expect(await verifyPassword(password!, (await getPasswordHash(ctx.db, admin!.id))!)).toBe(true);
    await close();
  });

  it('uses HCS_ADMIN_PASSWORD without printing or writing it, and never overwrites an existing admin', async () => {
    const out = vi.spyOn(console, 'log').mockImplementation(() => {});
    const first = await ctxFor(dir, { HCS_ADMIN_USER: 'root', HCS_ADMIN_PASSWORD: 'Configured-Pass-1' });
    await seed(first.ctx);
    await first.close();
    const second = await ctxFor(dir, { HCS_ADMIN_USER: 'root', HCS_ADMIN_PASSWORD: 'Other-Pass-2' });
    await seed(second.ctx);
    expect(out).not.toHaveBeenCalled();
    expect(existsSync(join(dir, ADMIN_PASSWORD_FILE))).toBe(false);
    const root = (await getUserByName(second.ctx.db, 'root'))!;
    expect(root.mustChangePassword).toBe(false);
    expect(await verifyPassword('Configured-Pass-1', (await getPasswordHash(second.ctx.db, root.id))!)).toBe(true);
    await second.close();
  });

  it('accepts a weak configured password but warns and forces a change', async () => {
    const { ctx, warnings, close } = await ctxFor(dir, { HCS_ADMIN_PASSWORD: 'password' });
    await seed(ctx);
    expect((await getUserByName(ctx.db, 'admin'))?.mustChangePassword).toBe(true);
    expect(warnings.join()).toContain('policy');
    expect(warnings.join()).not.toContain('password\n');
    await close();
  });

  it('creates NetDisk, admin-only SysConfig, the grouped admin menu and defaults, idempotently', async () => {
    const { ctx, close } = await ctxFor(dir, { HCS_ADMIN_PASSWORD: 'Configured-Pass-1', HCS_DEFAULT_LANGUAGE: 'en_US' });
    await seed(ctx);
    await seed(ctx);
    const all = await listBusinessLibs(ctx.db, { includeAdminOnly: true });
    expect(all.map((l) => [l.libCode, l.libName, l.adminOnly])).toEqual([
      [NETDISK, '网盘', false],
      [SYSCONFIG, '系统配置', true],
    ]);
    expect((await listBusinessLibs(ctx.db, { includeAdminOnly: false })).map((l) => l.libCode)).toEqual([NETDISK]);
    const menus = await listMenus(ctx.db, [SYSCONFIG]);
    const urls = menus.map((m) => m.menuUrl).filter(Boolean).sort();
    expect(urls).toEqual(
      ['/roleManage', '/departmentManage', '/businessManage', '/cloudStorageManage', '/nodeManage', '/clusterManage', '/ipWhiteList', '/otherConfig', '/integrationPlatform', '/logManage', '/fileManagement'].sort(),
    );
    const tree = menuTree(menus);
    expect(tree.every((m) => m.parentId === '0')).toBe(true);
    expect(tree.find((m) => m.menuCode === 'organization')?.children.map((c) => c.menuUrl)).toEqual(['/roleManage', '/departmentManage']);
    expect(tree.reduce((n, m) => n + 1 + m.children.length, 0)).toBe(menus.length);
    expect(await listMenus(ctx.db, [NETDISK])).toEqual([]);
    expect(await getSysConfig(ctx.db, 'language')).toBe('en_US');
    await close();
  });
});

describe('menuTree', () => {
  const m = (id: string, parentId: string, menuIndex: number) => ({
    id, parentId, menuIndex, libCode: 'X', menuCode: id, menuName: id, menuStr: id, menuUrl: '/' + id, menuShow: true, menuIcon: '',
  });
  it('keeps one level of children and lifts deeper rows to their top-level ancestor', () => {
    const tree = menuTree([m('b', '0', 2), m('a', '0', 1), m('a2', 'a', 2), m('a1', 'a', 1), m('deep', 'a1', 1), m('orphan', 'zzz', 0)]);
    expect(tree.map((n) => n.id)).toEqual(['orphan', 'a', 'b']);
    expect(tree[1]!.children.map((n) => n.id)).toEqual(['a1', 'deep', 'a2']);
    expect(tree[1]!.children.every((c) => c.children.length === 0)).toBe(true);
  });
});
