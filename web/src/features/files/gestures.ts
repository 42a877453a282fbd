// The files screen's mouse gestures on rows and cards (issue #22): click to select (shift for a run, ctrl/cmd to
// toggle), double-click to open, right-click for the item menu, and drag rows onto a folder to move them there.
// Loaded with DailyUse.tsx after the list: the first paint shows rows without these handlers.
import type { DragEvent, HTMLAttributes, MouseEvent } from 'react';
import { moveInstances } from '../../api/gen/files/files.ts';
import type { BatchResultResponse } from '../../api/gen/model/batchResultResponse.ts';
import type { Instance } from '../../api/gen/model/instance.ts';
import { fromDataTransfer, type PickResult } from '../../shared/transfers/pick-files.ts';
import { cannotEdit, type RowAction } from './FileTable.tsx';
import { rowClickSelect } from './selection.ts';

/** What a drag of rows carries: the dragged items' ids, under a type the browser's own file drops never have. */
export const DRAG_TYPE = 'application/x-hcs-instances';

// Clicks on a row's own controls (its name link, checkbox, buttons, star, menus) do their own thing.
const OWN_CONTROL = 'a, button, input, label, [role="button"], .ant-table-selection-column, .ant-checkbox-wrapper, .ant-card-actions, .ant-dropdown-trigger';

/**
 * Whether an event reached the row only through React's tree: a menu, dropdown or dialog the row opened is rendered in
 * a portal elsewhere in the page, but its events bubble to the row's handlers. A click on the row's more-menu item
 * must not also select the row (it re-rendered the list under the open menu, and the item's dialog never showed).
 */
const fromPortal = (e: { currentTarget: EventTarget; target: EventTarget }): boolean => !(e.currentTarget as Node).contains(e.target as Node);

export interface GestureHost {
  rows: readonly Instance[];
  crumbs: readonly Pick<Instance, 'instanceId' | 'instanceName'>[];
  /** The folder on screen, from the library root. */
  path: string;
  selected: readonly Instance[];
  setSelected: (s: Instance[]) => void;
  focusId: string | undefined;
  setFocusId: (id: string) => void;
  anchor: { current: string | undefined };
  onRow: (a: RowAction, item: Instance) => void;
  doDownload: (items: Instance[]) => void;
  doDelete: (items: Instance[]) => void;
  setMoveCopy: (m: { mode: 'move' | 'copy'; items: Instance[] }) => void;
  /** Shows a folder (undefined: the root), selection cleared. */
  go: (parentId: string | undefined) => void;
  notice: (kind: 'warning', key: string, vars: Record<string, string>) => void;
  reportBatch: (res: BatchResultResponse, items: readonly Instance[]) => void;
  afterChange: () => void;
  notifyError: (err: unknown, name?: string) => void;
  startUpload: (pick: PickResult, into: { id: string; path: string }) => Promise<void>;
  openMenu: (at: { x: number; y: number }, items: Instance[]) => void;
  dropTarget: string | undefined;
  setDropTarget: (id: string | undefined) => void;
}

/** Several items at once for copy, move, download and delete; one item for everything the row menu does. */
export function act(h: GestureHost, a: RowAction, items: Instance[]): void {
  if (items.length === 1) h.onRow(a, items[0]!);
  else if (a === 'download') h.doDownload(items);
  else if (a === 'delete') h.doDelete(items);
  else if (a === 'copy' || a === 'move') h.setMoveCopy({ mode: a, items });
}

export function goUp(h: GestureHost): void {
  if (h.crumbs.length > 1) h.go(h.crumbs.length === 2 ? undefined : h.crumbs[h.crumbs.length - 2]!.instanceId);
}

async function moveInto(h: GestureHost, ids: readonly string[], targetId: string): Promise<void> {
  const items = h.rows.filter((r) => ids.includes(r.instanceId) && r.instanceId !== targetId);
  if (items.length === 0) return;
  const blocked = items.filter(cannotEdit);
  if (blocked.length > 0) {
    h.notice('warning', 'files.noPermission', { names: blocked.map((b) => b.instanceName).join(', ') });
    return;
  }
  try {
    h.reportBatch(await moveInstances({ ids: items.map((i) => i.instanceId).join(','), targetInstanceId: targetId }, { quiet: true }), items);
    h.afterChange();
  } catch (err) {
    h.notifyError(err, items.length === 1 ? items[0]!.instanceName : undefined);
  }
}

