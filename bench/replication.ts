// Cross-site replication throughput (issue #20 part 3) beside a raw S3-to-S3 copy of the same objects in the same
// run: `node bench/replication.ts` (HCS_BENCH_REPL_FILES files of HCS_BENCH_REPL_MB MiB each; default 8 x 64 MiB).
//
// Site A is the server's embedded store; site B is radosgw when HCS_TEST_S3_* name one (tests/s3/radosgw.sh env),
// else a second server's embedded store (another endpoint either way, so every copy streams GetObject into a
// multipart upload hashed with SHA-256). Measured: from the sync config's creation until every copy is synced (the
// sweep, the job queue with its HCS_REPLICATION_COPIES copy slots per node, the database updates). Baseline: the same objects copied
// by the same streaming copy function (replication/copy.ts) straight from store to store, to other keys, in a loop
// with nothing else: what the copy itself costs on this machine. Prints a Markdown row and writes
// bench/results/replication.json.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHcsClient, encryptPassword, unwrap } from '@hcs/openapi/client';
import { ObjectStore } from '../mock-server/src/storage/object-store.ts';
import { copyBlob } from '../mock-server/src/replication/copy.ts';
import { uploadFile, type ApiCall } from '../tests/helpers/upload.ts';
import { startServer, MiB, ROOT, mbps, type ServerProc } from './src/lib.ts';

const FILES = Number(process.env.HCS_BENCH_REPL_FILES ?? 8);
const SIZE = Number(process.env.HCS_BENCH_REPL_MB ?? 64) * MiB;
const PASSWORD = 'Bench#Passw0rd-replication';
const port = () => String(20000 + Math.floor(Math.random() * 20000));

async function signIn(base: string): Promise<ApiCall> {
  const anon = createHcsClient({ baseUrl: base });
  const info = unwrap(await anon.GET('/hcs/services/System/platformInfo', {}));
  const res = unwrap(await anon.GET('/hcs/services/System/Token', {
    params: { query: { username: 'admin', password: await encryptPassword(info.data!.publicKey, PASSWORD) } }, headers: { 'X-HCS-Client': 'cli' },
  }));
  const token = res.data!.token;
  return async (path, query, body) => {
    const qs = query ? `?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}` : '';
    const r = await fetch(base + path + qs, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'X-Requested-With': 'XMLHttpRequest', token, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await r.json()) as { ret: number; data: any };
  };
}

function must<T extends { ret: number }>(what: string, r: T): T {
  if (r.ret !== 0) throw new Error(`${what}: ${JSON.stringify(r)}`);
  return r;
}

