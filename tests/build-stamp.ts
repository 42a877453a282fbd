// Whether the build's outputs (web/dist, cli/dist, transfer-core/dist) were made from the sources as they are now.
//   node tests/build-stamp.ts write   `npm run build` ends with it, once everything built
//   node tests/build-stamp.ts check   exits 0 only when the outputs exist and the sources are the ones last built
// npm test's checks (run-checks.ts) build only when `check` fails. CI has just built the same checkout through the
// README's start command (.ci/fresh-machine.sh), and building it a second time took 33 s of a lane.
// The stamp is a SHA-256 over every file git knows under the built workspaces and the root files they build with
// (tracked, or untracked and not ignored): names and contents. Without git, or with a listed file unreadable,
// `check` fails and the build runs.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const INPUTS = ['web', 'cli', 'transfer-core', 'openapi', 'package.json', 'package-lock.json', 'tsconfig.base.json'];
const OUTPUTS = ['web/dist/index.html', 'cli/dist/hcs-drive.mjs', 'transfer-core/dist'];
const STAMP = join(ROOT, 'node_modules/.cache/hcs/build-stamp');

function sourcesHash(): string | undefined {
  try {
    const listed = execFileSync('git', ['ls-files', '-z', '-co', '--exclude-standard', '--', ...INPUTS], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    const files = [...new Set(listed.toString('utf8').split('\0').filter(Boolean))].sort();
    if (files.length === 0) return undefined;
    const h = createHash('sha256');
    for (const f of files) {
      const bytes = readFileSync(join(ROOT, f));
      h.update(`${f}\0${bytes.length}\0`).update(bytes);
    }
    return h.digest('hex');
  } catch {
    return undefined;
  }
}

const [mode] = process.argv.slice(2);
if (mode === 'write') {
  const hash = sourcesHash();
  mkdirSync(dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, hash ?? '');
} else if (mode === 'check') {
  const stamp = existsSync(STAMP) ? readFileSync(STAMP, 'utf8') : '';
  const fresh = stamp !== '' && OUTPUTS.every((o) => existsSync(join(ROOT, o))) && sourcesHash() === stamp;
  console.log(fresh ? '[build] the outputs are built from these sources: not building again' : '[build] building');
  process.exit(fresh ? 0 : 1);
} else {
  console.error('usage: node tests/build-stamp.ts write|check');
  process.exit(2);
}
