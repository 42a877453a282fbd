// Multi-select with shift (issue #16): a plain click toggles one item and becomes the anchor; a shift-click selects
// every item between the anchor and the clicked one, in the order the screen shows them, adding to the selection.
import type { Instance } from '../../api/gen/model/instance.ts';

export function clickSelect(rows: readonly Instance[], selected: readonly Instance[], clicked: Instance, anchorId: string | undefined, shift: boolean): Instance[] {
  const ids = new Set(selected.map((s) => s.instanceId));
  const from = anchorId === undefined ? -1 : rows.findIndex((r) => r.instanceId === anchorId);
  const to = rows.findIndex((r) => r.instanceId === clicked.instanceId);
  if (shift && from >= 0 && to >= 0) {
    const run = rows.slice(Math.min(from, to), Math.max(from, to) + 1);
    return [...selected, ...run.filter((r) => !ids.has(r.instanceId))];
  }
  return ids.has(clicked.instanceId) ? selected.filter((s) => s.instanceId !== clicked.instanceId) : [...selected, clicked];
}

/**
 * A click on a row or card (issue #22, as in a desktop file manager): alone it selects just that item; with ctrl/cmd
 * it toggles the item; with shift it selects the run from the anchor to the item, replacing the selection.
 */
export function rowClickSelect(rows: readonly Instance[], selected: readonly Instance[], clicked: Instance, anchorId: string | undefined, keys: { shift: boolean; toggle: boolean }): Instance[] {
  if (keys.shift) {
    const from = anchorId === undefined ? -1 : rows.findIndex((r) => r.instanceId === anchorId);
    const to = rows.findIndex((r) => r.instanceId === clicked.instanceId);
    if (from >= 0 && to >= 0) return rows.slice(Math.min(from, to), Math.max(from, to) + 1);
  }
  if (keys.toggle) return clickSelect(rows, selected, clicked, undefined, false);
  return [clicked];
}
