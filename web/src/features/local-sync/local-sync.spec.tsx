// /localSync and the pull-sync dialog (issue #20, spec: the form's userName, pass, checkPass and their messages): the
// state the server reports, the spec's validation messages in Chinese, the password sent RSA-encrypted, a refusal by
// the other server read by its code in the user's language, and a running pull followed until it ends.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { generateKeyPairSync, privateDecrypt, constants, type KeyObject } from 'node:crypto';
import { fail, ok, renderApp, server, shellHandlers, signIn } from '../../test/render-app.tsx';
import { clearSession } from '../../shared/session.ts';
import { fromWireBase64 } from '../../shared/wire-encoding.ts';

let privateKey: KeyObject;
let publicPem: string;

const decrypt = (wire: string) =>
  privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(fromWireBase64(wire), 'base64')).toString();

const pull = (over: Record<string, unknown> = {}) => ({
  pullId: 'p1', state: 2, syncType: 'personal', serverUrl: 'https://old.example', remoteUser: 'olduser', groupName: null,
  files: 3, skipped: 1, failed: 0, bytes: 2048, error: null, createdAt: 1, finishedAt: 2, ...over,
});

beforeAll(() => {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  privateKey = pair.privateKey;
  publicPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  server.listen({ onUnhandledFrame: 'error' });
});
afterAll(() => server.close());

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  clearSession();
  server.resetHandlers(
    http.get('*/hcs/services/System/platformInfo', () =>
      ok({ platformId: 'NetDisk', publicKey: publicPem, passwordEncryption: 'RSA-OAEP-256', loginMethod: 'local', defaultLanguage: 'zh_CN', skin: 'redblack', version: 't' }),
    ),
    ...shellHandlers(),
  );
  signIn();
});

async function openDialog(which: 'pull-personal' | 'pull-group-files') {
  fireEvent.click(await screen.findByTestId(which));
  return screen.findByTestId('pull-sync-form');
}

describe('/localSync', () => {
  it('never synced: state 0 asks to pick personal or group files; the dialog validates with the spec\'s messages', async () => {
    server.use(http.get('*/hcs/controller/System/pullSync/status', () => ok(null)));
    await renderApp('/localSync', 'zh_CN');
    // The first render loads the screen's chunk and antd's form: more than findBy's default second on a busy machine.
    expect((await screen.findByTestId('pull-state', {}, { timeout: 10_000 })).getAttribute('data-state')).toBe('0');
    expect(screen.getByText('请先选择要同步的内容：个人文件或群组文件。')).toBeTruthy();
    const form = await openDialog('pull-personal');
    fireEvent.submit(form);
    expect(await within(form).findByText('请输入用户名')).toBeTruthy();
    expect(within(form).getByText('请输入密码')).toBeTruthy();
    expect(within(form).getByText('请再次输入密码')).toBeTruthy();
    expect(within(form).getByText('请输入服务器地址')).toBeTruthy();
    fireEvent.change(screen.getByTestId('pull-pass'), { target: { value: 'one-password' } });
    fireEvent.change(screen.getByTestId('pull-check-pass'), { target: { value: 'another-one' } });
    expect(await within(form).findByText('两次输入密码不一致!')).toBeTruthy();
  });

  it('sends the password encrypted; a refusal by the other server is read by its code, in Chinese', async () => {
    let sent: Record<string, string> = {};
    server.use(
      http.get('*/hcs/controller/System/pullSync/status', () => ok(null)),
      http.post('*/hcs/controller/System/oneDiskSync', async ({ request }) => {
        sent = (await request.json()) as Record<string, string>;
        return fail(422, 'REMOTE_LOGIN_FAILED', 'the other drive server refused the user name or password');
      }),
    );
    await renderApp('/localSync', 'zh_CN');
    await openDialog('pull-personal');
    fireEvent.change(screen.getByTestId('pull-server'), { target: { value: 'https://old.example' } });
    fireEvent.change(screen.getByTestId('pull-user'), { target: { value: 'olduser' } });
    fireEvent.change(screen.getByTestId('pull-pass'), { target: { value: 'Old#pass-1' } });
    fireEvent.change(screen.getByTestId('pull-check-pass'), { target: { value: 'Old#pass-1' } });
    fireEvent.submit(screen.getByTestId('pull-sync-form'));
    expect((await screen.findByTestId('pull-failed')).textContent).toContain('另一台网盘服务器拒绝了该用户名或密码');
    expect(screen.getByTestId('pull-failed').textContent).not.toContain('refused');
    expect(sent).toMatchObject({ serverUrl: 'https://old.example', userName: 'olduser', syncType: 'personal' });
    expect(sent.password).not.toContain('Old#pass-1');
    expect(decrypt(sent.password!)).toBe('Old#pass-1');
  });

  it('a started pull is followed until it ends, with its counts', async () => {
    let state = 3;
    server.use(
      http.get('*/hcs/controller/System/pullSync/status', () => ok(pull({ state, files: state === 3 ? 1 : 3, finishedAt: state === 3 ? null : 2 }))),
    );
    await renderApp('/localSync', 'en_US');
    expect((await screen.findByTestId('pull-state')).textContent).toBe('In progress');
    expect((screen.getByTestId('pull-personal') as HTMLButtonElement).disabled).toBe(true);
    state = 2;
    await waitFor(() => expect(screen.getByTestId('pull-state').textContent).toBe('Synchronised'), { timeout: 5000 });
    expect(screen.getByTestId('pull-progress').textContent).toBe('3 files imported (2.00KB), 1 already here, 0 failed');
  });

  it('a failed pull says why by its code', async () => {
    server.use(http.get('*/hcs/controller/System/pullSync/status', () => ok(pull({ state: 1, error: 'SPACE_NOT_ENOUGH: not enough space: 10 bytes needed, 0 free' }))));
    await renderApp('/localSync', 'zh_CN');
    expect((await screen.findByTestId('pull-error')).textContent).toBe('同步未完成：存储空间不足');
  });
});
