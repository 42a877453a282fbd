// The organisation dialogs' validation (spec 5 style: antd Form rules, messages from the locale files): nothing
// invalid reaches the server, what is valid is sent as the contract says, and server refusals show by error code.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { constants, generateKeyPairSync, privateDecrypt, type KeyObject } from 'node:crypto';
import { fail, ok, renderInProviders } from '../../test/render-app.tsx';
import { fromWireBase64 } from '../../shared/wire-encoding.ts';
import type { DeptTreeNode } from '../../api/gen/model/deptTreeNode.ts';
import type { DeptInfo } from '../../api/gen/model/deptInfo.ts';
import { UserDialog } from './UserDialog.tsx';
import { DeptDialog } from './DeptDialog.tsx';
import { RoleDialog } from './RoleDialog.tsx';
import { PurgeDialog, ResetPasswordDialog } from './ActionDialogs.tsx';
import { ImportDialog } from './ImportDialog.tsx';
import { dayToExpiry, deptOptions, NEVER_EXPIRES } from './org-shared.ts';
import type { UserAdmin } from '../../api/gen/model/userAdmin.ts';

const server = setupServer();
let privateKey: KeyObject;
let publicPem: string;
const decrypt = (wire: string) =>
  privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(fromWireBase64(wire), 'base64')).toString();

/** Every body posted to an org or roles call, by path. */
let posted: { path: string; body: Record<string, unknown> }[] = [];

beforeAll(() => {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  privateKey = pair.privateKey;
  publicPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  server.listen({ onUnhandledFrame: 'error' });
});
afterAll(() => server.close());
beforeEach(() => {
  posted = [];
  server.resetHandlers(
    http.get('*/hcs/services/System/platformInfo', () =>
      ok({ platformId: 'NetDisk', publicKey: publicPem, passwordEncryption: 'RSA-OAEP-256', loginMethod: 'local', defaultLanguage: 'zh_CN', skin: 'redblack', version: 't' }),
    ),
    http.get('*/hcs/controller/Users/group/users', () => ok([{ userId: 'u-9', userName: 'bob', realName: 'Bob', deptId: 'root' }])),
    http.post('*/hcs/controller/*', async ({ request }) => {
      posted.push({ path: new URL(request.url).pathname, body: (await request.json()) as Record<string, unknown> });
      return ok({ id: 'd-new', done: [], failed: [] });
    }),
  );
});

const TREE: DeptTreeNode[] = [
  {
    id: 'root',
    name: 'root',
    parentId: null,
    sort: 0,
    children: [
      { id: 'sales', name: 'Sales', parentId: 'root', sort: 0, children: [{ id: 'east', name: 'East', parentId: 'sales', sort: 0, children: [] }] },
      { id: 'rd', name: 'R&D', parentId: 'root', sort: 1, children: [] },
    ],
  },
];
const type = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });
const noop = () => {};

