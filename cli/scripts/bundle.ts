// Builds the single-file `drive` the server hands out as its client tool (getToolName): cli/src with every
// dependency in one ES module, runnable with plain `node hcs-drive.mjs` (Node >= 22.18) on Linux, macOS and Windows,
// no npm install needed. Written to cli/dist/hcs-drive.mjs, where the server looks for it.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const out = fileURLToPath(new URL('../dist/hcs-drive.mjs', import.meta.url));
await build({
  entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))],
  outfile: out,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // Some dependencies are CommonJS and call require() for Node's own modules.
  banner: { js: "#!/usr/bin/env node\nimport { createRequire as __hcsRequire } from 'node:module';\nconst require = __hcsRequire(import.meta.url);" },
  // ink loads its devtools only when asked to (DEV=true); they are not part of the tool, so an empty module
  // stands in (marking them external would leave an import nothing can satisfy).
  plugins: [
    {
      name: 'no-devtools',
      setup(b) {
        b.onResolve({ filter: /^react-devtools-core$/ }, (args) => ({ path: args.path, namespace: 'no-devtools' }));
        b.onLoad({ filter: /.*/, namespace: 'no-devtools' }, () => ({ contents: 'export default { initialize() {}, connectToDevTools() {} };', loader: 'js' }));
      },
    },
  ],
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'eof',
  logLevel: 'warning',
});
console.log(`bundled ${out}`);
