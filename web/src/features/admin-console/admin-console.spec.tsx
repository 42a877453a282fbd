// The administration consoles against the contract (msw): a yes/no setting is edited with a switch and sent as
// "false"; the IP white list shows the caller's standing and a self-lockout refusal reads the IP_SELF_LOCKOUT message
// in Chinese; the log screen's export links carry the filters.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { fail, ok, renderInProviders, signIn } from '../../test/render-app.tsx';
import { mockUser } from '../../mocks/fixtures.ts';
import { reloadSessionFromStorage, userInfoFromServer, USER_INFO_KEY } from '../../shared/session.ts';
import { toastError } from '../../shared/notify.ts';
import type * as Notify from '../../shared/notify.ts';
import OtherConfigPage from './OtherConfigPage.tsx';
import IpWhiteListPage from './IpWhiteListPage.tsx';
import LogManagePage, { exportHref } from './LogManagePage.tsx';

vi.mock('../../shared/notify.ts', async (importOriginal) => {
  const real = await importOriginal<typeof Notify>();
  return { ...real, toastError: vi.fn(real.toastError) };
});

const server = setupServer();
let posted: { path: string; body: unknown }[] = [];
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

const hcd = { configKey: 'hcd_able', configValue: 'true', configType: 'boolean', description: 'HCD', builtin: true, publicRead: true, editIsDisabled: false, updateTime: 0 };

beforeEach(() => {
  posted = [];
  vi.mocked(toastError).mockClear();
  signIn();
  server.resetHandlers(
    http.get('*/hcs/controller/sysConfig/page', () => ok({ list: [hcd], total: 1, pageNo: 1, pageSize: 20 })),
    http.post('*/hcs/controller/sysConfig/updateConfigs', async ({ request }) => {
      const body = (await request.json()) as { configValue: string };
      posted.push({ path: 'updateConfigs', body });
      return ok({ ...hcd, configValue: body.configValue });
    }),
    http.get('*/hcs/controller/access/list', () => ok({ list: [], total: 0, pageNo: 1, pageSize: 20 })),
    http.get('*/hcs/controller/System/sso/access', () => ok({ ip: '10.0.0.5', allowed: true, consoleAllowed: true, enforced: true })),
    http.post('*/hcs/controller/access/addOrUpdate', async ({ request }) => {
      posted.push({ path: 'addOrUpdate', body: await request.json() });
      return fail(409, 'IP_SELF_LOCKOUT', 'locked out');
    }),
  );
});

describe('administration consoles', () => {
  it('a yes/no setting is switched off and sent as "false", with its built-in description translated', async () => {
    await renderInProviders(<OtherConfigPage />);
    expect(await screen.findByText('Desktop client allowed')).toBeTruthy();
    fireEvent.click(await screen.findByTestId('config-edit-hcd_able'));
    fireEvent.click(await screen.findByTestId('config-value'));
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(posted).toEqual([{ path: 'updateConfigs', body: { configKey: 'hcd_able', configValue: 'false', description: 'HCD' } }]));
  });

  it('shows where the administrator stands, and a self-lockout refusal in Chinese', async () => {
    await renderInProviders(<IpWhiteListPage />, 'zh_CN');
    expect(await screen.findByText('您的地址：10.0.0.5')).toBeTruthy();
    expect(screen.getByText('暂无条目：所有地址均可访问。')).toBeTruthy();
    fireEvent.click(screen.getByTestId('ip-add'));
    fireEvent.change(await screen.findByTestId('ip-value'), { target: { value: '192.168.0.0/16' } });
    fireEvent.click(screen.getByRole('button', { name: '保 存' }));
    await waitFor(() => expect(toastError).toHaveBeenCalledWith('保存后您将无法从当前地址访问管理功能，未做任何更改。'));
    expect(posted).toEqual([{ path: 'addOrUpdate', body: { ipValue: '192.168.0.0/16', targetType: 'all', targetId: '', scope: 'drive', enabled: true, remark: '' } }]);
  });

  it('an account that is not an administrator is told FORBIDDEN by code, and the screen asks the server nothing', async () => {
    localStorage.setItem(USER_INFO_KEY, JSON.stringify(userInfoFromServer({ ...mockUser, isAdmin: false })));
    reloadSessionFromStorage();
    const asked: string[] = [];
    const listen = ({ request }: { request: Request }) => void asked.push(new URL(request.url).pathname);
    server.events.on('request:start', listen);
    try {
      await renderInProviders(<LogManagePage />, 'zh_CN');
      expect((await screen.findByTestId('admin-console-forbidden')).textContent).toContain('没有权限执行此操作');
      expect(screen.queryByTestId('log-manage-page')).toBeNull();
      expect(asked.filter((p) => p.includes('sysOptLog'))).toEqual([]);
    } finally {
      server.events.removeListener('request:start', listen);
    }
  });

  it('export links carry the filters and the format, and leave empty filters out', () => {
    expect(exportHref({ userName: 'alice', optType: 'login', keyword: '', since: 1000 }, 'xlsx')).toBe(
      '/hcs/controller/System/downloadOptLog?format=xlsx&userName=alice&optType=login&since=1000',
    );
  });
});
