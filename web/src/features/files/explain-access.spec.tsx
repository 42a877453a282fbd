// The properties dialog explains the caller's access to the item (SysRoleUser/explainAccess, issue #14): what they
// may do, what decided it and the grants met on the way up, nearest first, in the user's language.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/react';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import type { Instance } from '../../api/gen/model/instance.ts';
import type { AccessExplanation } from '../../api/gen/model/accessExplanation.ts';
import { fail, ok, renderInProviders } from '../../test/render-app.tsx';
import { PropertiesDialog } from './PropertiesDialog.tsx';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
let asked: URLSearchParams[] = [];
beforeEach(() => {
  asked = [];
});

const item: Instance = {
  instanceId: 'f1', instanceName: 'plan.txt', classifierId: 'File', parentId: 'd-root', libCode: 'NetDisk', instanceType: '3',
  fSize: 10, fType: 'txt', fileType: 'txt', userId: 'u1', userName: 'dave', createTime: 0, updateTime: 0,
};
const explanation: AccessExplanation = {
  userId: 'u1',
  userName: 'dave',
  instanceId: 'f1',
  allowed: ['view', 'preview'],
  denied: false,
  source: 'grant',
  chain: [
    { instanceId: 'sub', instanceName: 'Reports', grantId: 'g1', roleCode: 'reader', roleName: '阅读者', roleNameEn: 'Reader', subjectKind: 'user', subjectId: 'u1', subjectName: 'dave', deny: false, decisive: true },
    { instanceId: 'd-root', instanceName: 'R&D', grantId: 'g2', roleCode: 'operator', roleName: '操作者', roleNameEn: 'Operator', subjectKind: 'dept', subjectId: 'rd', subjectName: 'R&D', deny: false, decisive: false },
  ],
};
const handler = () =>
  http.get('*/hcs/controller/SysRoleUser/explainAccess', ({ request }) => {
    asked.push(new URL(request.url).searchParams);
    return ok(explanation);
  });

describe('explain access in the properties dialog', () => {
  it('asks only when opened, for the item, and shows the decision and the chain', async () => {
    server.resetHandlers(handler());
    await renderInProviders(<PropertiesDialog item={item} folderPath="/" onClose={() => {}} />);
    const button = await screen.findByTestId('explain-access');
    expect(asked).toEqual([]);
    fireEvent.click(button);
    const view = await screen.findByTestId('access-explanation');
    expect(asked.map((q) => q.get('instanceId'))).toEqual(['f1']);
    expect(within(view).getByTestId('access-allowed').textContent).toBe('ViewPreview');
    expect(within(view).getByTestId('access-source').textContent).toBe('The nearest grant');
    const rows = within(view).getByTestId('access-chain').querySelectorAll('tbody tr');
    expect([...rows].map((r) => r.textContent)).toEqual(['ReportsUser: daveReaderDecides', 'R&DDepartment: R&DOperatorOverridden by a nearer grant']);
  });

  it('in Chinese, with Chinese role names', async () => {
    server.resetHandlers(handler());
    await renderInProviders(<PropertiesDialog item={item} folderPath="/" onClose={() => {}} />, 'zh_CN');
    fireEvent.click(await screen.findByTestId('explain-access'));
    const view = await screen.findByTestId('access-explanation');
    expect(within(view).getByTestId('access-source').textContent).toBe('最近的授权');
    expect(within(view).getByTestId('access-chain').textContent).toContain('阅读者');
  });

  it('a refusal is said by its code, not the server\'s English', async () => {
    server.resetHandlers(http.get('*/hcs/controller/SysRoleUser/explainAccess', () => fail(403, 'FORBIDDEN', 'manage needed')));
    await renderInProviders(<PropertiesDialog item={item} folderPath="/" onClose={() => {}} />);
    fireEvent.click(await screen.findByTestId('explain-access'));
    const error = await screen.findByTestId('explain-access-error');
    expect(error.textContent).not.toContain('manage needed');
    expect(error.textContent?.length).toBeGreaterThan(0);
  });
});
