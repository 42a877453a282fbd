// Minimal /hcs calls the benchmarks need, signed in with the CLI's token.
import { readFileSync } from 'node:fs';

export function tokenOf(configDir: string): string {
  const auth = JSON.parse(readFileSync(`${configDir}/auth.json`, 'utf8')) as { token?: string };
  if (!auth.token) throw new Error('no token in the CLI auth file');
  return auth.token;
}

export async function hcs<T = any>(base: string, token: string, path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(base + path, {
    ...init,
    headers: { 'X-Requested-With': 'XMLHttpRequest', token, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
  const body = (await res.json()) as { ret: number; msg: string; data: T };
  if (!res.ok || body.ret !== 0) throw new Error(`${path}: ${res.status} ${body.msg}`);
  return body.data;
}

/** The id of the folder at /name in the personal root. */
export async function folderId(base: string, token: string, name: string): Promise<string> {
  let cursor: string | null = null;
  for (;;) {
    const q = new URLSearchParams({ pageSize: '1000', ...(cursor ? { cursor } : {}) });
    const page: any = await hcs(base, token, `/hcs/controller/Page?${q}`);
    const hit = page.list.find((r: any) => r.instanceName === name && r.classifierId === 'Folder');
    if (hit) return hit.instanceId;
    if (!page.nextCursor) throw new Error(`no folder /${name}`);
    cursor = page.nextCursor;
  }
}
