// The share dialog asks for a recipient and a share role before anything is sent, in the user's language, and offers
// the share roles by their names in that language.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen } from '@testing-library/react';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { ok, renderInProviders } from '../test/render-app.tsx';
import { roleLabel, ShareDialog } from './ShareDialog.tsx';

const server = setupServer();
let posted: string[] = [];
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
beforeEach(() => {
  posted = [];
  server.resetHandlers(
    http.get('*/hcs/controller/SysRole/fileSharingRoleList', () => ok([])),
    http.get('*/hcs/controller/Users/group/users', () => ok([])),
    http.post('*/hcs/controller/*', ({ request }) => {
      posted.push(new URL(request.url).pathname);
      return ok({});
    }),
  );
});

const item = { instanceId: 'i-1', instanceName: 'plans' };
const noop = () => {};

describe('share dialog', () => {
  it('asks for a recipient first, and sends nothing', async () => {
    await renderInProviders(<ShareDialog item={item} onClose={noop} />);
    fireEvent.click(await screen.findByTestId('share-dialog-ok'));
    expect(await screen.findByText('Choose at least one recipient')).toBeTruthy();
    expect(screen.getByText('Share "plans" with colleagues')).toBeTruthy();
    expect(posted).toEqual([]);
  });

  it('says so in Chinese in the Chinese UI', async () => {
    await renderInProviders(<ShareDialog item={item} onClose={noop} />, 'zh_CN');
    fireEvent.click(await screen.findByTestId('share-dialog-ok'));
    expect(await screen.findByText('请至少选择一个共享对象')).toBeTruthy();
    expect(screen.getByText('共享“plans”给同事')).toBeTruthy();
    expect(posted).toEqual([]);
  });

  it('names a role in the reader\'s language', () => {
    const role = { roleName: '群组共享阅读者', roleNameEn: 'Group share reader' };
    expect(roleLabel(role, 'zh_CN')).toBe('群组共享阅读者');
    expect(roleLabel(role, 'en_US')).toBe('Group share reader');
  });
});
