// Business libraries and their menus.
import type { Db } from './database.ts';
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
}

interface LibRow {
  id: string;
  lib_code: string;
  lib_name: string;
  lib_name_en: string;
  web_icon: string;
  is_show: number;
  is_home: number;
  admin_only: number;
  sort: number;
}

function toLib(r: LibRow): BusinessLib {
  return {
    id: r.id,
    libCode: r.lib_code,
    libName: r.lib_name,
    libNameEn: r.lib_name_en,
    webIcon: r.web_icon,
    isShow: r.is_show === 1,
    isHome: r.is_home === 1,
    adminOnly: r.admin_only === 1,
    sort: Number(r.sort),
  };
}

export function listBusinessLibs(db: Db, opts: { includeAdminOnly: boolean; isShow?: boolean; isHome?: boolean }): BusinessLib[] {
  const where: string[] = [];
  const args: number[] = [];
  if (!opts.includeAdminOnly) where.push('admin_only = 0');
  if (opts.isShow !== undefined) {
    where.push('is_show = ?');
    args.push(opts.isShow ? 1 : 0);
  }
  if (opts.isHome !== undefined) {
    where.push('is_home = ?');
    args.push(opts.isHome ? 1 : 0);
  }
  const sql = `SELECT * FROM business_libs ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY sort, lib_code`;
  return (db.prepare(sql).all(...args) as unknown as LibRow[]).map(toLib);
}

export function getBusinessLib(db: Db, libCode: string): BusinessLib | null {
  const r = db.prepare('SELECT * FROM business_libs WHERE lib_code = ?').get(libCode) as LibRow | undefined;
  return r ? toLib(r) : null;
}

/**
 * The library a caller names, if the caller may use it: NOT_FOUND for codes that name no library, FORBIDDEN for an
 * administrators' library asked for by anyone else. Checked before anything is read or created in it.
 */
export function usableLib(db: Db, libCode: string, isAdmin: boolean): BusinessLib {
  const lib = getBusinessLib(db, libCode);
  if (!lib) throw new AppError('NOT_FOUND', `no business library ${libCode}`);
  if (lib.adminOnly && !isAdmin) throw new AppError('FORBIDDEN', `the ${libCode} library is for administrators`);
  return lib;
}

/** Inserts a library unless its code exists; returns whether it was inserted. */
export function ensureBusinessLib(db: Db, lib: Omit<BusinessLib, 'id'> & { id?: string }): boolean {
  const res = db
    .prepare(
      `INSERT INTO business_libs (id, lib_code, lib_name, lib_name_en, web_icon, is_show, is_home, admin_only, sort)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(lib_code) DO NOTHING`,
    )
    .run(
      lib.id ?? lib.libCode,
      lib.libCode,
      lib.libName,
      lib.libNameEn,
      lib.webIcon,
      lib.isShow ? 1 : 0,
      lib.isHome ? 1 : 0,
      lib.adminOnly ? 1 : 0,
      lib.sort,
    );
  return Number(res.changes) > 0;
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

interface MenuRow {
  id: string;
  lib_code: string;
  menu_code: string;
  menu_name: string;
  menu_str: string;
  menu_url: string;
  parent_id: string;
  menu_index: number;
  menu_show: number;
  menu_icon: string;
}

function toMenu(r: MenuRow): Menu {
  return {
    id: r.id,
    libCode: r.lib_code,
    menuCode: r.menu_code,
    menuName: r.menu_name,
    menuStr: r.menu_str,
    menuUrl: r.menu_url,
    parentId: r.parent_id,
    menuIndex: Number(r.menu_index),
    menuShow: r.menu_show === 1,
    menuIcon: r.menu_icon,
  };
}

export function listMenus(db: Db, libCodes: string[]): Menu[] {
  if (libCodes.length === 0) return [];
  const marks = libCodes.map(() => '?').join(', ');
  return (
    db
      .prepare(`SELECT * FROM menus WHERE lib_code IN (${marks}) ORDER BY lib_code, menu_index, menu_code`)
      .all(...libCodes) as unknown as MenuRow[]
  ).map(toMenu);
}

/** Inserts a menu entry unless (libCode, menuCode) exists; returns whether it was inserted. */
export function ensureMenu(db: Db, m: Menu): boolean {
  const res = db
    .prepare(
      `INSERT INTO menus (id, lib_code, menu_code, menu_name, menu_str, menu_url, parent_id, menu_index, menu_show, menu_icon)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(lib_code, menu_code) DO NOTHING`,
    )
    .run(m.id, m.libCode, m.menuCode, m.menuName, m.menuStr, m.menuUrl, m.parentId, m.menuIndex, m.menuShow ? 1 : 0, m.menuIcon);
  return Number(res.changes) > 0;
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

export function getSysConfig(db: Db, key: string): string | null {
  const r = db.prepare('SELECT config_value FROM sys_config WHERE config_key = ?').get(key) as { config_value: string } | undefined;
  return r ? r.config_value : null;
}

/** Sets a value unless present (first-start defaults); returns whether it was inserted. */
export function ensureSysConfig(db: Db, key: string, value: string, now = Date.now()): boolean {
  const res = db
    .prepare('INSERT INTO sys_config (config_key, config_value, updated_at) VALUES (?, ?, ?) ON CONFLICT(config_key) DO NOTHING')
    .run(key, value, now);
  return Number(res.changes) > 0;
}
