// V8 heap settings the server runs with, applied before anything else loads (start.ts imports this first).
//
// Measured on the benchmark (server child process, /proc status and v8.getHeapSpaceStatistics every second):
// under a burst of small uploads V8 doubled the young generation twice (new space 32 -> 64 -> 128 MiB), and
// objects that outlive a few scavenges (requests waiting on fsync) were promoted until the old generation reached
// about four times its live size (26 -> 110 MiB live+garbage) before a full GC; together that took the server
// from ~150 to 350-440 MiB RSS, none of it live data (a heap snapshot showed ~35 MiB). Capping the semi-space at
// 16 MiB and growing the old-generation limit by 50% over the live size instead of up to 4x keeps the same run
// under 190 MiB with no measurable loss in request throughput.
//
// glibc raises its mmap threshold each time a large block (the 1-4 MiB buffers of a big transfer) is freed, so
// afterwards every allocation up to that size comes from the main heap, where it fragments: in the full benchmark
// the main arena then grew 36 -> 77 MiB during the burst of small uploads that followed the 1 GiB transfer
// (244 MiB RSS). A fixed 256 KiB threshold keeps large blocks in their own mappings, returned on free; the same
// run peaked at 188 MiB with no change in transfer speed. An operator's own MALLOC_MMAP_THRESHOLD_ wins.
//
// V8 pretenures an allocation site (allocates its objects straight in the old generation) once most of its objects
// have survived scavenges. Bulk requests (500 folders created in one POST) keep many objects alive across
// scavenges, and the sites they share with every other request stayed pretenured afterwards: measured on the
// listing benchmark after creating 20,000 folders, each scavenge kept 1.2 MiB alive instead of 0.15 MiB (young
// objects held by dead pretenured ones until the next full GC), a scavenge took 3.0 ms instead of 0.8 ms, and
// listing fell from about 1,550 to 1,280-1,500 req/s for as long as the process ran (five 5 s runs, no recovery).
// With pretenuring off, the same run kept 0.15 MiB per scavenge and 1,450-1,550 req/s. The cost is on requests
// whose objects do live long: 10,000 small-file uploads averaged 658 files/s against 701 with pretenuring (five
// alternating runs each, -6%, inside their +-10% spread); streamed zips measured no different.
//
// The heap sizes can only be given at process start (v8.setFlagsFromString has no effect on a heap already
// configured), and the pretenuring switch goes with them so that no site is pretenured before it applies: the
// process replaces itself once with the flags added: same pid, same stdio, same arguments.
// Flags the operator already passed (command line, or NODE_OPTIONS where Node allows them) are kept as given;
// HCS_NODE_TUNING=off disables this.
// A value of undefined is a switch: given as the name alone.
const FLAGS: ReadonlyArray<readonly [name: string, value: string | undefined]> = [
  ['--max-semi-space-size', '16'],
  ['--heap-growing-percent', '50'],
  ['--no-allocation-site-pretenuring', undefined],
];

/** Whether the operator gave the flag, in either spelling (- or _) and, for a switch, either sense (--x or --no-x). */
function given(name: string): boolean {
  const base = name.replace(/^--(no-)?/, '');
  const forms = [base, `no-${base}`].flatMap((f) => [`--${f}`, `--${f.replaceAll('-', '_')}`]);
  const args = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return args.some((a) => forms.some((f) => a === f || a.startsWith(`${f}=`)));
}

export function missingFlags(): string[] {
  return FLAGS.filter(([name]) => !given(name)).map(([name, value]) => (value === undefined ? name : `${name}=${value}`));
}

const missing = missingFlags();
const mallocEnv = process.env.MALLOC_MMAP_THRESHOLD_ === undefined ? { MALLOC_MMAP_THRESHOLD_: String(256 * 1024) } : {};
const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
if (missing.length > 0 && process.env.HCS_NODE_TUNING !== 'off' && !process.env.HCS_NODE_TUNED && typeof execve === 'function') {
  // HCS_NODE_TUNED guards against a loop should the new image somehow not see its flags.
  execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, ...mallocEnv, HCS_NODE_TUNED: '1' });
}
