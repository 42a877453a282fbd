import { appendFile, mkdtemp, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HashCache, sha256File } from '../hash-cache.ts';
import { JobState } from './job-state.ts';
import { safeJoin, unsafeSegment } from './download.ts';
import { readAuth, writeAuth } from '../auth-file.ts';
import { createHash } from 'node:crypto';

describe('JobState', () => {
  it('survives a reopen and a torn last line, keyed by the command inputs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hcs-job-'));
    const key = { server: 's', sources: ['/a'], to: '/x' };
    const s1 = await JobState.open(dir, 'upload', key);
    expect(s1.resumed).toBe(false);
    await s1.markSession('a/big.bin', 'f-1');
    await s1.markDone('a/one.txt', { size: 3, mtime: 10, id: 'i1' });
    await s1.close();
    // A crash mid-write leaves half a line.
    await appendFile(s1.path, '{"t":"done","p":"a/two');
    expect((await stat(s1.path)).mode & 0o777).toBe(0o600);

    const s2 = await JobState.open(dir, 'upload', key);
    expect(s2.resumed).toBe(true);
    expect(s2.isDone('a/one.txt', 3, 10)).toBe(true);
    expect(s2.isDone('a/one.txt', 4, 10)).toBe(false); // changed size: upload again
    expect(s2.isDone('a/two', 1, 1)).toBe(false);
    expect(s2.session('a/big.bin')).toBe('f-1');
    await s2.markDone('a/big.bin', { size: 9, mtime: 1, id: 'i2' });
    expect(s2.session('a/big.bin')).toBeUndefined();
    await s2.close();

    const other = await JobState.open(dir, 'upload', { ...key, to: '/y' });
    expect(other.resumed).toBe(false);
    await other.close();
    const restarted = await JobState.open(dir, 'upload', key, { restart: true });
    expect(restarted.isDone('a/one.txt', 3, 10)).toBe(false);
    await restarted.close();
  });
});

describe('HashCache', () => {
  it('hits only for the same path, size and mtime', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hcs-hash-'));
    const c = new HashCache(dir);
    await c.load();
    await c.set('/f', 10, 5, 'a'.repeat(64));
    await c.close();
    const c2 = new HashCache(dir);
    await c2.load();
    expect(c2.get('/f', 10, 5)).toBe('a'.repeat(64));
    expect(c2.get('/f', 10, 6)).toBeUndefined();
    expect(c2.get('/f', 11, 5)).toBeUndefined();
    await c2.close();
  });

  it('hashes a file and a byte range with node:crypto', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hcs-hash-'));
    const data = Buffer.alloc(3 * 1024 * 1024 + 7, 7);
    data.write('hello', 2 * 1024 * 1024);
    await writeFile(join(dir, 'f'), data);
    expect(await sha256File(join(dir, 'f'))).toBe(createHash('sha256').update(data).digest('hex'));
    const range = data.subarray(2 * 1024 * 1024, 2 * 1024 * 1024 + 100);
    expect(await sha256File(join(dir, 'f'), { offset: 2 * 1024 * 1024, length: 100 })).toBe(createHash('sha256').update(range).digest('hex'));
    await expect(sha256File(join(dir, 'f'), { offset: data.length - 1, length: 100 })).rejects.toThrow(/shorter/);
  });
});

describe('download paths', () => {
  it('refuses server names that would escape --out', () => {
    expect(unsafeSegment('..')).not.toBeNull();
    expect(unsafeSegment('a/b')).not.toBeNull();
    expect(unsafeSegment('a\\b')).not.toBeNull();
    expect(unsafeSegment('ok.txt')).toBeNull();
    expect(safeJoin('/out', ['d', 'f.txt'])).toBe('/out/d/f.txt');
    expect(() => safeJoin('/out', ['..', 'etc'])).toThrow(/unsafe/);
    expect(() => safeJoin('/out', ['d', '../../x'])).toThrow();
  });
});

describe('auth file', () => {
  it('is written 0600 in a 0700 folder and read back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hcs-auth-'));
    const path = join(dir, 'sub', 'auth.json');
    await writeAuth(path, { server: 'http://h', token: 'secret', userName: 'u' });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'sub'))).mode & 0o777).toBe(0o700);
    expect(await readAuth(path)).toEqual({ server: 'http://h', token: 'secret', userName: 'u' });
    await writeFile(path, 'not json');
    expect(await readAuth(path)).toBeNull();
  });
});
