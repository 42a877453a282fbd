// drive upload / drive download: bulk jobs with the live view (or --json lines), graceful Ctrl-C
// (first: stop, save state, exit 130; second: quit at once) and a per-file failure report.
import { Option, type Command } from 'commander';
import { action, type CommandContext, type Io } from '../command-context.ts';
import { JsonReporter, type Reporter } from '../events.ts';
import { EXIT, usageError } from '../exit-codes.ts';
import { runDownload } from '../jobs/download.ts';
import { runUpload, type Conflict, type JobContext } from '../jobs/upload.ts';
import { parseIntOption } from '../settings.ts';
import type { JobStats } from '../stats.ts';
import { createTransfer } from '../transfer.ts';

const CONFLICTS = ['newVersion', 'keepBoth', 'skip'] as const;

// The live view pulls in ink and react (~200 ms of start-up); --json runs (scripts, the benchmark) never need it.
const loadUi = () => import('../ui/reporters.ts');

async function reporterFor(ctx: CommandContext): Promise<Reporter> {
  if (ctx.settings.json) return new JsonReporter(ctx.io.stdout);
  const { InkReporter, PlainReporter } = await loadUi();
  if (ctx.io.stdout.isTTY) return new InkReporter(ctx.io.stdout as NodeJS.WriteStream);
  return new PlainReporter(ctx.io.stdout);
}

async function runJob(ctx: CommandContext, run: (job: JobContext) => Promise<JobStats>): Promise<number> {
  const api = ctx.api();
  const reporter = await reporterFor(ctx);
  const ui = ctx.settings.json ? undefined : await loadUi();
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts === 1) {
      if (ui && reporter instanceof ui.InkReporter) reporter.stopping = true;
      abort.abort();
    } else {
      // Second Ctrl-C: the journal is append-only, so quitting now still loses nothing finished.
      process.exit(EXIT.INTERRUPTED);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const stats = await run({
      api,
      transfer: (resumePath) => createTransfer(api, resumePath),
      reporter,
      stateDir: ctx.settings.stateDir,
      account: { server: api.server, user: ctx.settings.userName ?? '' },
      signal: abort.signal,
    });
    await reporter.close();
    const summary = stats.summary(abort.signal.aborted);
    if (ui) ctx.io.stderr.write(ui.failureReport(summary));
    if (abort.signal.aborted) {
      ctx.io.stderr.write('drive: interrupted; state saved. Run the same command again to resume.\n');
      return EXIT.INTERRUPTED;
    }
    return summary.failed > 0 ? EXIT.PARTIAL : EXIT.OK;
  } catch (err) {
    await reporter.close();
    if (abort.signal.aborted) {
      ctx.io.stderr.write('drive: interrupted; state saved. Run the same command again to resume.\n');
      return EXIT.INTERRUPTED;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export function registerTransfer(program: Command, io: Io): void {
  program
    .command('upload')
    .argument('<local...>', 'local files and folders (folders are uploaded with their whole tree)')
    .addOption(new Option('--to <remote>', 'remote folder to upload into (created when missing)').env('HCS_TO').default('/'))
    .addOption(new Option('--concurrency <n>', 'files at a time (1-32)').env('HCS_CONCURRENCY').default('4'))
    .addOption(new Option('--conflict <mode>', 'when the name exists: newVersion, keepBoth or skip').env('HCS_CONFLICT').choices(CONFLICTS).default('newVersion'))
    .option('--restart', 'ignore the saved state of an earlier run of this command')
    .description('Upload files and folder trees; resumable: re-run the same command after Ctrl-C or a crash')
    .action(
      action(io, async (ctx, locals: string[], opts: { to: string; concurrency: string; conflict: Conflict; restart?: boolean }) => {
        const concurrency = parseIntOption('--concurrency', opts.concurrency, 4, 1, 32);
        if (!CONFLICTS.includes(opts.conflict)) throw usageError(`--conflict must be one of ${CONFLICTS.join(', ')}`);
        return runJob(ctx, (job) => runUpload(job, { sources: locals, to: opts.to, concurrency, conflict: opts.conflict, restart: !!opts.restart }));
      }),
    );

  program
    .command('download')
    .argument('<remote...>', 'remote files and folders')
    .addOption(new Option('--out <dir>', 'local folder to download into').env('HCS_OUT').default('.'))
    .addOption(new Option('--concurrency <n>', 'files at a time (1-32)').env('HCS_CONCURRENCY').default('4'))
    .option('--overwrite', 'replace local files whose content differs')
    .option('--restart', 'ignore the saved state of an earlier run of this command')
    .description('Download files and folders; resumable and SHA-256 verified')
    .action(
      action(io, async (ctx, remotes: string[], opts: { out: string; concurrency: string; overwrite?: boolean; restart?: boolean }) => {
        const concurrency = parseIntOption('--concurrency', opts.concurrency, 4, 1, 32);
        return runJob(ctx, (job) => runDownload(job, { remotes, out: opts.out, concurrency, overwrite: !!opts.overwrite, restart: !!opts.restart }));
      }),
    );
}
