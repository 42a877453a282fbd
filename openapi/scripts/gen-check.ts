// npm run gen:check - regenerates everything from the contract and fails when the committed output differs.
import { execSync } from 'node:child_process';

const GENERATED = ['openapi/dist', 'openapi/gen', 'web/src/api/gen'];
const root = new URL('../..', import.meta.url).pathname;
execSync('npm run gen', { cwd: root, stdio: 'inherit' });
const diff = execSync(`git status --porcelain -- ${GENERATED.join(' ')}`, { cwd: root, encoding: 'utf8' }).trim();
if (diff) {
  console.error('\ngen:check failed: generated code differs from the contract. Run `npm run gen` and commit:\n' + diff);
  execSync(`git --no-pager diff --stat -- ${GENERATED.join(' ')}`, { cwd: root, stdio: 'inherit' });
  process.exit(1);
}
console.log('gen:check ok: generated code matches the contract');
