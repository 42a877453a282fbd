// The administrators' banner for configuration problems the server noticed (System/warnings): shown to
// administrators in both languages, never asked for on behalf of other users.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { http } from 'msw';
import { ok, renderApp, server, shellHandlers } from '../../test/render-app.tsx';
import { clearSession, reloadSessionFromStorage, userInfoFromServer, USER_INFO_KEY } from '../../shared/session.ts';
import { mockUser } from '../../mocks/fixtures.ts';

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

let asked = 0;
beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  clearSession();
  asked = 0;
  server.resetHandlers(
    http.get('*/hcs/controller/System/warnings', () => {
      asked++;
      return ok([{ code: 'UNTRUSTED_PROXY', since: 1, peerIp: '10.0.0.5' }]);
    }),
    ...shellHandlers(),
  );
});

function signInAs(isAdmin: boolean): void {
  localStorage.setItem(USER_INFO_KEY, JSON.stringify(userInfoFromServer({ ...mockUser, isAdmin })));
  reloadSessionFromStorage();
}

describe('system warnings banner', () => {
  it('tells an administrator that requests come through a proxy the server does not trust', async () => {
    signInAs(true);
    await renderApp('/personalFile');
    const banner = await screen.findByTestId('system-warning-UNTRUSTED_PROXY');
    expect(banner.textContent).toContain('HCS_TRUST_PROXY');
    expect(banner.textContent).toContain('10.0.0.5');
    expect(banner.textContent).toContain('through a proxy');
  });

  it('in Chinese for a zh_CN administrator', async () => {
    signInAs(true);
    await renderApp('/personalFile', 'zh_CN');
    const banner = await screen.findByTestId('system-warning-UNTRUSTED_PROXY');
    expect(banner.textContent).toContain('代理');
    expect(banner.textContent).toContain('HCS_TRUST_PROXY');
  });

  it('is neither asked for nor shown for other users', async () => {
    signInAs(false);
    server.use(http.get('*/hcs/controller/System/Current/User', () => ok({ ...mockUser, isAdmin: false })));
    await renderApp('/personalFile');
    await screen.findByTestId('app-header');
    await waitFor(() => expect(screen.getByTestId('capacity-panel')).toBeTruthy());
    expect(asked).toBe(0);
    expect(screen.queryByTestId('system-warnings')).toBeNull();
  });
});
