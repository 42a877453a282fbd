// The new-group dialog checks the contract's rules (GroupName, GroupDescription, GroupCapacity) before anything is
// sent, sends what is valid as the contract says, and shows a taken name by its code, in the user's language.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { fail, ok, renderInProviders } from '../../test/render-app.tsx';
import { NewGroupDialog } from './NewGroupDialog.tsx';
import { groupNameProblem } from './group-shared.ts';

const server = setupServer();
let posted: { path: string; body: Record<string, unknown> }[] = [];
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
beforeEach(() => {
  posted = [];
  server.resetHandlers(
    http.post('*/hcs/controller/*', async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      posted.push({ path: new URL(request.url).pathname, body });
      return ok({ groupId: 'g-1', groupName: body.groupName, description: '', capacity: null, usedSize: 0, ownerId: 'u', ownerName: 'u', memberCount: 1, createTime: 0, rootId: 'r', instanceType: '2' });
    }),
  );
});

const type = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });
const noop = () => {};

describe('new group dialog', () => {
  it('the name is required, and nothing is sent', async () => {
    await renderInProviders(<NewGroupDialog open onClose={noop} onCreated={noop} />);
    fireEvent.click(await screen.findByTestId('group-dialog-ok'));
    expect(await screen.findByText('Enter the group name')).toBeTruthy();
    expect(posted).toEqual([]);
  });

  it('refuses a name with path characters, a too long description and a capacity out of range', async () => {
    await renderInProviders(<NewGroupDialog open onClose={noop} onCreated={noop} />);
    await screen.findByTestId('group-form');
    type('group-name', 'a/b');
    type('group-description', 'x'.repeat(501));
    type('group-capacity', '2000000');
    fireEvent.click(screen.getByTestId('group-dialog-ok'));
    expect(await screen.findByText('A group name has no leading or trailing spaces and none of \\ [ ] / : * ? " < > |')).toBeTruthy();
    expect(screen.getByText('A description has at most 500 characters')).toBeTruthy();
    expect(screen.getByText('The capacity is between 0.001 GB and 1048576 GB')).toBeTruthy();
    expect(posted).toEqual([]);
  });

  it('the messages are Chinese in the Chinese UI', async () => {
    await renderInProviders(<NewGroupDialog open onClose={noop} onCreated={noop} />, 'zh_CN');
    fireEvent.click(await screen.findByTestId('group-dialog-ok'));
    expect(await screen.findByText('请输入群组名称')).toBeTruthy();
  });

  it('a valid group is sent with its capacity in bytes', async () => {
    let created = '';
    await renderInProviders(<NewGroupDialog open onClose={noop} onCreated={(g) => (created = g.groupId)} />);
    await screen.findByTestId('group-form');
    type('group-name', '项目组 A');
    type('group-description', 'Q3');
    type('group-capacity', '2');
    fireEvent.click(screen.getByTestId('group-dialog-ok'));
    await waitFor(() => expect(created).toBe('g-1'));
    expect(posted).toEqual([{ path: '/hcs/controller/groupFile/newGroup', body: { groupName: '项目组 A', description: 'Q3', capacity: 2 * 1024 ** 3 } }]);
  });

  it('a taken name is shown by its code as a group name, in the dialog', async () => {
    server.use(http.post('*/hcs/controller/*', () => fail(409, 'NAME_EXISTS', 'taken')));
    await renderInProviders(<NewGroupDialog open onClose={noop} onCreated={noop} />, 'zh_CN');
    await screen.findByTestId('group-form');
    type('group-name', '项目组');
    fireEvent.click(screen.getByTestId('group-dialog-ok'));
    expect((await screen.findByTestId('group-dialog-error')).textContent).toBe('已存在名为“项目组”的群组');
  });

  it('names follow GroupName: no surrounding spaces, at most 64 characters', () => {
    expect(groupNameProblem(' a')).toBe('invalid');
    expect(groupNameProblem('a'.repeat(65))).toBe('tooLong');
    expect(groupNameProblem('   ')).toBe('required');
    expect(groupNameProblem('团队')).toBeUndefined();
  });
});
