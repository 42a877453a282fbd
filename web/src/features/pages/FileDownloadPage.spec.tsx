// The public /fileDownload page against the contract's visitor calls (msw): a malformed link is refused without a
// call; the code form shows a wrong code by its code's message and asks for the CAPTCHA when the server wants it;
// the right code opens the list, and each download asks triggerShareLimit with the visitor token (a used-up limit
// is said, in the user's language); a cancelled link reveals nothing; a token the server stops accepting is traded
// again with the typed code, at most 3 times in a row, then the page asks to reload; a folder downloads as the
// server's zip (shareGetZipDownloadUrl with the visitor token), said in the user's language.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { http } from 'msw';
import { fail, ok, renderApp, server, shellHandlers } from '../../test/render-app.tsx';

const LINK = 'AbCdEfGhIjKlMnOp1234';
const items = [
  { instanceId: 'f1', instanceName: 'report.pdf', classifierId: 'File', fSize: 2048 },
  { instanceId: 'd1', instanceName: 'Photos', classifierId: 'Folder', fSize: 0 },
];
const visitor = (token: string) => ({ token, expiresAt: Date.now() + 3600_000, shareType: 'download', previewOnly: false, items, userName: 'alice', expireTime: null, downloadsLeft: 1 });

let logins: Record<string, unknown>[] = [];
let grants: (string | null)[] = [];
let tokenValid: (t: string | null) => boolean;
let downloadsLeft = 1;

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
afterEach(() => {
  server.resetHandlers();
  sessionStorage.clear();
});
beforeEach(() => {
  logins = [];
  grants = [];
  downloadsLeft = 1;
  tokenValid = () => true;
  let n = 0;
  server.resetHandlers(
    http.get('*/hcs/services/FileShare/checklink', () => ok({ shareType: 'download', needCode: true, needVerifyCode: false })),
    http.post('*/hcs/services/FileShare/loginShare', async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      logins.push(body);
      if (body.code !== 'ab12') return fail(403, 'SHARE_CODE_WRONG', 'wrong code');
      return ok(visitor(`tok${++n}`));
    }),
    http.post('*/hcs/services/ShareAPI/triggerShareLimit', ({ request }) => {
      const token = request.headers.get('shareToken');
      grants.push(token);
      if (!tokenValid(token)) return fail(401, 'SHARE_TOKEN_INVALID', 'bad token');
      if (downloadsLeft === 0) return fail(410, 'SHARE_LIMIT_REACHED', 'used up');
      downloadsLeft -= 1;
      return ok({ instanceId: 'f1', url: '/hcs/services/ShareAPI/shareDownload?instanceId=f1&token=x', expiresAt: Date.now() + 60_000, downloadsLeft });
    }),
    ...shellHandlers(),
  );
});

const enter = (code: string) => {
  fireEvent.change(screen.getByTestId('share-code'), { target: { value: code } });
  fireEvent.click(screen.getByTestId('share-open'));
};

