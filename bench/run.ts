// npm run bench: every hot path beside a raw baseline measured in the same run, on the same bytes and disk, once per
// database: SQLite (the embedded default) and PostgreSQL (HCS_BENCH_DATABASE_URL, an empty database, or a fresh
// database on the HCS_TEST_DATABASE_URL server of tests/pg/postgres.sh). Writes bench/results/latest.json and prints
// a Markdown table per database; with --readme it also replaces the figures in README.md. Sizes can be scaled down
// for a quick look: HCS_BENCH_BIG_MB, HCS_BENCH_SMALL_FILES, HCS_BENCH_ZIP_FILES, HCS_BENCH_ZIP_FILE_MB,
// HCS_BENCH_ENTRIES, HCS_BENCH_SEARCH_FILES. Sections: --only big,small,zip,list,search; databases: --db sqlite,postgres
import { mkdtempSync, rmSync, writeFileSync, readFileSync, mkdirSync, createReadStream, createWriteStream, statSync } from 'node:fs';
import { tmpdir, cpus, totalmem, release, loadavg } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { execFileSync } from 'node:child_process';
import { startServer, time, writeRandomFile, ensureDir, mbps, MiB, ROOT, type ServerProc } from './src/lib.ts';
import { startRawServer } from './src/raw-server.ts';
import { buildCli, drive, type CliEnv } from './src/cli.ts';
import { benchSmallFiles } from './src/small-files.ts';
import { benchZip } from './src/zip.ts';
import { benchListing } from './src/listing.ts';
import { benchSearch } from './src/search.ts';
import { benchOpLogExport } from './src/oplog-export.ts';
import { createTestPgDatabase } from '../tests/helpers/pg.ts';

const PASSWORD = 'Bench#Passw0rd-1';
const argv = process.argv.slice(2);
const only = (argv.find((a) => a.startsWith('--only='))?.slice(7) ?? 'big,small,zip,list,search').split(',');
const BIG_MB = Number(process.env.HCS_BENCH_BIG_MB ?? 1024);
const pgAvailable = Boolean(process.env.HCS_BENCH_DATABASE_URL || process.env.HCS_TEST_DATABASE_URL);
const databases = (argv.find((a) => a.startsWith('--db='))?.slice(5) ?? (pgAvailable ? 'sqlite,postgres' : 'sqlite')).split(',') as ('sqlite' | 'postgres')[];

export interface Row {
  name: string;
  value: string;
  baseline: string;
  ratio: number | null;
  target: string;
  pass: boolean | null;
}

/**
 * Every timed transfer starts with no dirty pages pending: otherwise whichever runs after a 1 GiB write pays for
 * the kernel's writeback of the previous one (the raw GET baseline swung 190-280 MiB/s without this).
 */
function settle(): void {
  execFileSync('sync');
}

async function benchBig(server: ServerProc, cli: CliEnv, work: string, rows: Row[]): Promise<void> {
  const src = join(work, 'big.bin');
  await writeRandomFile(src, BIG_MB * MiB);
  const bytes = statSync(src).size;
  settle();

  // Baselines: Node's SHA-256 over the file, and the same bytes PUT to / GET from a bare raw-stream server.
  const sha = await time(async () => {
    const h = createHash('sha256');
    for await (const chunk of createReadStream(src, { highWaterMark: MiB })) h.update(chunk as Buffer);
    return h.digest('hex');
  });
  const rawDir = ensureDir(join(work, 'raw'));
  const raw = await startRawServer(rawDir);
  settle();
  const rawPut = await time(async () => {
    const res = await fetch(`${raw.url}/big.bin`, {
      method: 'PUT',
      body: Readable.toWeb(createReadStream(src, { highWaterMark: MiB })) as never,
      duplex: 'half',
    } as RequestInit);
    await res.text();
  });
  settle();
  const rawGet = await time(async () => {
    const res = await fetch(`${raw.url}/big.bin`);
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(join(work, 'raw-get.bin'), { highWaterMark: MiB }));
  });
  await raw.close();
  rmSync(rawDir, { recursive: true, force: true });
  rmSync(join(work, 'raw-get.bin'), { force: true });

  settle();
  const up = await time(() => drive(cli, ['upload', src, '--to', '/bench-big', '--json']));
  const outDir = ensureDir(join(work, 'down'));
  settle();
  const down = await time(() => drive(cli, ['download', '/bench-big/big.bin', '--out', outDir, '--json']));
  const back = createHash('sha256');
  for await (const chunk of createReadStream(join(outDir, 'big.bin'), { highWaterMark: MiB })) back.update(chunk as Buffer);
  if (back.digest('hex') !== sha.value) throw new Error('downloaded bytes differ from the original');
  rmSync(outDir, { recursive: true, force: true });
  rmSync(src, { force: true });

  const upRatio = rawPut.ms / up.ms;
  const downRatio = rawGet.ms / down.ms;
  rows.push({
    name: `upload ${BIG_MB} MiB via CLI (hash + multipart, server-side SHA-256 on save)`,
    value: `${mbps(bytes, up.ms).toFixed(0)} MiB/s`,
    baseline: `raw PUT ${mbps(bytes, rawPut.ms).toFixed(0)} MiB/s`,
    ratio: upRatio,
    target: '>= 0.7',
    pass: upRatio >= 0.7,
  });
  rows.push({
    name: `download ${BIG_MB} MiB via CLI (3 ranged parts, verified)`,
    value: `${mbps(bytes, down.ms).toFixed(0)} MiB/s`,
    baseline: `raw GET ${mbps(bytes, rawGet.ms).toFixed(0)} MiB/s`,
    ratio: downRatio,
    target: '>= 0.8',
    pass: downRatio >= 0.8,
  });
  rows.push({
    name: 'Node SHA-256 (node:crypto, 1 MiB reads)',
    value: `${mbps(bytes, sha.ms).toFixed(0)} MiB/s`,
    baseline: '-',
    ratio: null,
    target: 'reference',
    pass: null,
  });
}

