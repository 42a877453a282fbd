// Every call the web makes is in the contract and goes through generated code (issue #13 item 5). A screen whose
// call the contract lacks has no probe at all: a hand-written URL would only ever meet the server's 404 "no route".
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROUTES } from './routes.ts';

const SRC = join(import.meta.dirname, '..');

type Doc = { paths: Record<string, Record<string, { operationId?: string }>> };
const doc = JSON.parse(readFileSync(join(SRC, '..', '..', 'openapi', 'dist', 'hcs.json'), 'utf8')) as Doc;

/** The contract operation a request names, by method and path template; undefined when the contract lacks it. */
function operationOf(method: string, pathname: string): string | undefined {
  for (const [template, item] of Object.entries(doc.paths)) {
    const re = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(pathname)) return item[method.toLowerCase()]?.operationId;
  }
  return undefined;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !/\.spec\.tsx?$/.test(e.name) ? [p] : [];
  });
}

afterEach(() => vi.unstubAllGlobals());

describe('route probes', () => {
  const probed = ROUTES.filter((r) => r.probe);

  it('some screens do probe the server (the check below is not vacuous)', () => {
    expect(probed.length).toBeGreaterThan(3);
  });

  it.each(probed.map((r) => [r.path, r] as const))('%s asks the server only through its contract operation', async (_p, route) => {
    const seen: { method: string; pathname: string }[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
        seen.push({ method: init?.method ?? 'GET', pathname: new URL(String(input), 'http://drive.test').pathname });
        return new Response(JSON.stringify({ ret: 0, msg: 'ok', data: [] }), { status: 200, headers: { 'Content-Type': 'application/json' } });
      }),
    );
    await route.probe!.load('report', new AbortController().signal);
    expect(seen).toHaveLength(1);
    const op = operationOf(seen[0]!.method, seen[0]!.pathname);
    expect(op, `${seen[0]!.method} ${seen[0]!.pathname} is in the contract`).toBeTypeOf('string');
    expect(op).toBe(route.probe!.operation);
  });
});

describe('hand-written /hcs calls', () => {
  it('only the generated client and its mutator (src/api) call hcsFetch', () => {
    const callers = sources(SRC)
      .filter((f) => !relative(SRC, f).startsWith('api/'))
      .filter((f) => /\bhcsFetch\b/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f));
    expect(callers).toEqual([]);
  });
});
