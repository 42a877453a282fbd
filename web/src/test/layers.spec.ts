// @vitest-environment node
// The web app's boundaries (issue #13 item 8) hold because lint fails on a crossing: this lints imports as if they
// were written at real places in src/ with the repository's own eslint.config.js, so a rule that is dropped, renamed
// or overridden by a later config block fails here, not silently.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({ cwd: REPO });

/** The boundary rules' messages for `code` written at web/src/<path>. */
async function crossings(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${REPO}web/src/${path}` });
  return (result?.messages ?? []).filter((m) => m.ruleId?.startsWith('local/')).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('web layers', () => {
  it('a feature importing app/ fails lint', async () => {
    expect(await crossings('features/files/probe.ts', "import { routeObjects } from '../../app/router.tsx';\nexport const r = routeObjects;\n")).toEqual([
      expect.stringMatching(/^local\/web-layers: A feature does not import app\/ \(\.\.\/\.\.\/app\/router\.tsx\)/),
    ]);
  });

  it('a feature importing another feature fails lint, a file or a folder alike', async () => {
    const code = "import { TransferLists } from '../transfers/TransferPanel.tsx';\nexport * from '../home';\nexport const t = TransferLists;\n";
    expect(await crossings('features/files/probe.ts', code)).toEqual([
      expect.stringMatching(/^local\/web-layers: Feature 'files' does not import feature 'transfers'/),
      expect.stringMatching(/^local\/web-layers: Feature 'files' does not import feature 'home'/),
    ]);
  });

  it('a feature may import its own files, shared/ and the generated API', async () => {
    const code = [
      "import { FileBrowser } from './FileBrowser.tsx';",
      "import { getUserInfo } from '../../shared/session.ts';",
      "import { TransferStore } from '../../shared/transfers/transfer-store.ts';",
      "import { listInstances } from '../../api/gen/files/files.ts';",
      'export const all = [FileBrowser, getUserInfo, TransferStore, listInstances];',
      '',
    ].join('\n');
    expect(await crossings('features/files/probe.ts', code)).toEqual([]);
  });

  it('shared/ importing a feature or app/ fails lint', async () => {
    const code = "import HomePage from '../features/home/HomePage.tsx';\nimport { PAGES } from '../app/pages.tsx';\nexport const p = [HomePage, PAGES];\n";
    const found = await crossings('shared/probe.ts', code);
    expect(found.filter((m) => m.startsWith('local/web-layers'))).toEqual([
      expect.stringMatching(/src\/shared\/ is used by app\/ and the features and imports neither \(\.\.\/features\/home\/HomePage\.tsx\)/),
      expect.stringMatching(/src\/shared\/ is used by app\/ and the features and imports neither \(\.\.\/app\/pages\.tsx\)/),
    ]);
  });

  it('test code is imported by specs only, never by the app', async () => {
    const code = "import { scriptedEngine } from '../test/fake-engine.ts';\nexport const e = scriptedEngine;\n";
    expect(await crossings('app/probe.ts', code)).toEqual([expect.stringMatching(/^local\/web-layers: src\/test\/ is test code/)]);
    expect(await crossings('app/probe.spec.ts', code)).toEqual([]);
  });

  it('the route table importing a page again is an import cycle', async () => {
    const routes = readFileSync(`${REPO}web/src/shared/routes.ts`, 'utf8');
    const found = await crossings('shared/routes.ts', `${routes}\nexport const home = () => import('../features/home/HomePage.tsx');\n`);
    expect(found).toContainEqual(expect.stringMatching(/^local\/no-import-cycle: Import cycle: web\/src\/shared\/routes\.ts -> web\/src\/features\/home\/HomePage\.tsx -> web\/src\/shared\/libraries\.ts -> web\/src\/shared\/routes\.ts/));
  });
});