const work = mkdtempSync(join(tmpdir(), 'hcs-bench-repl-'));
const servers: ServerProc[] = [];
try {
  const load0 = loadavg()[0]!;
  const env = (dir: string) => ({ HCS_PORT: port(), HCS_DATA_DIR: dir, HCS_ADMIN_PASSWORD: PASSWORD, HCS_DEFAULT_QUOTA_GB: '0', HCS_SYNC_SPEED: String(4 * 1024 ** 3) });
  const dirA = join(work, 'a');
  const a = await startServer({ ...env(dirA), HCS_REPLICATION_SWEEP_SECONDS: '1' });
  servers.push(a);
  const credsA = JSON.parse(readFileSync(join(dirA, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
  let target: { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string; bucket: string; kind: string };
  if (process.env.HCS_TEST_S3_ENDPOINT) {
    target = {
      endpoint: process.env.HCS_TEST_S3_ENDPOINT, region: process.env.HCS_TEST_S3_REGION ?? 'us-east-1', accessKeyId: process.env.HCS_TEST_S3_ACCESS_KEY ?? '',
      secretAccessKey: process.env.HCS_TEST_S3_SECRET_KEY ?? '', bucket: `hcs-bench-repl-${randomBytes(3).toString('hex')}`, kind: 'radosgw',
    };
  } else {
    const dirC = join(work, 'c');
    const c = await startServer(env(dirC));
    servers.push(c);
    const credsC = JSON.parse(readFileSync(join(dirC, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
    target = { endpoint: `${c.url}/s3`, region: 'us-east-1', ...credsC, bucket: 'hcs-drive', kind: 'a second embedded store' };
  }
  const dst = new ObjectStore({ ...target });
  await dst.ensureBucket();
  const src = new ObjectStore({ endpoint: `${a.url}/s3`, region: 'us-east-1', bucket: 'hcs-drive', ...credsA });

  const api = await signIn(a.url);
  const conn = must('addCloud', await api('/hcs/controller/cloudConnect/addCloud', undefined, {
    name: 'bench-b', endpoint: target.endpoint, region: target.region, bucket: target.bucket, accessKey: target.accessKeyId, secretKey: target.secretAccessKey,
  }));
  const siteA = must('site A', await api('/hcs/controller/region/site/addOrUpdate', undefined, { name: 'bench-a', cloudId: '0' })).data.siteId as string;
  const siteB = must('site B', await api('/hcs/controller/region/site/addOrUpdate', undefined, { name: 'bench-b', cloudId: conn.data.cloudId })).data.siteId as string;
  const blobs: Array<{ key: string; size: number; sha256: string }> = [];
  for (let i = 0; i < FILES; i++) {
    const bytes = randomBytes(SIZE);
    const id = await uploadFile(api, `repl-${i}.bin`, bytes);
    const info = must('file info', await api(`/hcs/controller/API/GetFileInfoById/${id}`));
    blobs.push({ key: info.data.objectKey, size: SIZE, sha256: info.data.fMd5 });
  }
  const total = FILES * SIZE;

  // Replication: config to every copy synced.
  const t0 = performance.now();
  must('sync config', await api('/hcs/controller/instance/sync/config/addOrUpdate', undefined, { libCode: 'NetDisk', sourceSiteId: siteA, targetSiteIds: [siteB] }));
  for (;;) {
    const st = must('status', await api('/hcs/controller/instance/sync/status')).data as { sites: Array<{ siteId: string; synced: number; pending: number; failed: number }> };
    const b = st.sites.find((s) => s.siteId === siteB);
    if (b && b.failed > 0) throw new Error('a copy failed');
    if (b && b.synced >= FILES && b.pending === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const replMs = performance.now() - t0;

  // Baseline: the same streaming copy, store to store, nothing around it, beside the replicas.
  const t1 = performance.now();
  for (const bl of blobs) {
    await copyBlob(src, dst, { ...bl, targetKey: `bench-raw/${bl.key}` }, { sameEndpoint: false, signal: new AbortController().signal });
  }
  const rawMs = performance.now() - t1;
  const row = {
    files: FILES, mib: SIZE / MiB, target: target.kind,
    replication: { ms: Math.round(replMs), mibPerS: +mbps(total, replMs).toFixed(1) },
    raw: { ms: Math.round(rawMs), mibPerS: +mbps(total, rawMs).toFixed(1) },
    ratio: +(mbps(total, replMs) / mbps(total, rawMs)).toFixed(2), load: [load0, loadavg()[0]!].map((x) => +x.toFixed(2)),
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/replication.json'), JSON.stringify(row, null, 2) + '\n');
  console.log('| benchmark | result | baseline (same run) | ratio |\n|---|---|---|---|');
  console.log(`| replication of ${FILES} x ${SIZE / MiB} MiB to ${target.kind} | ${row.replication.mibPerS} MiB/s | raw S3-to-S3 streamed copy ${row.raw.mibPerS} MiB/s | ${row.ratio} |`);
  console.log(`load average ${row.load.join(' -> ')}`);
  src.destroy();
  dst.destroy();
} finally {
  for (const s of servers) await s.stop();
  rmSync(work, { recursive: true, force: true });
}
