// Opening a business library (Home strip, header switcher): sets the menu mode and picks the landing route.
import type { QueryClient } from '@tanstack/react-query';
import type { MenuItem } from '../api/gen/model/index.ts';
import { getBusinessMenu, getGetBusinessMenuQueryKey, getListSysConfigMenusQueryKey, listSysConfigMenus } from '../api/gen/libraries/libraries.ts';
import { GROUP_ID_KEY, LAST_MENU_KEY, updateStore } from './session.ts';
import { findRoute } from './routes.ts';

export const NETDISK = 'NetDisk';
export const SYSCONFIG = 'SysConfig';

/** Spec 2: after opening NetDisk go to /groupFile if a group id is stored, else the last menu route, else /personalFile. */
export function netDiskLanding(): string {
  if (localStorage.getItem(GROUP_ID_KEY)) return '/groupFile';
  const last = localStorage.getItem(LAST_MENU_KEY);
  const route = last ? findRoute(last.split('?')[0] ?? '') : undefined;
  if (last && route?.lib === NETDISK) return last;
  return '/personalFile';
}

/** Menu entries, as a tree of one level (server sends either nested children or flat entries with menuParentId). */
export function menuTree(items: readonly MenuItem[]): MenuItem[] {
  const visible = items.filter((m) => m.menuShow !== 0);
  const byIndex = (a: MenuItem, b: MenuItem) => a.menuIndex - b.menuIndex;
  const top = visible.filter((m) => m.menuParentId === '0' || !visible.some((p) => p.menuId === m.menuParentId));
  return top
    .map((m) => ({
      ...m,
      children: [...(m.children ?? []), ...visible.filter((c) => c !== m && c.menuParentId === m.menuId)]
        .filter((c) => c.menuShow !== 0)
        .sort(byIndex),
    }))
    .sort(byIndex);
}

/** The route a menu entry opens; other libraries' entries carry instanceId/instanceName (spec 2). */
export function menuTarget(item: MenuItem, libCode: string, title: string): string {
  const url = item.menuUrl.startsWith('/') ? item.menuUrl : `/${item.menuUrl}`;
  if (libCode === NETDISK || libCode === SYSCONFIG) return url;
  const qs = new URLSearchParams({ instanceId: item.menuId, instanceName: title });
  return `${url}${url.includes('?') ? '&' : '?'}${qs.toString()}`;
}

function firstLeaf(tree: MenuItem[]): MenuItem | undefined {
  const first = tree[0];
  if (!first) return undefined;
  return first.children?.length ? first.children[0] : first;
}

export async function openLibrary(
  libCode: string,
  deps: { queryClient: QueryClient; navigate: (to: string) => void; title: (m: MenuItem) => string },
): Promise<void> {
  updateStore({ currentLib: libCode });
  if (libCode === NETDISK) return deps.navigate(netDiskLanding());
  const items =
    libCode === SYSCONFIG
      ? (await deps.queryClient.fetchQuery({ queryKey: getListSysConfigMenusQueryKey(), queryFn: ({ signal }) => listSysConfigMenus({ signal }) })).data
      : (
          await deps.queryClient.fetchQuery({
            queryKey: getGetBusinessMenuQueryKey({ libCode }),
            queryFn: ({ signal }) => getBusinessMenu({ libCode }, { signal }),
          })
        ).data;
  const leaf = firstLeaf(menuTree(items ?? []));
  deps.navigate(leaf ? menuTarget(leaf, libCode, deps.title(leaf)) : '/home');
}