function machine(): string {
  let disk: string;
  try {
    disk = execFileSync('df', ['-h', tmpdir()], { encoding: 'utf8' }).split('\n')[1]?.split(/\s+/)[0] ?? '';
  } catch {
    disk = '';
  }
  return `${cpus().length} x ${cpus()[0]?.model.trim()}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB RAM, Linux ${release()}, Node ${process.versions.node}, disk ${disk}`;
}

function table(rows: Row[]): string {
  const head = '| benchmark | result | baseline (same run) | ratio | target |\n|---|---|---|---|---|';
  const body = rows
    .map((r) => `| ${r.name} | ${r.value} | ${r.baseline} | ${r.ratio === null ? '-' : r.ratio.toFixed(2)} | ${r.target}${r.pass === null ? '' : r.pass ? ' (met)' : ' (missed)'} |`)
    .join('\n');
  return `${head}\n${body}`;
}

/** A PostgreSQL database for one run: the operator's (empty) one, or a fresh one dropped afterwards. */
async function postgresFor(): Promise<{ url: string; drop(): Promise<void> }> {
  if (process.env.HCS_BENCH_DATABASE_URL) return { url: process.env.HCS_BENCH_DATABASE_URL, drop: async () => {} };
  if (!process.env.HCS_TEST_DATABASE_URL) throw new Error('--db postgres needs HCS_BENCH_DATABASE_URL or HCS_TEST_DATABASE_URL (bash tests/pg/postgres.sh start)');
  return createTestPgDatabase();
}

/** Every section against a server on one database; returns its rows. */
async function runOn(dbKind: 'sqlite' | 'postgres'): Promise<Row[]> {
  const work = mkdtempSync(join(tmpdir(), 'hcs-bench-'));
  const rows: Row[] = [];
  const pg = dbKind === 'postgres' ? await postgresFor() : undefined;
  const dataDir = join(work, 'data');
  const server = await startServer({
    HCS_PORT: String(20000 + Math.floor(Math.random() * 20000)),
    HCS_DATA_DIR: dataDir,
    HCS_ADMIN_PASSWORD: PASSWORD,
    HCS_DEFAULT_QUOTA_GB: '0',
    // The spec's default syncSpeed (100 MiB/s) would cap the upload figure; the benchmark measures the engine.
    HCS_SYNC_SPEED: String(4 * 1024 ** 3),
    ...(pg ? { HCS_DATABASE_URL: pg.url } : {}),
  });
  const cli: CliEnv = { server: server.url, configDir: ensureDir(join(work, 'cli')), password: PASSWORD };
  try {
    await drive(cli, ['login', '--user', 'admin']);
    // The peak after each section: the section in which it last rose is the one that set it.
    const peaks: [section: string, bytes: number][] = [['start', server.peakRss()]];
    const section = async (name: string, run: () => Promise<void>) => {
      if (!only.includes(name)) return;
      await run();
      peaks.push([name, server.peakRss()]);
    };
    await section('big', () => benchBig(server, cli, work, rows));
    await section('small', () => benchSmallFiles(server, cli, work, rows));
    await section('zip', () => benchZip(server, cli, work, rows));
    await section('list', () => benchListing(server, cli, { dataDir, databaseUrl: pg?.url }, rows));
    await section('search', () => benchSearch(server, cli, { dataDir, databaseUrl: pg?.url }, rows));
    // Not in the default set (a million log rows take minutes to write): --only=oplog.
    await section('oplog', () => benchOpLogExport(server, cli, { dataDir, databaseUrl: pg?.url }, rows));
    const peak = server.peakRss();
    rows.push({
      name: 'server peak RSS over the whole run',
      value: `${(peak / MiB).toFixed(0)} MiB (peak after each section: ${peaks.map(([name, bytes]) => `${name} ${(bytes / MiB).toFixed(0)}`).join(', ')})`,
      baseline: '-',
      ratio: null,
      target: '< 250 MiB',
      pass: peak < 250 * MiB,
    });
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
    await pg?.drop();
  }
  return rows;
}

const load = () => loadavg().map((l) => l.toFixed(2)).join(' / ');

async function main(): Promise<void> {
  buildCli();
  const loadBefore = load();
  const results: { database: string; rows: Row[] }[] = [];
  for (const dbKind of databases) {
    const label = dbKind === 'sqlite' ? 'SQLite (embedded, in the data dir)' : 'PostgreSQL (HCS_DATABASE_URL, same machine)';
    results.push({ database: label, rows: await runOn(dbKind) });
  }
  const at = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const md =
    `Measured ${at} UTC on ${machine()}; load average (1 / 5 / 15 min) ${loadBefore} before the run and ${load()} after it.\n\n` +
    results.map((r) => `#### ${r.database}\n\n${table(r.rows)}`).join('\n\n');
  console.log('\n' + md + '\n');
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/latest.json'), JSON.stringify({ at, machine: machine(), load: { before: loadBefore, after: load() }, results }, null, 2));
  if (argv.includes('--readme')) {
    const readme = join(ROOT, 'README.md');
    const text = readFileSync(readme, 'utf8');
    writeFileSync(readme, text.replace(/<!-- bench:start -->[\s\S]*<!-- bench:end -->/, `<!-- bench:start -->\n${md}\n<!-- bench:end -->`));
  }
}

await main();
