// A page of 50 from a folder of 100,000 entries at 64 concurrent connections, through the full server
// (session, validation, envelope), beside a bare Fastify route running the same SQL (the same repository
// function) on the same database file. Page 1 and a deep page reached by keyset cursor are both measured.
import Fastify from 'fastify';
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { listChildren } from '../../mock-server/src/db/instances-repo.ts';
import type { ServerProc } from './lib.ts';
import { encodeName } from '@hcs/openapi/client';
import { hcs, tokenOf } from './api.ts';
import type { CliEnv } from './cli.ts';
import type { Row } from '../run.ts';

const ENTRIES = Number(process.env.HCS_BENCH_ENTRIES ?? 100000);
const DEEP_PAGE = Math.min(2000, Math.floor(ENTRIES / 50));

async function load(url: string, headers: Record<string, string>): Promise<{ rps: number; p50: number; p99: number }> {
  const r = await autocannon({ url, connections: 64, duration: 8, headers });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

export async function benchListing(server: ServerProc, cli: CliEnv, dataDir: string, rows: Row[]): Promise<void> {
  const token = tokenOf(cli.configDir);

  const [folder] = await hcs<{ instanceId: string }[]>(server.url, token, '/hcs/controller/Instances', {
    method: 'POST',
    body: JSON.stringify([{ classifierId: 'Folder', instanceName: encodeName('bench-list') }]),
  });
  const parentId = folder!.instanceId;
  for (let i = 0; i < ENTRIES; i += 500) {
    const batch = Array.from({ length: Math.min(500, ENTRIES - i) }, (_, k) => ({
      classifierId: 'Folder',
      parentId,
      instanceName: encodeName(`entry-${String(i + k).padStart(6, '0')}`),
    }));
    await hcs(server.url, token, '/hcs/controller/Instances', { method: 'POST', body: JSON.stringify(batch) });
  }
  // Walk to the deep page once to get its keyset cursor.
  let cursor: string | null = null;
  for (let p = 1; p < DEEP_PAGE; p++) {
    const page: any = await hcs(server.url, token, `/hcs/controller/Page?parentId=${parentId}&pageSize=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    cursor = page.nextCursor;
  }

  const db = new DatabaseSync(join(dataDir, 'hcs.sqlite'));
  const secret = Buffer.from(readFileSync(join(dataDir, 'server-secret'), 'utf8').trim(), 'hex');
  const bare = Fastify({ logger: false });
  bare.get('/page', async (req) => {
    const q = req.query as { cursor?: string };
    const r = listChildren(db, secret, { parentId, sortField: 'instanceName', sortOrder: 'asc', pageNo: 1, pageSize: 50, cursor: q.cursor });
    return { total: r.total, nextCursor: r.nextCursor, list: r.rows };
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/page`;
  const headers = { 'X-Requested-With': 'XMLHttpRequest', token };
  const cases: [string, string][] = [
    ['page 1', ''],
    [`page ${DEEP_PAGE} (keyset cursor)`, cursor ? `cursor=${encodeURIComponent(cursor)}` : ''],
  ];
  try {
    for (const [label, qs] of cases) {
      const full = await load(`${server.url}/hcs/controller/Page?parentId=${parentId}&pageSize=50${qs ? '&' + qs : ''}`, headers);
      const base = await load(`${bareUrl}${qs ? '?' + qs : ''}`, {});
      const ratio = full.rps / base.rps;
      rows.push({
        name: `list ${label} of 50 from ${ENTRIES} entries, 64 connections`,
        value: `${full.rps.toFixed(0)} req/s, p50 ${full.p50} ms, p99 ${full.p99} ms`,
        baseline: `bare route ${base.rps.toFixed(0)} req/s, p50 ${base.p50} ms, p99 ${base.p99} ms`,
        ratio,
        target: '>= 0.6',
        pass: ratio >= 0.6,
      });
    }
  } finally {
    await bare.close();
    db.close();
  }
}
