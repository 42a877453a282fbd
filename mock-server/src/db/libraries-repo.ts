// Business libraries and their menus.
import type { Selectable } from 'kysely';
import type { Db } from './sql/tx.ts';
import type { BusinessLibsTable, MenusTable } from './sql/schema.ts';
import { AppError } from '../http/errors.ts';

export interface BusinessLib {
  id: string;
  libCode: string;
  /** Chinese name. */
  libName: string;
  libNameEn: string;
  webIcon: string;
  isShow: boolean;
  isHome: boolean;
  adminOnly: boolean;
  sort: number;
  /** false: disabled by an administrator (014); listed by getAll only, its files refused to others. */
  isEnabled: boolean;
  /** Made by an administrator (014); NetDisk and SysConfig are built in. */
  custom: boolean;
}

function toLib(r: Selectable<BusinessLibsTable>): BusinessLib {
  return {
    id: r.id,
    libCode: r.lib_code,
    libName: r.lib_name,
    libNameEn: r.lib_name_en,
    webIcon: r.web_icon,
    isShow: r.is_show === 1,
    isHome: r.is_home === 1,
    adminOnly: r.admin_only === 1,
    sort: r.sort,
    isEnabled: r.is_enabled === 1,
    custom: r.custom === 1,
  };
}

export async function listBusinessLibs(db: Db, opts: { includeAdminOnly: boolean; isShow?: boolean; isHome?: boolean; includeDisabled?: boolean }): Promise<BusinessLib[]> {
  let q = db.selectFrom('business_libs').selectAll().orderBy('sort').orderBy('lib_code');
  if (!opts.includeAdminOnly) q = q.where('admin_only', '=', 0);
  if (!opts.includeDisabled) q = q.where('is_enabled', '=', 1);
  if (opts.isShow !== undefined) q = q.where('is_show', '=', opts.isShow ? 1 : 0);
  if (opts.isHome !== undefined) q = q.where('is_home', '=', opts.isHome ? 1 : 0);
  return (await q.execute()).map(toLib);
}

export async function getBusinessLib(db: Db, libCode: string): Promise<BusinessLib | null> {
  const r = await db.selectFrom('business_libs').selectAll().where('lib_code', '=', libCode).executeTakeFirst();
  return r ? toLib(r) : null;
}

/**
 * The library a caller names, if the caller may use it: NOT_FOUND for codes that name no library, FORBIDDEN for an
 * administrators' library (or a disabled one) asked for by anyone else. Checked before anything is read or created in it.
 */
export async function usableLib(db: Db, libCode: string, isAdmin: boolean): Promise<BusinessLib> {
  const lib = await getBusinessLib(db, libCode);
  if (!lib) throw new AppError('NOT_FOUND', `no business library ${libCode}`);
  if (lib.adminOnly && !isAdmin) throw new AppError('FORBIDDEN', `the ${libCode} library is for administrators`);
  if (!lib.isEnabled && !isAdmin) throw new AppError('FORBIDDEN', `the ${libCode} library is disabled`);
  return lib;
}

