// A streamed zip of a 1 GiB folder of 200 files from the server, beside a bare archiver run over the same
// files on local disk; the server's RSS is sampled before and during the zip to show it stays flat.
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { ZipArchive } from 'archiver';
import { time, writeRandomFile, ensureDir, mbps, MiB, type ServerProc } from './lib.ts';
import { drive, type CliEnv } from './cli.ts';
import { hcs, tokenOf, folderId } from './api.ts';
import type { Row } from '../run.ts';

const FILES = Number(process.env.HCS_BENCH_ZIP_FILES ?? 200);
const FILE_MB = Number(process.env.HCS_BENCH_ZIP_FILE_MB ?? 5.12);

function counter(): { sink: Writable; bytes: () => number } {
  let n = 0;
  return {
    sink: new Writable({
      highWaterMark: MiB,
      write(chunk: Buffer, _enc, cb) {
        n += chunk.length;
        cb();
      },
    }),
    bytes: () => n,
  };
}

export async function benchZip(server: ServerProc, cli: CliEnv, work: string, rows: Row[]): Promise<void> {
  const dir = ensureDir(join(work, 'zipsrc'));
  const names: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const name = `part-${String(i).padStart(3, '0')}.bin`;
    await writeRandomFile(join(dir, name), Math.round(FILE_MB * MiB));
    names.push(name);
  }
  await drive(cli, ['upload', dir, '--to', '/bench-zip', '--concurrency', '4', '--json']);

  const bare = counter();
  const base = await time(async () => {
    const archive = new ZipArchive({ store: true, forceZip64: true });
    for (const n of names) archive.file(join(dir, n), { name: `zipsrc/${n}` });
    const done = pipeline(archive, bare.sink);
    await archive.finalize();
    await done;
  });

  const token = tokenOf(cli.configDir);
  const parent = await folderId(server.url, token, 'bench-zip');
  const page: any = await hcs(server.url, token, `/hcs/controller/Page?parentId=${parent}&pageSize=10`);
  const folder = page.list.find((r: any) => r.instanceName === 'zipsrc');
  const { url } = await hcs<{ url: string }>(server.url, token, `/hcs/controller/API/getZipDownloadUrl?ids=${folder.instanceId}`);
  const before = server.rssNow();
  let during = before;
  const sampler = setInterval(() => (during = Math.max(during, server.rssNow())), 50);
  const served = counter();
  const zip = await time(async () => {
    const res = await fetch(new URL(url, server.url));
    if (!res.ok) throw new Error(`zip: ${res.status}`);
    await pipeline(Readable.fromWeb(res.body as never), served.sink);
  });
  clearInterval(sampler);
  if (Math.abs(served.bytes() - bare.bytes()) > FILES * 200 + 4096) {
    throw new Error(`zip sizes differ too much: server ${served.bytes()} vs archiver ${bare.bytes()}`);
  }
  const ratio = base.ms / zip.ms;
  rows.push({
    name: `streamed zip of a ${((FILES * FILE_MB) / 1024).toFixed(2)} GiB folder of ${FILES} files`,
    value: `${mbps(served.bytes(), zip.ms).toFixed(0)} MiB/s, server RSS ${(before / MiB).toFixed(0)} -> ${(during / MiB).toFixed(0)} MiB`,
    baseline: `bare archiver ${mbps(bare.bytes(), base.ms).toFixed(0)} MiB/s`,
    ratio,
    target: '>= 0.8, RSS flat',
    pass: ratio >= 0.8 && during - before < 64 * MiB,
  });
}
