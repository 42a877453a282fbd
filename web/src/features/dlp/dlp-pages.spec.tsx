// The DLP screens against the contract (msw): an administrator adds a maximum-size rule written in MB and the rule is
// sent in bytes; a manager (here an administrator) approves a pending request with a comment (decideDlpCheck with its
// id), and the hits of a request are shown by rule kind; both screens read Chinese in the Chinese UI.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { ok, renderInProviders, signIn } from '../../test/render-app.tsx';
import DlpRulesPage from './DlpRulesPage.tsx';
import DlpApprovalsPage from './DlpApprovalsPage.tsx';

const server = setupServer();
let posted: { path: string; body: unknown }[] = [];
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
afterEach(() => localStorage.clear());

const check = {
  checkId: 'c1', status: 'pending', requesterId: 'u2', requesterName: 'alice', deptId: 'eng', deptName: 'Engineering', instanceIds: ['f1'],
  items: ['setup.exe'], hits: [{ instanceId: 'f1', instanceName: 'setup.exe', ruleId: 'r1', kind: 'extension', value: 'exe' }], reason: 'customer', comment: '', createTime: 0,
};

beforeEach(() => {
  posted = [];
  signIn();
  server.resetHandlers(
    http.get('*/hcs/controller/FileShare/dlpRule/page', () => ok({ list: [], total: 0, pageNo: 1, pageSize: 20 })),
    http.get('*/hcs/controller/FileShare/dlpCheck/page', () => ok({ list: [check], total: 1, pageNo: 1, pageSize: 20 })),
    http.post('*/hcs/controller/FileShare/:op/:verb', async ({ request, params }) => {
      const body = await request.json();
      posted.push({ path: `${String(params.op)}/${String(params.verb)}`, body });
      return ok(params.op === 'dlpRule' ? { ruleId: 'r9', kind: 'maxSize', value: '1048576', enabled: true, remark: '', updateTime: 0 } : { ...check, status: 'approved' });
    }),
  );
});

describe('DLP screens', () => {
  it('a maximum size is written in MB and sent in bytes', async () => {
    await renderInProviders(<DlpRulesPage />);
    fireEvent.click(await screen.findByTestId('dlp-rule-add'));
    fireEvent.mouseDown(within(screen.getByTestId('dlp-rule-kind')).getByRole('combobox'));
    fireEvent.click(await screen.findByTitle('Maximum size'));
    fireEvent.change(await screen.findByRole('spinbutton'), { target: { value: '1' } });
    fireEvent.click(screen.getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(posted).toEqual([{ path: 'dlpRule/save', body: { kind: 'maxSize', value: '1048576', enabled: true, remark: '' } }]));
  });

  it('a manager approves a pending request with a comment, and sees what the rules hit', async () => {
    await renderInProviders(<DlpApprovalsPage />);
    fireEvent.click(await screen.findByTestId('dlp-approve-c1'));
    fireEvent.change(await screen.findByPlaceholderText('Comment'), { target: { value: 'fine' } });
    fireEvent.click(screen.getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(posted).toEqual([{ path: 'dlpCheck/decide', body: { checkId: 'c1', approve: true, comment: 'fine' } }]));
    fireEvent.click(screen.getAllByRole('button', { name: /expand/i })[0]!);
    expect(await screen.findByText('setup.exe: Blocked extensions (exe)')).toBeTruthy();
  });

  it('reads Chinese in the Chinese UI', async () => {
    await renderInProviders(<DlpApprovalsPage />, 'zh_CN');
    expect(await screen.findByText('待我审批')).toBeTruthy();
    expect(await screen.findByText('待审批')).toBeTruthy();
  });
});
