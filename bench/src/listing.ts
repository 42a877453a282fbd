// A page of 50 from a folder of 100,000 entries at 64 concurrent connections, through the full server (session,
// validation, access check, total, breadcrumbs, envelope), beside a bare Fastify route that runs only the keyset
// SELECT ... LIMIT 50 on the same database (SQLite file or PostgreSQL database): no session, no total, no names.
// Page 1 and a deep page reached by keyset cursor are both measured.
import Fastify from 'fastify';
import autocannon from 'autocannon';
import { encodeName } from '@hcs/openapi/client';
import { openSqlDatabase } from '../../mock-server/src/db/sql/open.ts';
import { keysetPage } from '../../mock-server/src/db/instances-repo.ts';
import type { ServerProc } from './lib.ts';
import { hcs, tokenOf } from './api.ts';
import type { CliEnv } from './cli.ts';
import type { Row } from '../run.ts';

const ENTRIES = Number(process.env.HCS_BENCH_ENTRIES ?? 100000);
const DEEP_PAGE = Math.min(2000, Math.floor(ENTRIES / 50));

async function load(url: string, headers: Record<string, string>): Promise<{ rps: number; p50: number; p99: number }> {
  const r = await autocannon({ url, connections: 64, duration: 8, headers });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

export async function benchListing(server: ServerProc, cli: CliEnv, db: { dataDir: string; databaseUrl: string | undefined }, rows: Row[]): Promise<void> {
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
  // Walk to the deep page once: its keyset cursor for the server, the last entry before it for the bare route.
  let cursor: string | null = null;
  let last: { instanceId: string; instanceName: string; classifierId: string } | undefined;
  for (let p = 1; p < DEEP_PAGE; p++) {
    const page: any = await hcs(server.url, token, `/hcs/controller/Page?parentId=${parentId}&pageSize=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    cursor = page.nextCursor;
    last = page.list[page.list.length - 1];
  }

  const database = await openSqlDatabase({ dataDir: db.dataDir, databaseUrl: db.databaseUrl, poolSize: 16 });
  const bare = Fastify({ logger: false });
  bare.get('/page', async (req) => {
    const q = req.query as { id?: string; key?: string; folder?: string };
    const after = q.id && q.key !== undefined ? { isFolder: q.folder === '1', nameKey: q.key, id: q.id } : undefined;
    return { list: await keysetPage(database.db, parentId, after, 50) };
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/page`;
  const headers = { 'X-Requested-With': 'XMLHttpRequest', token };
  const deepBare = last
    ? new URLSearchParams({ id: last.instanceId, key: last.instanceName.normalize('NFC').toLowerCase(), folder: last.classifierId === 'Folder' ? '1' : '0' }).toString()
    : '';
  const cases: [string, string, string][] = [
    ['page 1', '', ''],
    [`page ${DEEP_PAGE} (keyset cursor)`, cursor ? `cursor=${encodeURIComponent(cursor)}` : '', deepBare],
  ];
  try {
    for (const [label, qs, bareQs] of cases) {
      const full = await load(`${server.url}/hcs/controller/Page?parentId=${parentId}&pageSize=50${qs ? '&' + qs : ''}`, headers);
      const base = await load(`${bareUrl}${bareQs ? '?' + bareQs : ''}`, {});
      const ratio = full.rps / base.rps;
      rows.push({
        name: `list ${label} of 50 from ${ENTRIES} entries, 64 connections`,
        value: `${full.rps.toFixed(0)} req/s, p50 ${full.p50} ms, p99 ${full.p99} ms`,
        baseline: `bare keyset SELECT ${base.rps.toFixed(0)} req/s, p50 ${base.p50} ms, p99 ${base.p99} ms`,
        ratio,
        target: '>= 0.6',
        pass: ratio >= 0.6,
      });
    }
  } finally {
    await bare.close();
    await database.close();
  }
}