describe('account dialog', () => {
  it('user name, password and confirmation are required, and nothing is sent', async () => {
    await renderInProviders(<UserDialog state={{ mode: 'create', deptId: 'sales' }} tree={TREE} onClose={noop} onSaved={noop} />);
    fireEvent.click(await screen.findByTestId('user-dialog-ok'));
    expect(await screen.findByText('Enter the user name')).toBeTruthy();
    expect(screen.getByText('Enter a password')).toBeTruthy();
    expect(screen.getByText('Enter the password again')).toBeTruthy();
    expect(posted).toEqual([]);
  });

  it('refuses a bad user name, a short or unmatched password, a bad e-mail and phone', async () => {
    await renderInProviders(<UserDialog state={{ mode: 'create', deptId: 'sales' }} tree={TREE} onClose={noop} onSaved={noop} />);
    await screen.findByTestId('user-form');
    type('user-name', 'bad name');
    type('user-password', 'Ab1!');
    type('user-confirm-password', 'Ab1!x');
    type('user-email', 'not-an-address');
    type('user-phone', 'call me');
    fireEvent.click(screen.getByTestId('user-dialog-ok'));
    expect(await screen.findByText('A user name has no spaces and none of \\ / : * ? " < > |')).toBeTruthy();
    expect(screen.getByText('The password needs at least 8 characters')).toBeTruthy();
    expect(screen.getByText('The two passwords do not match!')).toBeTruthy();
    expect(screen.getByText('Enter a valid e-mail address')).toBeTruthy();
    expect(screen.getByText('Enter a valid phone number')).toBeTruthy();
    expect(posted).toEqual([]);
  });

  it('the messages are Chinese in the Chinese UI', async () => {
    await renderInProviders(<UserDialog state={{ mode: 'create', deptId: 'sales' }} tree={TREE} onClose={noop} onSaved={noop} />, 'zh_CN');
    fireEvent.click(await screen.findByTestId('user-dialog-ok'));
    expect(await screen.findByText('请输入用户名')).toBeTruthy();
  });

  it('a valid new account is sent with its password encrypted, a forced change and no expiry', async () => {
    let saved = 0;
    await renderInProviders(<UserDialog state={{ mode: 'create', deptId: 'sales' }} tree={TREE} onClose={noop} onSaved={() => saved++} />);
    await screen.findByTestId('user-form');
    type('user-name', 'carol');
    type('user-real-name', 'Carol');
    type('user-password', 'Carol-pass1');
    type('user-confirm-password', 'Carol-pass1');
    fireEvent.click(screen.getByTestId('user-dialog-ok'));
    await waitFor(() => expect(saved).toBe(1));
    expect(posted).toHaveLength(1);
    const { path, body } = posted[0]!;
    expect(path).toBe('/hcs/controller/Users/setUserInfo');
    expect(body).toMatchObject({ userName: 'carol', realName: 'Carol', deptId: 'sales', mustChangePassword: true, userExpiredTime: NEVER_EXPIRES, userIsEnabled: 1, quotaBytes: null });
    expect(decrypt(String(body.password))).toBe('Carol-pass1');
  });

  it('a taken user name is shown by its code, in the dialog', async () => {
    server.use(http.post('*/hcs/controller/Users/setUserInfo', () => fail(409, 'NAME_EXISTS', 'taken')));
    await renderInProviders(<UserDialog state={{ mode: 'create', deptId: 'sales' }} tree={TREE} onClose={noop} onSaved={noop} />);
    await screen.findByTestId('user-form');
    type('user-name', 'carol');
    type('user-password', 'Carol-pass1');
    type('user-confirm-password', 'Carol-pass1');
    fireEvent.click(screen.getByTestId('user-dialog-ok'));
    const alert = await screen.findByTestId('user-dialog-error');
    expect(alert.textContent).toBe('The user name "carol" is taken (deleted accounts keep theirs until purged)');
  });

  it('an expiry day is the end of that day (UTC); empty is never', () => {
    expect(dayToExpiry('2030-05-01')).toBe(Date.UTC(2030, 4, 1, 23, 59, 59, 999));
    expect(dayToExpiry('')).toBe(NEVER_EXPIRES);
  });
});

describe('department dialog', () => {
  const sales: DeptInfo = {
    id: 'sales', name: 'Sales', parentId: 'root', sort: 0, path: ['root', 'sales'], pathNames: ['root', 'Sales'], childCount: 1, memberCount: 0,
    quotaBytes: null, usedBytes: 0, managers: [], allMemberCount: 0,
  };

  it('the name is required and follows the name rules', async () => {
    await renderInProviders(<DeptDialog state={{ mode: 'create', parentId: 'root' }} tree={TREE} onClose={noop} onSaved={noop} />);
    fireEvent.click(await screen.findByTestId('dept-dialog-ok'));
    expect(await screen.findByText('Enter the department name')).toBeTruthy();
    type('dept-name', 'a/b');
    fireEvent.click(screen.getByTestId('dept-dialog-ok'));
    await waitFor(() => expect(screen.queryByText('Enter the department name')).toBeNull());
    expect(screen.getByTestId('dept-form').querySelector('.ant-form-item-explain-error')?.textContent).toMatch(/\\/);
    expect(posted).toEqual([]);
  });

  it('a quota over the parent\'s remaining quota comes back as SPACE_NOT_ENOUGH and is shown localized', async () => {
    server.use(http.post('*/hcs/controller/sysGroup/setGroupInfo', () => fail(409, 'SPACE_NOT_ENOUGH', 'over the parent')));
    await renderInProviders(<DeptDialog state={{ mode: 'edit', dept: sales }} tree={TREE} onClose={noop} onSaved={noop} />, 'zh_CN');
    await screen.findByTestId('dept-form');
    fireEvent.change(screen.getByTestId('dept-quota'), { target: { value: '5' } });
    fireEvent.click(screen.getByTestId('dept-dialog-ok'));
    const alert = await screen.findByTestId('dept-dialog-error');
    expect(alert.textContent).not.toContain('over the parent');
    expect(alert.textContent).toContain('上级部门的剩余容量');
  });

  it('a department never moves under itself: it and its sub-departments are disabled in the picker', () => {
    const flat = (o: ReturnType<typeof deptOptions>): [string, boolean][] => o.flatMap((n) => [[n.value, n.disabled === true] as [string, boolean], ...flat(n.children)]);
    expect(flat(deptOptions(TREE, 'sales'))).toEqual([
      ['root', false],
      ['sales', true],
      ['east', true],
      ['rd', false],
    ]);
  });
});

