// /departFile: the generic list on a department space (instanceType 3). The caller's own department comes first, the
// switcher lists every department they reach (getNPDept), the choice lives in the URL, another department starts at
// its own root, and a department they cannot reach is refused rather than swapped silently.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { http } from 'msw';
import { ok, renderApp, server, shellHandlers, signIn } from '../../test/render-app.tsx';
import { clearSession } from '../../shared/session.ts';
import { mockUser } from '../../mocks/fixtures.ts';

const DEPTS = [
  { id: 'root', name: 'root', path: ['root'], pathNames: ['root'], via: 'member' },
  { id: mockUser.userDeptId, name: 'Sales', path: ['root', mockUser.userDeptId], pathNames: ['root', 'Sales'], via: 'member' },
];
let listed: URLSearchParams[] = [];

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  clearSession();
  listed = [];
  server.resetHandlers(
    http.get('*/hcs/controller/sysGroup/getNPDept', () => ok(DEPTS)),
    http.get('*/hcs/controller/Page', ({ request }) => {
      const q = new URL(request.url).searchParams;
      listed.push(q);
      const dept = q.get('deptId') ?? 'folder';
      return ok({ total: 0, pageNo: 1, pageSize: 20, list: [], parentId: `space-${dept}`, breadcrumbs: [{ instanceId: `space-${dept}`, instanceName: dept }] });
    }),
    ...shellHandlers(),
  );
  signIn();
});

const location = (r: { router: { state: { location: { search: string } } } }) => new URLSearchParams(r.router.state.location.search);

describe('department files', () => {
  it("lists the caller's own department's space first, by deptId, named after the department", async () => {
    const r = await renderApp('/departFile');
    await waitFor(() => expect(location(r).get('dept')).toBe(mockUser.userDeptId));
    await waitFor(() => expect(listed.some((q) => q.get('deptId') === mockUser.userDeptId && q.get('instanceType') === '3')).toBe(true));
    expect(await screen.findByTestId('breadcrumbs')).toBeTruthy();
    expect(screen.getByTestId('breadcrumbs').textContent).toBe('Sales');
  });

  it('switching department starts at its root: the folder of the other one is dropped', async () => {
    const r = await renderApp(`/departFile?dept=${mockUser.userDeptId}&folder=f-9`);
    await screen.findByTestId('dept-switcher');
    fireEvent.mouseDown(screen.getByTestId('dept-switcher').querySelector('.ant-select-selector') ?? screen.getByTestId('dept-switcher'));
    fireEvent.click(await screen.findByText('Company', { selector: '.ant-select-item-option-content' }));
    await waitFor(() => expect(location(r).get('dept')).toBe('root'));
    expect(location(r).get('folder')).toBeNull();
    await waitFor(() => expect(listed.at(-1)?.get('deptId')).toBe('root'));
  });

  it('a department the caller cannot reach is refused, and nothing of it is asked for', async () => {
    await renderApp('/departFile?dept=elsewhere');
    expect((await screen.findByTestId('dept-files-refused')).textContent).toContain("You cannot open this department's files.");
    expect(listed.filter((q) => q.get('deptId') === 'elsewhere')).toEqual([]);
  });
});
