// A visitor's engine download asks the server for a counted grant before anything about the file, reads its ranges
// from the server's shareDownload stream with the token the page holds at that moment (a renewed token takes its
// own grant), and offers none of the upload calls.
import { beforeEach, describe, expect, it, vi } from 'vitest';

const calls: string[] = [];
vi.mock('../../api/gen/shares/shares.ts', () => ({
  triggerShareLimit: async (q: { instanceId: string }, o: { headers: { shareToken: string } }) => {
    calls.push(`grant ${q.instanceId} ${o.headers.shareToken}`);
    return { data: { instanceId: q.instanceId, url: `/hcs/services/ShareAPI/shareDownload?instanceId=${q.instanceId}&token=${o.headers.shareToken}`, expiresAt: 0, downloadsLeft: null } };
  },
  shareGetDownloadFileInfo: async (q: { instanceId: string }, o: { headers: { shareToken: string } }) => {
    calls.push(`info ${q.instanceId} ${o.headers.shareToken}`);
    return { data: { objectKey: 'k', bucketName: 'b', fileSize: 5, fMd5: 'a'.repeat(64), filename: 'x.bin', partSize: 0 } };
  },
}));

const { visitorControlPlane } = await import('./share-download.ts');

let token = 'tok1';
const call = <T,>(fn: (headers: { shareToken: string }) => Promise<T>): Promise<T> => fn({ shareToken: token });

beforeEach(() => {
  calls.length = 0;
  token = 'tok1';
});

describe('visitorControlPlane', () => {
  it('takes the grant before the file information', async () => {
    const info = await visitorControlPlane(call).getDownloadFileInfo({ instanceId: 'f1' });
    expect(info.fMd5).toBe('a'.repeat(64));
    expect(calls).toEqual(['grant f1 tok1', 'info f1 tok1']);
  });

  it('signs reads as the shareDownload stream under the current token, and nothing else', async () => {
    const cp = visitorControlPlane(call);
    const read = { httpVerb: 'GET' as const, bucketName: 'b', resourceUri: '/b/k', action: 'getObject' as const, fId: 'f1' };
    expect((await cp.signStorageRequest(read)).url).toBe(`${window.location.origin}/hcs/services/ShareAPI/shareDownload?instanceId=f1&token=tok1`);
    token = 'tok2';
    expect((await cp.signStorageRequest(read)).url).toContain('token=tok2');
    await expect(cp.signStorageRequest({ ...read, httpVerb: 'PUT', action: 'putObject' })).rejects.toThrow();
    await expect(cp.getFileUploadable({ fSize: 1, fName: 'x', fMd5: 'a'.repeat(64) })).rejects.toThrow();
  });
});
