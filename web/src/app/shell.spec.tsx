// The shell as a user meets it: redirects, sign-in gate, layout rules per route family, menus, header, capacity,
// "not available" pages and the other-tab sign-out.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { fail, ok, renderApp, server, shellHandlers, signIn } from '../test/render-app.tsx';
import { clearSession, updateStore, USER_INFO_KEY } from '../shared/session.ts';
import { mockUser } from '../mocks/fixtures.ts';
import { toastError } from '../shared/notify.ts';
import type * as Notify from '../shared/notify.ts';

// The real toasts, observed: a page that shows a failure itself must not also toast it.
vi.mock('../shared/notify.ts', async (importOriginal) => {
  const real = await importOriginal<typeof Notify>();
  return { ...real, toastError: vi.fn(real.toastError) };
});

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
beforeEach(() => {
  vi.mocked(toastError).mockClear();
  localStorage.clear();
  sessionStorage.clear();
  clearSession();
  server.resetHandlers(...shellHandlers());
});
afterEach(() => {
  server.resetHandlers();
  server.events.removeAllListeners();
});

/** The paths of the requests the app sends from now on. */
function requestsDuring(): () => string[] {
  const seen: string[] = [];
  server.events.on('request:start', ({ request }) => void seen.push(new URL(request.url).pathname));
  return () => seen;
}

const path = (r: { router: { state: { location: { pathname: string; search: string } } } }) =>
  `${r.router.state.location.pathname}${r.router.state.location.search}`;

describe('routing', () => {
  it('signed out: a signed-in route goes to /login with the route as redirect', async () => {
    const r = await renderApp('/groupFile');
    await waitFor(() => expect(path(r)).toBe('/login?redirect=%2FgroupFile'));
    expect(await screen.findByTestId('login-card')).toBeTruthy();
  });

  it.each(['/', '/index', '/index.html', '/no/such/page'])('%s lands on /personalFile', async (from) => {
    signIn();
    const r = await renderApp(from);
    await waitFor(() => expect(path(r)).toBe('/personalFile'));
  });

  it('/hcs/controller/login/require goes to /login', async () => {
    const r = await renderApp('/hcs/controller/login/require');
    await waitFor(() => expect(r.router.state.location.pathname).toBe('/login'));
  });

  it('/error/404 shows the not-found text without sign-in', async () => {
    await renderApp('/error/404');
    expect(await screen.findByText('Sorry, the page you visited does not exist.')).toBeTruthy();
  });
});