/** Inserts a library unless its code exists; returns whether it was inserted. */
export async function ensureBusinessLib(db: Db, lib: Omit<BusinessLib, 'id' | 'isEnabled' | 'custom'> & { id?: string }): Promise<boolean> {
  const res = await db
    .insertInto('business_libs')
    .values({
      id: lib.id ?? lib.libCode,
      lib_code: lib.libCode,
      lib_name: lib.libName,
      lib_name_en: lib.libNameEn,
      web_icon: lib.webIcon,
      is_show: lib.isShow ? 1 : 0,
      is_home: lib.isHome ? 1 : 0,
      admin_only: lib.adminOnly ? 1 : 0,
      sort: lib.sort,
    })
    .onConflict((oc) => oc.column('lib_code').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export interface Menu {
  id: string;
  libCode: string;
  menuCode: string;
  /** English title. */
  menuName: string;
  /** Chinese title. */
  menuStr: string;
  menuUrl: string;
  /** '0' = top level. */
  parentId: string;
  menuIndex: number;
  menuShow: boolean;
  menuIcon: string;
}

function toMenu(r: Selectable<MenusTable>): Menu {
  return {
    id: r.id,
    libCode: r.lib_code,
    menuCode: r.menu_code,
    menuName: r.menu_name,
    menuStr: r.menu_str,
    menuUrl: r.menu_url,
    parentId: r.parent_id,
    menuIndex: r.menu_index,
    menuShow: r.menu_show === 1,
    menuIcon: r.menu_icon,
  };
}

export async function listMenus(db: Db, libCodes: string[]): Promise<Menu[]> {
  if (libCodes.length === 0) return [];
  const rows = await db.selectFrom('menus').selectAll().where('lib_code', 'in', libCodes).orderBy('lib_code').orderBy('menu_index').orderBy('menu_code').execute();
  return rows.map(toMenu);
}

/** Inserts a menu entry unless (libCode, menuCode) exists; returns whether it was inserted. */
export async function ensureMenu(db: Db, m: Menu): Promise<boolean> {
  const res = await db
    .insertInto('menus')
    .values({
      id: m.id,
      lib_code: m.libCode,
      menu_code: m.menuCode,
      menu_name: m.menuName,
      menu_str: m.menuStr,
      menu_url: m.menuUrl,
      parent_id: m.parentId,
      menu_index: m.menuIndex,
      menu_show: m.menuShow ? 1 : 0,
      menu_icon: m.menuIcon,
    })
    .onConflict((oc) => oc.columns(['lib_code', 'menu_code']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export interface MenuNode extends Menu {
  children: MenuNode[];
}

/**
 * Top-level entries (parent '0', or whose parent is missing from the list) with their children, one level
 * deep as the spec allows; deeper rows are attached to their top-level ancestor's children so none is lost.
 */
export function menuTree(menus: Menu[], rootParentId = '0'): MenuNode[] {
  const byId = new Map(menus.map((m) => [m.id, { ...m, children: [] as MenuNode[] }]));
  const topOf = (m: Menu): MenuNode | undefined => {
    let cur = byId.get(m.parentId);
    const seen = new Set<string>();
    while (cur && cur.parentId !== rootParentId && byId.has(cur.parentId) && !seen.has(cur.id)) {
      seen.add(cur.id);
      cur = byId.get(cur.parentId);
    }
    return cur;
  };
  const roots: MenuNode[] = [];
  for (const node of byId.values()) {
    if (node.parentId === rootParentId || !byId.has(node.parentId)) roots.push(node);
    else topOf(node)?.children.push(node);
  }
  const order = (a: Menu, b: Menu) => a.menuIndex - b.menuIndex || a.menuCode.localeCompare(b.menuCode);
  roots.sort(order);
  for (const r of roots) r.children.sort(order);
  return roots;
}

export async function getSysConfig(db: Db, key: string): Promise<string | null> {
  const r = await db.selectFrom('sys_config').select('config_value').where('config_key', '=', key).executeTakeFirst();
  return r ? r.config_value : null;
}

/** Sets a value unless present (first-start defaults); returns whether it was inserted. */
export async function ensureSysConfig(db: Db, key: string, value: string, now = Date.now()): Promise<boolean> {
  const res = await db
    .insertInto('sys_config')
    .values({ config_key: key, config_value: value, updated_at: now })
    .onConflict((oc) => oc.column('config_key').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function setSysConfig(db: Db, key: string, value: string, now = Date.now()): Promise<void> {
  await db
    .insertInto('sys_config')
    .values({ config_key: key, config_value: value, updated_at: now })
    .onConflict((oc) => oc.column('config_key').doUpdateSet({ config_value: value, updated_at: now }))
    .execute();
}
