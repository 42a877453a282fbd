// /departmentManage as a department manager: the tree starts at the managed department and purge (administrators
// only) is not offered; a plain user gets the FORBIDDEN message instead of the screen.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { ok, renderInProviders } from '../../test/render-app.tsx';
import { setUserInfo } from '../../shared/session.ts';
import DepartmentManagePage from './DepartmentManagePage.tsx';

const server = setupServer();
const node = (id: string, name: string, parentId: string | null, children: unknown[] = []) => ({ id, name, parentId, sort: 0, memberCount: 1, children });
const deleted = { userId: 'u-1', userName: 'gone', realName: 'Gone', deptId: 'sales', deptPathNames: ['Company', 'Sales'], email: '', phone: '', isAdmin: false, userIsEnabled: 1, userExpiredTime: 1, quotaBytes: null, usedBytes: 0, mustChangePassword: false, labels: [], state: 'active', createTime: 1, updateTime: 1, deleteTime: 2, managedDeptIds: [] };

beforeAll(() => server.listen());
afterAll(() => server.close());
beforeEach(() => {
  server.resetHandlers(
    http.get('*/hcs/controller/sysGroup/treeGroup', () => ok([node('root', 'Company', null, [node('sales', 'Sales', 'root', [node('east', 'East', 'sales')]), node('ops', 'Ops', 'root')])])),
    http.get('*/hcs/controller/sysGroup/getGroupInfo', () => ok({ id: 'sales', name: 'Sales', parentId: 'root', sort: 0, quotaBytes: null, usedBytes: 0, managers: [], allMemberCount: 1 })),
    http.get('*/hcs/controller/Users/listByGroupId', () => ok({ list: [], total: 0, pageNo: 1, pageSize: 20 })),
    http.get('*/hcs/controller/Users/deletedUsers', () => ok({ list: [deleted], total: 1, pageNo: 1, pageSize: 20 })),
  );
});

const as = (isAdmin: boolean, managedDeptIds: string[]) =>
  setUserInfo({ userId: 'me', userName: 'me', userRealName: 'Me', userDeptId: 'sales', platformId: 'NetDisk', isAdmin, managedDeptIds, skin: 'redblack' });

describe('/departmentManage scoped to the caller', () => {
  it('shows a manager only the managed subtree and no purge', async () => {
    as(false, ['sales']);
    await renderInProviders(<DepartmentManagePage />);
    const tree = await screen.findByRole('tree');
    await within(tree).findByText('Sales');
    expect(within(tree).queryByText('Company')).toBeNull();
    expect(within(tree).queryByText('Ops')).toBeNull();
    (await screen.findByRole('tab', { name: /deleted/i })).click();
    await screen.findByTestId('user-restore-gone');
    expect(screen.queryByTestId('user-purge-gone')).toBeNull();
  });

  it('shows an administrator the whole organisation with purge', async () => {
    as(true, []);
    await renderInProviders(<DepartmentManagePage />);
    const tree = await screen.findByRole('tree');
    await within(tree).findByText('Ops');
    (await screen.findByRole('tab', { name: /deleted/i })).click();
    await screen.findByTestId('user-purge-gone');
  });

  it('refuses a plain user', async () => {
    as(false, []);
    await renderInProviders(<DepartmentManagePage />);
    expect((await screen.findByTestId('department-manage-forbidden')).textContent).toContain('You do not have permission');
  });
});
