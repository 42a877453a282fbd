// Left menu: NetDisk's is built locally from the route table; SysConfig's comes from the server (admin menu);
// other libraries fetch theirs by library code. One level of children expands and collapses.
import { useEffect, useMemo, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { Menu, Alert } from 'antd';
import type { MenuProps } from 'antd';
import { useTranslation } from 'react-i18next';
import type { MenuItem } from '../../api/gen/model/index.ts';
import { useGetBusinessMenu, useListSysConfigMenus } from '../../api/gen/libraries/libraries.ts';
import { NETDISK_MENU } from '../../shared/routes.ts';
import { iconFor } from '../../shared/icons.tsx';
import { menuTarget, menuTree, NETDISK, SYSCONFIG } from '../../shared/libraries.ts';

type Items = NonNullable<MenuProps['items']>;

export function SideMenu({ libCode }: { libCode: string }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  const isNetDisk = libCode === NETDISK;
  const sys = useListSysConfigMenus({ query: { enabled: libCode === SYSCONFIG } });
  const biz = useGetBusinessMenu({ libCode }, { query: { enabled: !isNetDisk && libCode !== SYSCONFIG } });
  const remote = libCode === SYSCONFIG ? sys : biz;

  const title = (m: MenuItem) => (i18n.language === 'en_US' ? m.menuName : m.menuStr) || m.menuName || m.menuStr;

  const { items, targets } = useMemo(() => {
    const targets = new Map<string, string>();
    if (isNetDisk) {
      const items: Items = NETDISK_MENU.map((r) => {
        targets.set(r.path, r.path);
        return { key: r.path, icon: iconFor(r.icon), label: t(r.nameKey) };
      });
      return { items, targets };
    }
    const tree = menuTree(remote.data?.data ?? []);
    const toItem = (m: MenuItem): Items[number] => {
      const target = menuTarget(m, libCode, title(m));
      targets.set(m.menuId, target);
      return { key: m.menuId, icon: iconFor(m.menuIcon), label: title(m) };
    };
    const items: Items = tree.map((m) =>
      m.children?.length
        ? { key: `group:${m.menuId}`, icon: iconFor(m.menuIcon), label: title(m), children: m.children.map(toItem) }
        : toItem(m),
    );
    return { items, targets };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [isNetDisk, remote.data, libCode, i18n.language, t]);

  const here = `${pathname}${search}`;
  const selected = [...targets.entries()].filter(([, to]) => to === here || to.split('?')[0] === pathname).map(([k]) => k);
  const openKeys = items
    .filter((i): i is Extract<Items[number], { children?: unknown }> => !!i && 'children' in i && Array.isArray(i.children))
    .filter((g) => (g.children as { key: string }[]).some((c) => selected.includes(c.key)))
    .map((g) => String(g.key));

  // Keep the group of the current entry open as menus load or the route changes; the user may still collapse others.
  const [open, setOpen] = useState<string[]>([]);
  const autoOpen = openKeys.join('|');
  useEffect(() => {
    if (autoOpen) setOpen((prev) => [...new Set([...prev, ...autoOpen.split('|')])]);
  }, [autoOpen]);

  if (!isNetDisk && remote.isError) return <Alert type="error" showIcon message={t('layout.menuLoadFailed')} style={{ margin: 8 }} />;
  return (
    <Menu
      mode="inline"
      items={items}
      selectedKeys={selected}
      openKeys={open}
      onOpenChange={(keys) => setOpen(keys.map(String))}
      onClick={({ key }) => {
        const to = targets.get(String(key));
        if (to) navigate(to);
      }}
      data-testid="side-menu"
    />
  );
}
