// Local lint rule: no import cycles, type-only imports included. eslint-plugin-import-x's no-cycle skips
// `import type`, yet a type-only back edge still ties two modules into one unit that cannot be read, tested or
// moved apart (cli/src/transfer.ts <-> cli/src/transfer-core-adapter.ts was such a cycle, issue #13 item 8).
// Follows relative imports only: packages are built as separate workspaces and npm rejects cycles between them.
import { readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';
import { importVisitors } from './import-sources.js';

const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SUFFIXES = ['', '.ts', '.tsx', '.js', '/index.ts', '/index.tsx', '/index.js'];

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function resolveRelative(from, spec) {
  if (!spec.startsWith('./') && !spec.startsWith('../')) return undefined;
  const base = resolve(dirname(from), spec);
  // NodeNext style: `./x.js` names the source file x.ts.
  const candidates = SUFFIXES.map((s) => base + s).concat(base.endsWith('.js') ? [base.slice(0, -3) + '.ts', base.slice(0, -3) + '.tsx'] : []);
  return candidates.find((p) => CODE.test(p) && isFile(p));
}

/** Imports of every file other than the one being linted, re-read when the file changes (editor servers). */
const importsCache = new Map();
function importsOf(file) {
  const { mtimeMs } = statSync(file);
  const hit = importsCache.get(file);
  if (hit?.mtimeMs === mtimeMs) return hit.deps;
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const deps = [...new Set(importedFiles.map((f) => resolveRelative(file, f.fileName)).filter(Boolean))];
  importsCache.set(file, { mtimeMs, deps });
  return deps;
}

/** The shortest chain of imports from `start` back to `target`, or undefined. */
function routeBack(start, target) {
  const cameFrom = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const dep of importsOf(file)) {
      if (dep === target) {
        const route = [];
        for (let f = file; f !== undefined; f = cameFrom.get(f)) route.unshift(f);
        return route;
      }
      if (!cameFrom.has(dep)) {
        cameFrom.set(dep, file);
        queue.push(dep);
      }
    }
  }
  return undefined;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles between modules, type-only imports included' },
    schema: [],
    messages: { cycle: 'Import cycle: {{route}}. Move what both sides need into a module that neither imports.' },
  },
  create(context) {
    const file = context.physicalFilename;
    const show = (f) => relative(context.cwd, f);
    function check(node, source) {
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const target = resolveRelative(file, source.value);
      if (target === undefined || target === file) return;
      const route = routeBack(target, file);
      if (route) context.report({ node, messageId: 'cycle', data: { route: [file, ...route, file].map(show).join(' -> ') } });
    }
    return importVisitors(check);
  },
};
