// Every place a module names another one, for the local rules that follow imports: static imports, re-exports,
// dynamic import() and `import('x').T` types. Each visitor hands the node and its source literal to `check`.
export function importVisitors(check) {
  return {
    ImportDeclaration: (node) => check(node, node.source),
    ExportNamedDeclaration: (node) => check(node, node.source),
    ExportAllDeclaration: (node) => check(node, node.source),
    ImportExpression: (node) => check(node, node.source),
    TSImportType: (node) => check(node, node.argument?.literal ?? node.argument),
  };
}
