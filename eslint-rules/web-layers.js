// Local lint rule: the web app's folders are layers (issue #13 item 8). app/ composes the features; a feature
// (features/<name>/) imports neither app/ nor another feature, so it can be read, tested and removed on its own;
// what two of them need lives in shared/, which in turn imports neither app/ nor a feature. test/ (fakes, render
// helpers) is for specs only, so no test double can reach the production bundle.
// Paths are compared, not resolved to files: `../files` (a folder) crosses the boundary as much as a file does.
import { dirname, relative, resolve, sep } from 'node:path';
import { importVisitors } from './import-sources.js';

const SPEC = /\.spec\.[cm]?[jt]sx?$/;

/** Where a path sits: its top folder under root and, for features, the feature's name; undefined outside root. */
function placeOf(root, path) {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return undefined;
  const [top, second] = rel.split(sep);
  return { top, feature: top === 'features' ? second : undefined };
}

export default {
  meta: {
    type: 'problem',
    docs: { description: "Keep the web app's layers apart: features, app, shared and test code" },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string', description: 'Absolute path of the web source folder (web/src)' } },
        required: ['root'],
        additionalProperties: false,
      },
    ],
    messages: {
      featureToApp: 'A feature does not import app/ ({{target}}): move what features need into src/shared/, or let app/ pass it in.',
      featureToFeature:
        "Feature '{{from}}' does not import feature '{{to}}' ({{target}}): move what both need into src/shared/.",
      sharedUp: 'src/shared/ is used by app/ and the features and imports neither ({{target}}).',
      testCode: 'src/test/ is test code ({{target}}): only specs and other test code import it, never the app.',
    },
  },
  create(context) {
    const root = resolve(context.options[0].root);
    const file = context.physicalFilename;
    const from = placeOf(root, file);
    if (from === undefined) return {};
    const isTestCode = from.top === 'test' || SPEC.test(file);

    function check(node, source) {
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const spec = source.value;
      if (!spec.startsWith('./') && !spec.startsWith('../')) return;
      const to = placeOf(root, resolve(dirname(file), spec));
      if (to === undefined) return;
      const data = { target: spec, from: from.feature, to: to.feature };
      if (to.top === 'test' && !isTestCode) return context.report({ node, messageId: 'testCode', data });
      if (from.top === 'features') {
        if (to.top === 'app') return context.report({ node, messageId: 'featureToApp', data });
        if (to.top === 'features' && to.feature !== from.feature) return context.report({ node, messageId: 'featureToFeature', data });
      }
      if (from.top === 'shared' && (to.top === 'app' || to.top === 'features')) context.report({ node, messageId: 'sharedUp', data });
    }

    return {
      ...importVisitors(check),
      // vi.mock('../../app/x.ts') ties a spec to that module as much as an import does.
      'CallExpression[callee.object.name="vi"][callee.property.name=/^(mock|doMock|importActual)$/]': (node) =>
        check(node, node.arguments[0]),
    };
  },
};