describe('/fileDownload', () => {
  it('refuses a malformed link without asking the server', async () => {
    await renderApp('/fileDownload?link=abc');
    expect(await screen.findByTestId('share-invalid')).toBeTruthy();
    expect(screen.queryByTestId('app-header')).toBeNull();
  });

  it('a wrong code is said, the right one opens the list; one download, then the limit is said', async () => {
    await renderApp(`/fileDownload?link=${LINK}`);
    await screen.findByTestId('share-code');
    enter('zzzz');
    expect((await screen.findByTestId('share-code-error')).textContent).toContain('The extraction code is wrong.');
    enter('ab12');
    expect(await screen.findByTestId('share-item-report.pdf')).toBeTruthy();
    expect(screen.getByTestId('share-facts').textContent).toContain('Shared by alice');
    expect(logins.map((l) => l.code)).toEqual(['zzzz', 'ab12']);

    fireEvent.click(screen.getByTestId('share-download-report.pdf'));
    await waitFor(() => expect(screen.getByTestId('share-notice').textContent).toContain('Download started'));
    fireEvent.click(screen.getByTestId('share-download-report.pdf'));
    await waitFor(() => expect(screen.getByTestId('share-notice').textContent).toContain('This share link has no views or downloads left.'));
    expect(grants).toEqual(['tok1', 'tok1']);
  });

  it('downloads a folder as the server\'s zip with the visitor token, said in Chinese too', async () => {
    const zips: { token: string | null; body: unknown }[] = [];
    server.use(
      http.post('*/hcs/services/ShareAPI/zipDownloadUrl', async ({ request }) => {
        zips.push({ token: request.headers.get('shareToken'), body: await request.json() });
        return ok({ url: '/hcs/services/ShareAPI/zip/t1', expiresAt: Date.now() + 60_000, downloadsLeft: 0 });
      }),
      // The page hands the zip's URL to the browser: answered here so jsdom's navigation goes nowhere.
      http.get('*/hcs/services/ShareAPI/zip/t1', () => new Response('PK', { headers: { 'content-type': 'application/zip' } })),
    );
    await renderApp(`/fileDownload?link=${LINK}`, 'zh_CN');
    await screen.findByTestId('share-code');
    enter('ab12');
    fireEvent.click(await screen.findByTestId('share-download-Photos'));
    await waitFor(() => expect(screen.getByTestId('share-notice').textContent).toContain('正在打包下载 Photos.zip'));
    expect(screen.getByTestId('share-notice').textContent).toContain('剩余下载次数：0');
    expect(zips).toEqual([{ token: 'tok1', body: { instanceIds: ['d1'] } }]);
    expect(grants).toEqual([]);
  });

  it('asks for the CAPTCHA once the server wants it', async () => {
    server.use(
      http.post('*/hcs/services/FileShare/loginShare', () => fail(401, 'CAPTCHA_REQUIRED', 'captcha')),
      http.get('*/hcs/services/FileShare/verifyCode/:id', () => ok({ captchaId: 'c1', image: 'data:image/svg+xml;base64,PHN2Zy8+', expiresAt: Date.now() + 60_000 })),
    );
    await renderApp(`/fileDownload?link=${LINK}`);
    await screen.findByTestId('share-code');
    enter('ab12');
    expect(await screen.findByTestId('share-captcha-image')).toBeTruthy();
    expect(screen.getByTestId('share-captcha')).toBeTruthy();
  });

  it('a cancelled link reveals nothing', async () => {
    server.use(http.get('*/hcs/services/FileShare/checklink', () => fail(410, 'SHARE_CANCELLED', 'cancelled')));
    await renderApp(`/fileDownload?link=${LINK}`);
    expect((await screen.findByTestId('share-gone')).textContent).toContain('The owner cancelled this share.');
    expect(screen.queryByTestId('share-code')).toBeNull();
  });

  it('re-logs in with the typed code when the token stops working, at most 3 times in a row', async () => {
    await renderApp(`/fileDownload?link=${LINK}`);
    await screen.findByTestId('share-code');
    enter('ab12');
    await screen.findByTestId('share-item-report.pdf');
    // The first token dies: the page trades the code again and the download goes on with the new token.
    tokenValid = (t) => t !== 'tok1';
    fireEvent.click(screen.getByTestId('share-download-report.pdf'));
    await waitFor(() => expect(screen.getByTestId('share-notice').textContent).toContain('Download started'));
    expect(grants).toEqual(['tok1', 'tok2']);
    expect(logins.filter((l) => l.code === 'ab12')).toHaveLength(2);
    // No token works any more: 3 re-logins, then the page asks to reload.
    tokenValid = () => false;
    fireEvent.click(screen.getByTestId('share-download-report.pdf'));
    expect(await screen.findByTestId('share-tries')).toBeTruthy();
    expect(logins.filter((l) => l.code === 'ab12')).toHaveLength(5);
  });

  it('a server without public links says "not available"', async () => {
    server.resetHandlers(...shellHandlers());
    await renderApp(`/fileDownload?link=${LINK}`);
    expect(await screen.findByText('Not available on this server')).toBeTruthy();
  });
});
