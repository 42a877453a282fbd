// /mySharing against the contract's owner calls (msw): the owner's links are listed with their status and counters,
// the search sends the keyword, cancel sends the link's id to cancelShare, and the log drawer pages the link's share
// log; the page reads Chinese in the Chinese UI.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { ok, renderInProviders } from '../../test/render-app.tsx';
import MySharingPage from './MySharingPage.tsx';
import { MemoryRouter } from 'react-router-dom';

const server = setupServer();
let asked: { path: string; query: string; body?: unknown }[] = [];
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

const link = {
  shareId: 's1', link: 'L'.repeat(22), fullLink: 'http://drive.test/drive/fileDownload?link=LLLL', shareType: 'download', status: 'active', hasCode: true,
  expireTime: null, maxViews: null, maxDownloads: 3, viewCount: 2, downloadCount: 1, previewOnly: false, verifyCode: false,
  items: [{ instanceId: 'f1', instanceName: 'plan.docx', classifierId: 'File', fSize: 10 }], createTime: 0, userId: 'u', userName: 'u',
};

beforeEach(() => {
  asked = [];
  server.resetHandlers(
    http.get('*/hcs/controller/FileShare/page', ({ request }) => {
      asked.push({ path: 'page', query: new URL(request.url).search });
      return ok({ list: [link], total: 1, pageNo: 1, pageSize: 20 });
    }),
    http.post('*/hcs/controller/FileShare/cancelShare', async ({ request }) => {
      asked.push({ path: 'cancel', query: '', body: await request.json() });
      return ok({ done: ['s1'], failed: [] });
    }),
    http.get('*/hcs/controller/FileShare/shareLog', ({ request }) => {
      asked.push({ path: 'log', query: new URL(request.url).search });
      return ok({ list: [{ id: 'g1', shareId: 's1', optSubject: 'visitor', optType: 'download', optObj: 'f1', optObjName: 'plan.docx', optDevice: 'Chrome', ip: '203.0.113.9', createTime: 0 }], total: 1, pageNo: 1, pageSize: 20 });
    }),
  );
});

const render = (lang?: 'zh_CN') => renderInProviders(<MemoryRouter><MySharingPage /></MemoryRouter>, lang);

describe('/mySharing', () => {
  it('lists the links with status and counters, and searches by keyword', async () => {
    await render();
    const row = (await screen.findByTestId('link-row-s1')).closest('tr')!;
    expect(within(row).getByText('plan.docx')).toBeTruthy();
    expect(within(row).getByText('Active')).toBeTruthy();
    expect(within(row).getByText('1/3')).toBeTruthy();
    fireEvent.change(screen.getByPlaceholderText('Search by file name'), { target: { value: 'plan' } });
    fireEvent.keyDown(screen.getByPlaceholderText('Search by file name'), { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(asked.some((a) => a.path === 'page' && a.query.includes('keyword=plan'))).toBe(true));
  });

  it('cancels a link by its id after confirmation, and shows its share log', async () => {
    await render();
    const row = (await screen.findByTestId('link-row-s1')).closest('tr')!;
    fireEvent.click(within(row).getByText('Cancel link'));
    fireEvent.click(await screen.findByRole('button', { name: 'OK' }));
    await waitFor(() => expect(asked.find((a) => a.path === 'cancel')?.body).toEqual({ shareIds: ['s1'] }));
    fireEvent.click(screen.getByTestId('link-logs-s1'));
    expect(await screen.findByText('203.0.113.9')).toBeTruthy();
    expect(asked.find((a) => a.path === 'log')?.query).toContain('shareId=s1');
  });

  it('reads Chinese in the Chinese UI', async () => {
    await render('zh_CN');
    const row = (await screen.findByTestId('link-row-s1')).closest('tr')!;
    expect(within(row).getByText('有效')).toBeTruthy();
    expect(screen.getByText('分享审批')).toBeTruthy();
  });
});
