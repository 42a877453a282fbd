// Renders the real app (route table, layout, providers) at a path, against msw handlers, with hard navigations
// recorded instead of performed.
import type { ReactElement } from 'react';
import { render, type RenderResult } from '@testing-library/react';
import { RouterProvider } from 'react-router-dom';
import { setupServer } from 'msw/node';
import { http, HttpResponse, type RequestHandler } from 'msw';
import { vi } from 'vitest';
import { createQueryClient, Providers } from '../app/providers.tsx';
import { AntdRoot } from '../app/antd-root.tsx';
import { createTestRouter } from '../app/router.tsx';
import { initI18n, type Language } from '../shared/i18n.ts';
import { hardNav } from '../shared/navigation.ts';
import { installHttpHooks } from '../app/http-hooks.ts';
import { reloadSessionFromStorage, userInfoFromServer, USER_INFO_KEY } from '../shared/session.ts';
import { mockCapacity, mockLibs, mockSysMenu, mockUser } from '../mocks/fixtures.ts';

export const ok = (data: unknown) => HttpResponse.json({ ret: 0, msg: 'success', data });
export const fail = (status: number, code: string, msg: string) => HttpResponse.json({ ret: 1, msg, data: { code } }, { status });

/** Handlers for a signed-in shell; tests prepend their own with server.use(). */
export function shellHandlers(): RequestHandler[] {
  return [
    http.get('*/hcs/controller/System/Current/User', () => ok(mockUser)),
    http.get('*/hcs/controller/BusinessLibs', () => ok(mockLibs)),
    http.get('*/hcs/controller/BusinessLibs/Menus/sysConfig', () => ok(mockSysMenu)),
    http.get('*/hcs/controller/userCapacity/userCapInfo/:userId/:libCode', () => ok(mockCapacity)),
    http.get('*/hcs/controller/groupCapacity/groupCapInfo/:deptId/:libCode', () =>
      ok({ isLimist: '0', totalSize: '', usedSize: '5GB', totalBytes: null, usedBytes: 5 * 1024 ** 3 }),
    ),
    // Anything else a page asks for is not implemented, like a fresh server.
    http.all('*/hcs/*', () => fail(501, 'NOT_IMPLEMENTED', 'not implemented')),
  ];
}

export const server = setupServer();

export function signIn(): void {
  localStorage.setItem(USER_INFO_KEY, JSON.stringify(userInfoFromServer(mockUser)));
  reloadSessionFromStorage();
}

export async function renderApp(path: string, lang: Language = 'en_US'): Promise<RenderResult & { nav: ReturnType<typeof vi.fn>; router: ReturnType<typeof createTestRouter> }> {
  await initI18n(lang);
  installHttpHooks();
  const nav = vi.fn();
  hardNav.assign = nav;
  hardNav.reload = vi.fn();
  const router = createTestRouter(path);
  const result = render(
    <Providers queryClient={createQueryClient()}>
      <RouterProvider router={router} />
    </Providers>,
  );
  return Object.assign(result, { nav, router });
}

/**
 * One component in the app's providers, with the HTTP hooks and language of start-up: feature specs use it, since
 * features may not import the app's wiring themselves.
 */
export async function renderInProviders(ui: ReactElement, lang: Language = 'en_US'): Promise<RenderResult> {
  await initI18n(lang);
  installHttpHooks();
  return render(
    <Providers queryClient={createQueryClient()}>
      <AntdRoot>{ui}</AntdRoot>
    </Providers>,
  );
}
