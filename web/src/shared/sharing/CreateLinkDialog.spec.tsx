// The create-link dialog asks checkDLP before creating a download link: a blocked share is not created, its hits
// are listed and it can be sent for approval (checkAuth with the items); a passing one is created with the form's
// settings and its code is shown once. A chosen code outside 4-8 letters or digits cannot be sent. Upload links
// skip the DLP check (nothing leaves through them).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { ok, renderInProviders } from '../../test/render-app.tsx';
import CreateLinkDialog from './CreateLinkDialog.tsx';

const server = setupServer();
let posted: { path: string; body: Record<string, unknown> }[] = [];
let verdict: unknown;
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

const share = (body: Record<string, unknown>) => ({
  shareId: 's1', link: 'L'.repeat(22), fullLink: `http://drive.test/drive/fileDownload?link=${'L'.repeat(22)}`, shareType: body.shareType, status: 'active',
  hasCode: true, code: 'ab12cd', expireTime: null, maxViews: null, maxDownloads: body.maxDownloads ?? null, viewCount: 0, downloadCount: 0,
  previewOnly: false, verifyCode: false, items: [], createTime: 0, userId: 'u', userName: 'u',
});

beforeEach(() => {
  posted = [];
  verdict = { pass: true, hits: [] };
  server.resetHandlers(
    http.post('*/hcs/controller/FileShare/checkDLP', async ({ request }) => {
      posted.push({ path: 'checkDLP', body: (await request.json()) as Record<string, unknown> });
      return ok(verdict);
    }),
    http.post('*/hcs/controller/FileShare/checkAuth', async ({ request }) => {
      posted.push({ path: 'checkAuth', body: (await request.json()) as Record<string, unknown> });
      return ok({ checkId: 'c1', status: 'pending' });
    }),
    http.post('*/hcs/controller/FileShare', async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      posted.push({ path: 'createShare', body });
      return ok(share(body));
    }),
  );
});

const file = { instanceId: 'f1', instanceName: 'plan.docx', classifierId: 'File' };
const folder = { instanceId: 'd1', instanceName: 'Inbox', classifierId: 'Folder' };
const noop = () => {};
const createButton = () => screen.getByRole('button', { name: 'Create link' });

describe('create-link dialog', () => {
  it('a share the DLP rules block is not created; its hits are listed and it can be sent for approval', async () => {
    verdict = { pass: false, hits: [{ instanceId: 'f1', instanceName: 'plan.docx', ruleId: 'r1', kind: 'keyword', value: 'plan' }] };
    await renderInProviders(<CreateLinkDialog items={[file]} onClose={noop} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Create link' }));
    expect(await screen.findByTestId('link-dlp-blocked')).toBeTruthy();
    expect(screen.getByText('plan.docx: Name keyword (plan)')).toBeTruthy();
    fireEvent.change(screen.getByPlaceholderText('Why is this share needed? (optional)'), { target: { value: 'customer' } });
    fireEvent.click(screen.getByTestId('link-request-approval'));
    await waitFor(() => expect(posted.map((p) => p.path)).toEqual(['checkDLP', 'checkAuth']));
    expect(posted[1]!.body).toEqual({ instanceIds: ['f1'], reason: 'customer' });
  });

  it('a passing share is created with the form\'s settings and shows the link and its code once', async () => {
    await renderInProviders(<CreateLinkDialog items={[file]} onClose={noop} />);
    fireEvent.change(await screen.findByTestId('link-max-downloads'), { target: { value: '1' } });
    fireEvent.click(createButton());
    expect(await screen.findByTestId('link-result')).toBeTruthy();
    expect(screen.getByTestId('link-code-shown').textContent).toBe('ab12cd');
    expect(posted.map((p) => p.path)).toEqual(['checkDLP', 'createShare']);
    expect(posted[1]!.body).toMatchObject({ instanceIds: ['f1'], shareType: 'download', generateCode: true, days: 7, maxDownloads: 1, previewOnly: false });
  });

  it('a chosen code must be 4 to 8 letters or digits before anything is sent', async () => {
    await renderInProviders(<CreateLinkDialog items={[file]} onClose={noop} />);
    fireEvent.click(await screen.findByLabelText('Choose a code'));
    fireEvent.change(screen.getByTestId('link-code'), { target: { value: 'ab!' } });
    expect(createButton().hasAttribute('disabled')).toBe(true);
    fireEvent.change(screen.getByTestId('link-code'), { target: { value: 'Ab12' } });
    expect(createButton().hasAttribute('disabled')).toBe(false);
    fireEvent.click(createButton());
    await waitFor(() => expect(posted.map((p) => p.path)).toEqual(['checkDLP', 'createShare']));
    expect(posted[1]!.body).toMatchObject({ code: 'Ab12' });
    expect(posted[1]!.body.generateCode).toBeUndefined();
  });

  it('an upload link into a folder skips the DLP check', async () => {
    await renderInProviders(<CreateLinkDialog items={[folder]} onClose={noop} />);
    fireEvent.click(await screen.findByText('Upload link'));
    fireEvent.click(createButton());
    await waitFor(() => expect(posted.map((p) => p.path)).toEqual(['createShare']));
    expect(posted[0]!.body).toMatchObject({ instanceIds: ['d1'], shareType: 'upload' });
  });

  it('reads Chinese in the Chinese UI', async () => {
    await renderInProviders(<CreateLinkDialog items={[file]} onClose={noop} />, 'zh_CN');
    expect(await screen.findByRole('button', { name: '创建链接' })).toBeTruthy();
    expect(screen.getByText('自动生成提取码')).toBeTruthy();
  });
});
