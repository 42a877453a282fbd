// Stands in for antd's table column-filter dropdown (antd/es/table/hooks/useFilter/FilterDropdown.js) in builds; see
// vite.config.ts (noTableFilters). No table of the app declares column filters; the dropdown's static imports (Tree,
// Menu, Radio, a search input) weighed about 15 KB gzip on /personalFile. A column given `filters` fails loudly
// instead of drawing nothing.
export function flattenKeys(filters) {
  const keys = [];
  for (const { value, children } of filters || []) {
    keys.push(value);
    if (children) keys.push(...flattenKeys(children));
  }
  return keys;
}

export default function FilterDropdown() {
  throw new Error('Table column filters are not bundled: remove the noTableFilters plugin in web/vite.config.ts to use them');
}