describe('role dialog', () => {
  it('code and name are required, the code has a pattern, and a role needs an authority unless it denies', async () => {
    await renderInProviders(<RoleDialog state={{ mode: 'create' }} onClose={noop} onSaved={noop} />);
    await screen.findByTestId('role-form');
    fireEvent.click(screen.getByTestId('role-dialog-ok'));
    expect(await screen.findByText('Enter the role code')).toBeTruthy();
    expect(screen.getByText('Enter the role name')).toBeTruthy();
    type('role-code', '9lives');
    // Untick the preset "view": no authority at all.
    fireEvent.click(within(screen.getByTestId('role-authorities')).getByLabelText('View'));
    fireEvent.click(screen.getByTestId('role-dialog-ok'));
    expect(await screen.findByText('A letter, then letters, digits or _ (2 to 64 characters)')).toBeTruthy();
    expect(screen.getByText('Choose at least one authority, or make it a deny role')).toBeTruthy();
    expect(posted).toEqual([]);
  });

  it('a deny role is sent without authorities; an allow role with them in catalogue order', async () => {
    let saved = 0;
    await renderInProviders(<RoleDialog state={{ mode: 'create' }} onClose={noop} onSaved={() => saved++} />);
    await screen.findByTestId('role-form');
    type('role-code', 'auditor');
    type('role-name', '审计');
    const auths = within(screen.getByTestId('role-authorities'));
    fireEvent.click(auths.getByLabelText('Download'));
    fireEvent.click(auths.getByLabelText('Preview'));
    fireEvent.click(screen.getByTestId('role-dialog-ok'));
    await waitFor(() => expect(saved).toBe(1));
    expect(posted[0]).toMatchObject({ path: '/hcs/controller/SysRole/roleInfo', body: { roleCode: 'auditor', roleName: '审计', deny: false, authorities: ['view', 'preview', 'download'] } });
  });
});

describe('reset password and purge', () => {
  const bob = { userId: 'u-1', userName: 'bob' } as UserAdmin;

  it('reset: a weak password is refused before anything is sent', async () => {
    await renderInProviders(<ResetPasswordDialog user={bob} onClose={noop} onDone={noop} />);
    await screen.findByTestId('reset-password-form');
    type('reset-password', 'abcdefgh');
    type('reset-confirm', 'abcdefgh');
    fireEvent.click(screen.getByTestId('reset-password-form-ok'));
    expect(await screen.findByText('Too weak: combine upper- and lowercase letters, digits and symbols')).toBeTruthy();
    expect(posted).toEqual([]);
  });

  it('purge: a hand-over account is required unless the files go to the recycle bin', async () => {
    await renderInProviders(<PurgeDialog user={bob} onClose={noop} onDone={noop} />);
    await screen.findByTestId('purge-form');
    fireEvent.click(screen.getByTestId('purge-form-ok'));
    expect(await screen.findByText('Choose the account that receives the files')).toBeTruthy();
    expect(posted).toEqual([]);
    fireEvent.click(screen.getByLabelText("The administrators' recycle bin"));
    await waitFor(() => expect(screen.queryByTestId('purge-hand-over')).toBeNull());
    fireEvent.click(screen.getByTestId('purge-form-ok'));
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]).toEqual({ path: '/hcs/controller/Users/realDeleteUser', body: { userId: 'u-1' } });
  });
});

describe('CSV import', () => {
  it('sends the file as it is (text/csv, not a JSON string) and shows each failed row\'s reason by code', async () => {
    const csv = 'userName,password\ncarol,Carol-pass1\nbob,Bob-pass12\n';
    let sent: { type: string | null; body: string; deptId: string | null } | undefined;
    server.use(
      http.post('*/hcs/controller/Users/importUsers', async ({ request }) => {
        sent = { type: request.headers.get('content-type'), body: await request.text(), deptId: new URL(request.url).searchParams.get('deptId') };
        return ok({ created: 1, failed: 1, rows: [{ row: 2, userName: 'carol', status: 'created', userId: 'u-2' }, { row: 3, userName: 'bob', status: 'failed', code: 'NAME_EXISTS', message: 'taken' }] });
      }),
    );
    let imported = 0;
    await renderInProviders(<ImportDialog open deptId="sales" deptName="Sales" onClose={noop} onImported={() => imported++} />, 'zh_CN');
    fireEvent.change(await screen.findByTestId('import-file-input'), { target: { files: [new File([csv], 'a.csv', { type: 'text/csv' })] } });
    expect((await screen.findByTestId('import-summary')).textContent).toBe('成功 1 个，失败 1 个');
    expect(sent).toEqual({ type: 'text/csv', body: csv, deptId: 'sales' });
    expect(screen.getByTestId('import-reason-3').textContent).toBe('用户名“bob”已被占用（已删除的账号在彻底删除前仍占用其用户名）');
    expect(imported).toBe(1);
  });
});
