// Shared pieces of the benchmarks: a server child process with RSS sampling, timing, data generation.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, createWriteStream, mkdirSync } from 'node:fs';
import { randomFillSync } from 'node:crypto';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const MiB = 1024 * 1024;

export interface ServerProc {
  url: string;
  proc: ChildProcess;
  /** Peak resident set size seen so far, in bytes (kernel's VmHWM plus our own sampling). */
  peakRss(): number;
  /** Resident set size right now, in bytes. */
  rssNow(): number;
  stop(): Promise<void>;
}

function rssOf(pid: number): { rss: number; hwm: number } {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/** Starts the drive (npm start's entry) on a free port with the given env; resolves once it prints its URL. */
export async function startServer(env: Record<string, string>): Promise<ServerProc> {
  const proc = spawn(process.execPath, ['mock-server/src/start.ts'], {
    cwd: ROOT,
    env: { ...process.env, HCS_LOG_LEVEL: 'warn', HCS_HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /running: (http:\/\/\S+)\/drive\//.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(proc.pid!).rss);
  }, 100);
  sampler.unref();
  return {
    url: url.replace('localhost', '127.0.0.1'),
    proc,
    peakRss: () => Math.max(peak, rssOf(proc.pid!).hwm),
    rssNow: () => rssOf(proc.pid!).rss,
    async stop() {
      clearInterval(sampler);
      peak = Math.max(peak, rssOf(proc.pid!).hwm);
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    },
  };
}

export async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/** Writes `bytes` of random data (1 MiB random block, varied per chunk so content never dedups). */
export async function writeRandomFile(path: string, bytes: number): Promise<void> {
  const ws = createWriteStream(path, { highWaterMark: 4 * MiB });
  const block = Buffer.alloc(MiB);
  randomFillSync(block);
  for (let off = 0, i = 0; off < bytes; off += MiB, i++) {
    const n = Math.min(MiB, bytes - off);
    const chunk = Buffer.from(block.subarray(0, n));
    chunk.writeUInt32LE(i, 0);
    if (!ws.write(chunk)) await once(ws, 'drain');
  }
  ws.end();
  await once(ws, 'finish');
}

export function ensureDir(p: string): string {
  mkdirSync(p, { recursive: true });
  return p;
}

export const mbps = (bytes: number, ms: number) => bytes / MiB / (ms / 1000);
