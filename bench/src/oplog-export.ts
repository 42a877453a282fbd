// Operation-log export (issue #18: a million rows in constant memory): 1,000,000 rows written straight into the
// server's database, then System/downloadOptLog as CSV and as XLSX read to the end by a client, the server's RSS
// sampled before and during each. The target is the export adding less than 100 MB to the server's RSS whatever the
// row count (the idle server's own ~150 MiB is not the export's); the baseline is the same rows read by keyset
// straight from the database in this process (no HTTP, no formatting).
import { randomBytes } from 'node:crypto';
import type { ServerProc } from './lib.ts';
import { MiB, time } from './lib.ts';
import { tokenOf } from './api.ts';
import type { CliEnv } from './cli.ts';
import type { Row } from '../run.ts';
import { openDb } from './search.ts';

const ROWS = Number(process.env.HCS_BENCH_OPLOG_ROWS ?? 1_000_000);
const BATCH = 500;
const TYPES = ['createInstances', 'saveInstance', 'modifyInstance', 'deleteInstances', 'login', 'moveInstance'];

async function populate(db: Awaited<ReturnType<typeof openDb>>): Promise<void> {
  const { sql } = db;
  const start = Date.now() - ROWS * 1000;
  const tag = randomBytes(3).toString('hex');
  for (let i = 0; i < ROWS; i += BATCH) {
    const n = Math.min(BATCH, ROWS - i);
    const params: unknown[] = [];
    const values: string[] = [];
    for (let j = 0; j < n; j++) {
      const k = i + j;
      values.push('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
      params.push(start + k * 1000, `user-${k % 500}`, `bench${k % 500}`, TYPES[k % TYPES.length], 'files', `obj-${tag}-${k}`, `年度报告_${k}.docx`,
        'Mozilla/5.0 (bench)', `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`, k % 17 === 0 ? 'failure' : 'success', k % 17 === 0 ? '403' : '');
    }
    await sql.run(`INSERT INTO op_logs (at, user_id, user_name, op_type, op_subject, object_id, object_name, device, ip, result, detail) VALUES ${values.join(', ')}`, params);
  }
}

/** Reads one export to the end, sampling the server's RSS every 50 ms; answers bytes, ms and the peak. */
async function exportOnce(server: ServerProc, token: string, format: 'csv' | 'xlsx'): Promise<{ bytes: number; ms: number; before: number; peak: number }> {
  const before = server.rssNow();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, server.rssNow())), 50);
  try {
    const { ms, value: bytes } = await time(async () => {
      const res = await fetch(`${server.url}/hcs/controller/System/downloadOptLog?format=${format}`, { headers: { token } });
      if (!res.ok || !res.body) throw new Error(`export ${format}: HTTP ${res.status}`);
      let total = 0;
      for await (const chunk of res.body) total += (chunk as Uint8Array).byteLength;
      return total;
    });
    return { bytes, ms, before, peak: Math.max(peak, server.rssNow()) };
  } finally {
    clearInterval(sampler);
  }
}

export async function benchOpLogExport(server: ServerProc, cli: CliEnv, where: { dataDir: string; databaseUrl: string | undefined }, rows: Row[]): Promise<void> {
  const db = await openDb(where);
  try {
    await populate(db);
    // Baseline: the same rows by keyset in batches of 2,000, in this process.
    const base = await time(async () => {
      let n = 0;
      let before = Number.MAX_SAFE_INTEGER;
      for (;;) {
        const batch = await db.sql.query<{ id: number }>('SELECT id, at, user_name, op_type, object_name, result FROM op_logs WHERE id < ? ORDER BY id DESC LIMIT 2000', [before]);
        if (batch.length === 0) return n;
        n += batch.length;
        before = Number(batch[batch.length - 1]!.id);
      }
    });
    const token = tokenOf(cli.configDir);
    for (const format of ['csv', 'xlsx'] as const) {
      const r = await exportOnce(server, token, format);
      const peakMb = r.peak / MiB;
      rows.push({
        name: `oplog export ${format}, ${ROWS.toLocaleString('en')} rows`,
        value: `${(r.bytes / MiB).toFixed(0)} MiB in ${(r.ms / 1000).toFixed(1)} s (${Math.round(ROWS / (r.ms / 1000)).toLocaleString('en')} rows/s), server RSS ${(r.before / MiB).toFixed(0)} -> peak ${peakMb.toFixed(0)} MiB`,
        baseline: `keyset read of ${base.value.toLocaleString('en')} rows in ${(base.ms / 1000).toFixed(1)} s`,
        ratio: base.ms / r.ms,
        // An idle server already holds ~150 MiB (the contract's compiled schemas, V8): the export's own memory is the rise.
        target: 'export adds < 100 MB to the server RSS',
        pass: r.peak - r.before < 100 * 1000 * 1000,
      });
    }
  } finally {
    await db.sql.close();
  }
}
