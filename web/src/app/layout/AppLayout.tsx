// The signed-in frame: header and left column (menu + capacity) shown per the layout rules of spec 2.
import { useEffect, type ReactNode } from 'react';
import { useLocation } from 'react-router-dom';
import { Layout } from 'antd';
import { showHeader, showLeftMenu } from '../layout-rules.ts';
import { findRoute } from '../../shared/routes.ts';
import { LAST_MENU_KEY, updateStore, useStore, useUserInfo } from '../../shared/session.ts';
import { TransferHost } from './TransferHost.tsx';
import { AppHeader } from './AppHeader.tsx';
import { SideMenu } from './SideMenu.tsx';
import { CapacityPanel } from './CapacityPanel.tsx';
import { SystemWarnings } from './SystemWarnings.tsx';

export function AppLayout({ children }: { children: ReactNode }) {
  const { pathname, search } = useLocation();
  const { currentLib } = useStore();
  const user = useUserInfo();
  const route = findRoute(pathname);

  useEffect(() => {
    // Entering a NetDisk or SysConfig page directly (bookmark, typed URL) selects that library's menu; pages opened
    // from another library's menu keep that library (its menu entries may point at shared routes).
    const builtIn = currentLib == null || currentLib === 'NetDisk' || currentLib === 'SysConfig';
    if (route?.lib && builtIn && route.lib !== currentLib) updateStore({ currentLib: route.lib });
    if (route?.lib === 'NetDisk' && route.netDiskMenu != null) localStorage.setItem(LAST_MENU_KEY, `${pathname}${search}`);
  }, [route, currentLib, pathname, search]);

  const menuLib = currentLib ?? (pathname === '/personalFile' ? 'NetDisk' : null);
  const withMenu = showLeftMenu(pathname, currentLib) && menuLib != null;
  return (
    <Layout style={{ minHeight: '100vh' }} className="hcs-layout">
      {showHeader(pathname) && <AppHeader />}
      {user?.isAdmin && <SystemWarnings />}
      <Layout>
        {withMenu && (
          <Layout.Sider width={220} theme="light" className="hcs-sider" data-testid="left-menu">
            <div style={{ display: 'flex', flexDirection: 'column', height: '100%' }}>
              <div style={{ flex: 1, overflow: 'auto' }}>
                <SideMenu libCode={menuLib} />
              </div>
              <CapacityPanel libCode={menuLib} />
            </div>
          </Layout.Sider>
        )}
        <Layout.Content className="hcs-content" style={{ padding: 16 }}>
          {children}
        </Layout.Content>
      </Layout>
      {user && <TransferHost userId={user.userId} />}
    </Layout>
  );
}
