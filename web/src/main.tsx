// Start-up: (mock worker) -> HTTP hooks -> session snapshot -> language -> skin -> render.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router-dom';
import { getSystemLanguage } from './api/gen/session/session.ts';
import { initI18n, resolveLanguage } from './shared/i18n.ts';
import { installHttpHooks } from './app/http-hooks.ts';
import { createAppRouter } from './app/router.tsx';
import { Providers } from './app/providers.tsx';
import { DEFAULT_SKIN, getUserInfo, LANG_CHANGE_FLAG_KEY, restoreSnapshot } from './shared/session.ts';
import { loadSkin } from './app/skin.ts';

async function start() {
  if (__HCS_MOCK__) await (await import('./mocks/browser.ts')).startMockWorker();
  installHttpHooks();
  // The snapshot carries the current library, so a language reload (langChangeFlag) lands on the same library.
  restoreSnapshot();
  localStorage.removeItem(LANG_CHANGE_FLAG_KEY);
  const lang = await resolveLanguage(async () => (await getSystemLanguage()).data);
  await initI18n(lang);
  void loadSkin(getUserInfo()?.skin ?? DEFAULT_SKIN);
  const router = createAppRouter();
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <Providers>
        <RouterProvider router={router} />
      </Providers>
    </StrictMode>,
  );
}

start().catch((err: unknown) => {
  // Initialisation failed (spec 8): the fallback skin and an error page, never a blank screen.
  console.error(err);
  void loadSkin(DEFAULT_SKIN);
  const root = document.getElementById('root');
  if (root) root.innerHTML = '<div style="padding:48px;font:16px sans-serif">The drive could not start. 云盘启动失败。 <a href="/drive/">Retry / 重试</a></div>';
});