/** Rows dragged onto a folder move there; the user's own files dropped on it upload into it. */
function dropOn(h: GestureHost, folder: Pick<Instance, 'instanceId' | 'instanceName'>, e: DragEvent): void {
  const moved = e.dataTransfer.getData(DRAG_TYPE);
  if (moved) {
    void moveInto(h, JSON.parse(moved) as string[], folder.instanceId);
    return;
  }
  // Read the entries before any await: the DataTransfer is cleared once the handler yields.
  const picked = fromDataTransfer(e.dataTransfer);
  void picked.then((p) => h.startUpload(p, { id: folder.instanceId, path: (h.path === '/' ? '' : h.path) + '/' + folder.instanceName }));
}

/** The items an action on `r` applies to: the selection when `r` is part of it, else `r` alone. */
export const actedOn = (r: Instance, selected: readonly Instance[]): Instance[] => (selected.some((s) => s.instanceId === r.instanceId) ? [...selected] : [r]);

export const acceptsDrop = (e: DragEvent): boolean => e.dataTransfer.types.includes(DRAG_TYPE) || e.dataTransfer.types.includes('Files');

/** `marks`: what the rows' outlines show, taken apart so a new row function is made only when they change. */
export function rowGestures(h: GestureHost, marks: Pick<GestureHost, 'focusId' | 'dropTarget'>) {
  return (r: Instance): HTMLAttributes<HTMLElement> & { 'data-focused'?: boolean } => {
    const folder = r.classifierId === 'Folder';
    const focused = marks.focusId === r.instanceId;
    const target = marks.dropTarget === r.instanceId;
    return {
      'data-focused': focused || undefined,
      style: target ? { outline: '2px dashed #1677ff', outlineOffset: -2 } : focused ? { outline: '1px solid #1677ff', outlineOffset: -1 } : undefined,
      onClick: (e: MouseEvent) => {
        if (fromPortal(e) || (e.target as HTMLElement).closest(OWN_CONTROL)) return;
        h.setSelected(rowClickSelect(h.rows, h.selected, r, h.anchor.current, { shift: e.shiftKey, toggle: e.ctrlKey || e.metaKey }));
        h.setFocusId(r.instanceId);
        if (!e.shiftKey) h.anchor.current = r.instanceId;
      },
      onDoubleClick: (e: MouseEvent) => {
        if (!fromPortal(e) && !(e.target as HTMLElement).closest(OWN_CONTROL)) h.onRow('open', r);
      },
      onContextMenu: (e: MouseEvent) => {
        if (fromPortal(e)) return;
        e.preventDefault();
        const items = actedOn(r, h.selected);
        if (items.length === 1) h.setSelected(items);
        h.setFocusId(r.instanceId);
        h.openMenu({ x: e.clientX, y: e.clientY }, items);
      },
      draggable: true,
      onDragStart: (e: DragEvent) => {
        if (fromPortal(e)) return;
        const items = actedOn(r, h.selected);
        e.dataTransfer.setData(DRAG_TYPE, JSON.stringify(items.map((i) => i.instanceId)));
        e.dataTransfer.effectAllowed = 'move';
      },
      ...(folder
        ? {
            onDragOver: (e: DragEvent) => {
              if (!acceptsDrop(e)) return;
              e.preventDefault();
              e.stopPropagation();
              e.dataTransfer.dropEffect = e.dataTransfer.types.includes(DRAG_TYPE) ? 'move' : 'copy';
              if (!target) h.setDropTarget(r.instanceId);
            },
            onDragLeave: (e: DragEvent) => {
              if (!(e.currentTarget as HTMLElement).contains(e.relatedTarget as Node | null)) h.setDropTarget(undefined);
            },
            onDrop: (e: DragEvent) => {
              if (!acceptsDrop(e)) return;
              e.preventDefault();
              e.stopPropagation();
              h.setDropTarget(undefined);
              dropOn(h, r, e);
            },
          }
        : {}),
    };
  };
}

/** A crumb is a folder too: rows dragged onto it move there. */
export function crumbGestures(h: GestureHost, crumb: Pick<Instance, 'instanceId' | 'instanceName'>): HTMLAttributes<HTMLElement> {
  return {
    style: h.dropTarget === crumb.instanceId ? { outline: '2px dashed #1677ff' } : undefined,
    onDragOver: (e: DragEvent) => {
      if (!e.dataTransfer.types.includes(DRAG_TYPE)) return;
      e.preventDefault();
      e.stopPropagation();
      if (h.dropTarget !== crumb.instanceId) h.setDropTarget(crumb.instanceId);
    },
    onDragLeave: () => h.setDropTarget(undefined),
    onDrop: (e: DragEvent) => {
      if (!e.dataTransfer.types.includes(DRAG_TYPE)) return;
      e.preventDefault();
      e.stopPropagation();
      h.setDropTarget(undefined);
      dropOn(h, crumb, e);
    },
  };
}
