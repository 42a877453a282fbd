// `drive share link|ls|rm|log`, `drive fetch` and `drive put` (issue #17 part 2) through the CLI against the real
// server: a link with a code, limits and an expiry; the list and the log; a visitor's fetch of a folder link (every
// file verified, a wrong code refused with exit 5, resuming an interrupted file); a visitor's put into an upload
// link; removing a link stops it at once; usage errors exit 2.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';
import { makeUser, mkdir, type TestUser } from '../helpers/org.ts';
import { uploadFile, type ApiCall } from '../helpers/upload.ts';
import { cliEnv, driveRunner } from '../helpers/drive-cli.ts';

let srv: TestServer;
let work: string;
let alice: TestUser;
const drive = driveRunner(() => cliEnv(srv, work));
/** A visitor: no session at all. */
const visitor = (args: string[]) => drive(args, { token: '' });
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const call = (u: TestUser): ApiCall => (path, query, body) => u.api(path, query, body);
const big = randomBytes(20 * 1024 * 1024 + 123); // three 8 MiB parts
const small = randomBytes(1000);

describe('drive share link, ls, rm, log, fetch and put', () => {
  let reports: string;
  beforeAll(async () => {
    srv = await startServer();
    work = mkdtempSync(join(tmpdir(), 'hcs-links-cli-'));
    alice = await makeUser(srv, 'alice', null);
    reports = await mkdir(alice, 'reports');
    const q = await mkdir(alice, 'q1', reports);
    await uploadFile(call(alice), 'big.bin', big, { query: { parentId: reports } });
    await uploadFile(call(alice), 'small.txt', small, { query: { parentId: q } });
    await mkdir(alice, 'inbox');
  }, 120_000);

  afterAll(async () => {
    await srv?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('share link prints the link and its code; ls lists it; fetch downloads the folder, every file verified', async () => {
    const made = await drive(['share', 'link', '/reports', '--code', 'Pa55', '--days', '3', '--max-downloads', '5'], { token: alice.token });
    expect(made.code, made.stderr).toBe(0);
    const l = made.json[0]!;
    expect(l).toMatchObject({ event: 'link', path: '/reports', type: 'download', code: 'Pa55', maxDownloads: 5, hasCode: true, items: ['reports'] });
    expect(l.link).toMatch(new RegExp(`^${srv.baseUrl}/drive/fileDownload\\?link=[A-Za-z0-9_-]{22}$`));
    const human = await drive(['share', 'link', '/reports', '--max-views', '2'], { token: alice.token, json: false });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^http.*fileDownload\?link=.*\ncode: [a-z2-9]{6}\n/);

    const ls = await drive(['share', 'ls'], { token: alice.token });
    expect(ls.json.map((x) => x.shareId)).toContain(l.shareId);

    const out = join(work, 'got');
    const wrong = await visitor(['fetch', l.link, '--code', 'nope', '--out', out]);
    expect(wrong.code).toBe(5);
    expect(wrong.json.at(-1)).toMatchObject({ event: 'error', code: 'SHARE_CODE_WRONG' });
    const got = await visitor(['fetch', l.link, '--code', 'Pa55', '--out', out]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.json.filter((e) => e.event === 'file-done').map((e) => e.sha256).sort()).toEqual([sha(big), sha(small)].sort());
    expect(readFileSync(join(out, 'reports', 'big.bin')).equals(big)).toBe(true);
    expect(readFileSync(join(out, 'reports', 'q1', 'small.txt')).equals(small)).toBe(true);

    const log = await drive(['share', 'log', l.shareId], { token: alice.token });
    expect(log.json.map((x) => x.type)).toEqual(expect.arrayContaining(['codeWrong', 'codeRight', 'download']));
    expect(log.json.filter((x) => x.type === 'download').map((x) => x.name).sort()).toEqual(['big.bin', 'small.txt']);
  }, 120_000);

  it('fetch resumes an interrupted file from the parts it kept and still verifies it', async () => {
    const made = await drive(['share', 'link', '/reports', '--code', 'res1'], { token: alice.token });
    const link = made.json[0]!.link as string;
    const out = join(work, 'resume');
    // A first run that was cut off: the engine's record says part 1 is done, and the .part file holds it.
    const first = await visitor(['fetch', link, '--code', 'res1', '--out', out]);
    expect(first.code, first.stderr).toBe(0);
    const dest = join(out, 'reports', 'big.bin');
    rmSync(dest);
    const part = Buffer.alloc(big.length);
    big.copy(part, 0, 0, 8 * 1024 * 1024);
    writeFileSync(`${dest}.part`, part);
    const key = new URL(link).searchParams.get('link');
    const infoId = (await srv.sql.get('SELECT id FROM instances WHERE name = ?', 'big.bin')) as { id: string };
    writeFileSync(join(work, 'state', `fetch-${key}.json`), JSON.stringify({ [`download:${infoId.id}`]: { v: 1, instanceId: infoId.id, fMd5: sha(big), fileSize: big.length, partSize: 8 * 1024 * 1024, name: 'big.bin', done: [1] } }));
    const again = await visitor(['fetch', link, '--code', 'res1', '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(dest).equals(big)).toBe(true);
    // Kept parts are trusted for speed and checked by the final hash: a damaged kept part fails the file (exit 1)
    // and is thrown away, so the next run fetches it whole and succeeds.
    rmSync(dest);
    writeFileSync(`${dest}.part`, randomBytes(big.length));
    writeFileSync(join(work, 'state', `fetch-${key}.json`), JSON.stringify({ [`download:${infoId.id}`]: { v: 1, instanceId: infoId.id, fMd5: sha(big), fileSize: big.length, partSize: 8 * 1024 * 1024, name: 'big.bin', done: [1] } }));
    const damaged = await visitor(['fetch', link, '--code', 'res1', '--out', out]);
    expect(damaged.code).toBe(1);
    expect(damaged.json.find((e) => e.event === 'file-failed')).toMatchObject({ instanceId: infoId.id });
    const fixed = await visitor(['fetch', link, '--code', 'res1', '--out', out]);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(readFileSync(dest).equals(big)).toBe(true);
  }, 120_000);

  it('put uploads into an upload link; rm stops a link at once', async () => {
    const made = await drive(['share', 'link', '/inbox', '--upload', '--no-code'], { token: alice.token });
    expect(made.code, made.stderr).toBe(0);
    const link = made.json[0]!.link as string;
    const a = join(work, 'a.txt');
    writeFileSync(a, 'hello from a visitor');
    const put = await visitor(['put', link, a]);
    expect(put.code, put.stderr).toBe(0);
    expect(put.json.find((e) => e.event === 'file-done')).toMatchObject({ path: a });
    const inbox = await alice.api('/hcs/controller/Page', { parentId: (await srv.sql.get('SELECT id FROM instances WHERE name = ?', 'inbox') as { id: string }).id });
    expect(inbox.data.list.map((r: any) => r.instanceName)).toEqual(['a.txt']);
    const rm = await drive(['share', 'rm', made.json[0]!.shareId], { token: alice.token });
    expect(rm.code, rm.stderr).toBe(0);
    const after = await visitor(['put', link, a]);
    expect(after.code).toBe(5);
    expect(after.json.at(-1)).toMatchObject({ code: 'SHARE_NOT_FOUND' });
    expect((await drive(['share', 'rm', made.json[0]!.shareId], { token: alice.token })).code).toBe(5);
  }, 120_000);

  it('usage errors exit 2 before anything is sent', async () => {
    for (const args of [
      ['share', 'link', '/reports', '--code', 'a'],
      ['share', 'link', '/reports', '--days', '0'],
      ['share', 'link', '/reports', '--expires', '2020-13-45'],
      ['share', 'link', '/reports', '--days', '2', '--expires', '2999-01-01'],
      ['fetch', 'not a link'],
      ['put', `${srv.baseUrl}/drive/fileDownload?link=${'x'.repeat(22)}`, join(work, 'missing.txt')],
    ]) {
      const r = await drive(args, { token: alice.token });
      expect(r.code, args.join(' ')).toBe(2);
    }
  });
});