describe('layout rules', () => {
  it('/personalFile: header, the local NetDisk menu in spec order, capacity used/total', async () => {
    signIn();
    await renderApp('/personalFile');
    expect(await screen.findByTestId('app-header')).toBeTruthy();
    const menu = await screen.findByTestId('side-menu');
    const labels = within(menu).getAllByRole('menuitem').map((li) => li.textContent);
    expect(labels).toEqual(['Personal File', 'Group File', 'Internal Sharing', 'External Link Sharing', 'Cluster Sync', 'My Favorites', 'Recycle Bin']);
    expect((await screen.findByTestId('capacity-text')).textContent).toBe('2GB / 10GB');
  });

  it('department capacity (NetDisk only) shows the infinite-space label when unlimited', async () => {
    signIn();
    await renderApp('/personalFile');
    fireEvent.click(await screen.findByText('Department'));
    expect(await screen.findByText('Unlimited space')).toBeTruthy();
    // The NetDisk menu has no department entry (spec): the department view leads to the department's files.
    expect((await screen.findByTestId('capacity-dept-files')).getAttribute('href')).toMatch(/\/departFile$/);
  });

  it('/home: header but no left menu, library strip with the libraries', async () => {
    signIn();
    updateStore({ currentLib: 'NetDisk' });
    await renderApp('/home');
    expect(await screen.findByTestId('home')).toBeTruthy();
    expect(screen.getByTestId('app-header')).toBeTruthy();
    expect(screen.queryByTestId('left-menu')).toBeNull();
    expect(await screen.findByTestId('lib-SysConfig')).toBeTruthy();
  });

  it('/fileDownload: no header, no sign-in; a server without public links says so', async () => {
    const r = await renderApp('/fileDownload?link=abc123abc123abc123');
    expect(await screen.findByText('Not available on this server')).toBeTruthy();
    expect(screen.queryByTestId('app-header')).toBeNull();
    expect(path(r)).toBe('/fileDownload?link=abc123abc123abc123');
  });

  it('agreement page: no header, text from the server', async () => {
    server.use(http.get('*/hcs/controller/System/userAgreement', () => ok({ title: 'Agreement', content: 'First.\n\nSecond.', version: '2' })));
    await renderApp('/userServiceAgreementEn');
    expect(await screen.findByText('Second.')).toBeTruthy();
    expect(screen.queryByTestId('app-header')).toBeNull();
  });

  it('SysConfig routes: the menu comes from the server, one level of children', async () => {
    signIn();
    updateStore({ currentLib: 'SysConfig' });
    await renderApp('/roleManage');
    const menu = await screen.findByTestId('side-menu');
    expect(await within(menu).findByText('Organisation')).toBeTruthy();
    expect(within(menu).getByText('Roles')).toBeTruthy();
    expect(within(menu).getByText('Operation logs')).toBeTruthy();
  });

  it('a later feature the server answers 501 for shows "not available", never rows', async () => {
    signIn();
    // This test server has no pull sync (its status call answers 501).
    await renderApp('/localSync');
    expect(await screen.findByText('Not available on this server')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('/clusterSync on a server without replication (501): "not available" on the page, no table, no toast', async () => {
    signIn();
    const asked = requestsDuring();
    await renderApp('/clusterSync', 'zh_CN');
    expect(await screen.findByText('此服务器暂不支持该功能')).toBeTruthy();
    expect(asked()).toContain('/hcs/controller/instance/sync/config/list');
    expect(screen.queryByRole('table')).toBeNull();
    expect(toastError).not.toHaveBeenCalled();
  });

  it('/fileDownload signed out: "not available" without a toast, and no call outside the contract', async () => {
    const asked = requestsDuring();
    await renderApp('/fileDownload?link=abc123abc123abc123', 'zh_CN');
    expect(await screen.findByText('此服务器暂不支持该功能')).toBeTruthy();
    // Only the contract's visitor call that asks what the link needs (checklink), answered 501 here.
    expect(asked().filter((p) => p.includes('FileShare'))).toEqual(['/hcs/services/FileShare/checklink']);
    expect(toastError).not.toHaveBeenCalled();
  });

  it('a real failure is shown as a failure, not as "not available"', async () => {
    signIn();
    server.use(http.get('*/hcs/controller/System/pullSync/status', () => fail(500, 'INTERNAL', 'boom')));
    await renderApp('/localSync', 'zh_CN');
    const failed = await screen.findByTestId('load-failed');
    // Said once, in the page, in the user's language.
    expect(failed.textContent).toContain('服务器内部错误，请稍后重试');
    expect(failed.textContent).not.toContain('boom');
    expect(toastError).not.toHaveBeenCalled();
  });
});

describe('header', () => {
  it('library switcher with more than one library, by code in English; transfer counters; drop-downs on click', async () => {
    signIn();
    await renderApp('/personalFile');
    const header = await screen.findByTestId('app-header');
    expect(await within(header).findByTestId('lib-switcher')).toBeTruthy();
    expect(within(header).getByTestId('upload-count').textContent).toContain('0');
    fireEvent.click(within(header).getByTestId('user-menu'));
    expect(await screen.findByText('Sign out')).toBeTruthy();
    expect(screen.getByText('My applications')).toBeTruthy();
    expect(screen.getByText('User agreement')).toBeTruthy();
    expect(screen.getByText('Feedback')).toBeTruthy();
    expect(screen.getByText('Help')).toBeTruthy();
  });

  it('no switcher with a single library', async () => {
    signIn();
    server.use(http.get('*/hcs/controller/BusinessLibs', () => ok([{ libId: '1', libCode: 'NetDisk', libName: '网盘', webIcon: 'database' }])));
    await renderApp('/personalFile');
    await screen.findByTestId('side-menu');
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByTestId('lib-switcher')).toBeNull();
  });

  it('sign out calls logout, clears userInfo and goes to /login', async () => {
    signIn();
    let loggedOut = false;
    server.use(http.get('*/hcs/controller/System/sso/logout', () => ((loggedOut = true), ok(null))));
    const r = await renderApp('/personalFile');
    fireEvent.click(await screen.findByTestId('user-menu'));
    fireEvent.click(await screen.findByText('Sign out'));
    await waitFor(() => expect(r.nav).toHaveBeenCalledWith('/drive/login'));
    expect(loggedOut).toBe(true);
    expect(localStorage.getItem(USER_INFO_KEY)).toBeNull();
  });

  it('the sign-out message survives the reload to /login, in the language of the new page, once', async () => {
    signIn();
    server.use(http.get('*/hcs/controller/System/sso/logout', () => ok(null)));
    const r = await renderApp('/personalFile');
    fireEvent.click(await screen.findByTestId('user-menu'));
    fireEvent.click(await screen.findByText('Sign out'));
    await waitFor(() => expect(r.nav).toHaveBeenCalledWith('/drive/login'));
    // The reload: a new page at /login.
    r.unmount();
    const again = await renderApp('/login', 'zh_CN');
    expect(await screen.findByText('退出登录成功')).toBeTruthy();
    again.unmount();
    await renderApp('/login', 'zh_CN');
    await screen.findByTestId('login-card');
    expect(screen.queryByText('退出登录成功')).toBeNull();
  });
});

describe('session', () => {
  it('another tab removing userInfo signs this tab out', async () => {
    signIn();
    const r = await renderApp('/personalFile');
    await screen.findByTestId('app-header');
    act(() => {
      localStorage.removeItem(USER_INFO_KEY);
      window.dispatchEvent(new StorageEvent('storage', { key: USER_INFO_KEY, oldValue: '{}', newValue: null }));
    });
    await waitFor(() => expect(r.nav).toHaveBeenCalledWith('/drive/login'));
  });

  it('a disabled account gets the accountFrozen alert whose confirm signs out', async () => {
    signIn();
    server.use(http.get('*/hcs/controller/System/Current/User', () => ok({ ...mockUser, userIsEnabled: 0 })));
    const r = await renderApp('/personalFile');
    expect(await screen.findByText('This account is disabled. Contact your administrator.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(r.nav).toHaveBeenCalledWith('/drive/login'));
  });

  it('HTTP 401 goes to /login keeping the location', async () => {
    signIn();
    server.use(http.get('*/hcs/controller/System/Current/User', () => fail(401, 'UNAUTHENTICATED', 'sign in')));
    const r = await renderApp('/personalFile');
    await waitFor(() => expect(r.nav).toHaveBeenCalledWith('/drive/login?redirect=%2F'));
  });
});

describe('issue #22 defects 5, 8 and 9 in the shell', () => {
  it('the capacity panel follows a delete without a reload', async () => {
    signIn();
    let usedGb = 2;
    server.use(
      http.get('*/hcs/controller/userCapacity/userCapInfo/:userId/:libCode', () =>
        ok({ isLimist: '1', totalSize: '10GB', usedSize: `${usedGb}GB`, totalBytes: 10 * 1024 ** 3, usedBytes: usedGb * 1024 ** 3 }),
      ),
      http.get('*/hcs/controller/Page', () =>
        ok({
          total: 1,
          pageNo: 1,
          pageSize: 20,
          nextCursor: null,
          parentId: 'root',
          breadcrumbs: [{ instanceId: 'root', instanceName: 'root' }],
          list: [{ instanceId: 'i1', instanceName: 'big.iso', classifierId: 'File', parentId: 'root', libCode: 'NetDisk', instanceType: '1', fSize: 1024 ** 3, fType: 'iso', fileType: 'iso', userId: 'u1', userName: 'alice', createTime: 1, updateTime: 1 }],
        }),
      ),
      http.get('*/hcs/controller/delete', () => {
        usedGb = 1;
        return ok({ done: [], failed: [] });
      }),
    );
    await renderApp('/personalFile');
    expect((await screen.findByTestId('capacity-text')).textContent).toBe('2GB / 10GB');
    fireEvent.click(await screen.findByTestId('row-delete-big.iso'));
    fireEvent.click(await screen.findByTestId('delete-confirm-ok'));
    await waitFor(() => expect(screen.getByTestId('capacity-text').textContent).toBe('1GB / 10GB'));
  });

  it('the client-tool button is there only when the server offers a tool', async () => {
    signIn();
    const first = await renderApp('/personalFile');
    await screen.findByTestId('upload-count');
    await waitFor(() => expect(screen.queryByTestId('client-tool')).toBeNull());
    first.unmount();
    server.use(http.get('*/hcs/services/API/getToolName', () => HttpResponse.json({ ret: 0, msg: '/hcs/services/API/agent/install?type=linux', data: null })));
    await renderApp('/personalFile');
    expect(await screen.findByTestId('client-tool')).toBeTruthy();
  });

  it('the header counters show each arrow beside its number, not under it', async () => {
    signIn();
    await renderApp('/personalFile');
    const up = await screen.findByTestId('upload-arrow');
    // Siblings in one counter: the badge no longer wraps (and covers) the arrow.
    expect(up.closest('.hcs-counter')!.querySelector('[data-testid="upload-count"]')).toBeTruthy();
    expect(screen.getByTestId('upload-count').contains(up)).toBe(false);
  });
});

