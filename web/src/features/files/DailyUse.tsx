// The files screen's keyboard and right-click menu (issue #22), loaded after the list: Delete, F2, Ctrl/Cmd+A,
// Enter, Backspace and the arrow keys act on the list, and the context menu offers the row menu's items for the
// clicked item, or the bulk ones for the selection it is part of.
import { useEffect, useRef } from 'react';
import { Dropdown } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Instance } from '../../api/gen/model/instance.ts';
import { cannotDelete, moreMenuItems, type RowAction } from './FileTable.tsx';
import { rowClickSelect } from './selection.ts';
import { act, goUp, type GestureHost } from './gestures.ts';
import './strings.ts';

export { crumbGestures, rowGestures } from './gestures.ts';

export interface DailyUseProps {
  host: GestureHost;
  menu: { x: number; y: number; items: Instance[] } | undefined;
  closeMenu: () => void;
}

// Keys typed into a field, or while a dialog or a menu is up, belong to that. A dialog is up while its box is drawn
// (.ant-modal), not its frame: antd takes the box away first and the empty frame a moment later (without motion, a
// key pressed in between was lost).
function busy(e: KeyboardEvent): boolean {
  const el = e.target as HTMLElement | null;
  if (el?.closest('input, textarea, select, [contenteditable="true"], [role="combobox"], .ant-modal, .ant-drawer, .ant-dropdown')) return true;
  const overlays = document.querySelectorAll<HTMLElement>('.ant-modal, .ant-drawer-open, .ant-image-preview-root');
  return [...overlays].some((o) => o.checkVisibility());
}

export function DailyUse(props: DailyUseProps) {
  const { t } = useTranslation();
  // The listener is added once and reads the screen as it is now.
  const live = useRef(props);
  live.current = props;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && live.current.menu) {
        live.current.closeMenu();
        return;
      }
      if (e.defaultPrevented || busy(e)) return;
      const h = live.current.host;
      const { rows, selected, setSelected, focusId, setFocusId, anchor } = h;
      const focused = rows.find((r) => r.instanceId === focusId);
      const targets = selected.length > 0 ? [...selected] : focused ? [focused] : [];
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.key.toLowerCase() === 'a') {
        setSelected([...rows]);
      } else if (e.key === 'Delete') {
        if (targets.length === 0) return;
        act(h, 'delete', targets);
      } else if (e.key === 'F2') {
        const item = targets.length === 1 ? targets[0] : focused;
        if (!item) return;
        act(h, 'rename', [item]);
      } else if (e.key === 'Enter') {
        const item = focused ?? (selected.length === 1 ? selected[0] : undefined);
        if (!item) return;
        act(h, 'open', [item]);
      } else if (e.key === 'Backspace') {
        goUp(h);
      } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp' || e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
        if (rows.length === 0) return;
        const at = focused ? rows.indexOf(focused) : -1;
        const step = e.key === 'ArrowDown' || e.key === 'ArrowRight' ? 1 : -1;
        const next = rows[at < 0 ? (step > 0 ? 0 : rows.length - 1) : Math.min(rows.length - 1, Math.max(0, at + step))]!;
        setFocusId(next.instanceId);
        if (e.shiftKey) setSelected(rowClickSelect(rows, selected, next, anchor.current ?? focusId, { shift: true, toggle: false }));
        else {
          setSelected([next]);
          anchor.current = next.instanceId;
        }
        document.querySelector(`[data-row-key="${CSS.escape(next.instanceId)}"]`)?.scrollIntoView({ block: 'nearest' });
      } else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const { menu, host, closeMenu } = props;
  if (!menu) return null;
  const one = menu.items.length === 1 ? menu.items[0]! : undefined;
  const run = (a: RowAction) => () => {
    closeMenu();
    act(host, a, menu.items);
  };
  const items = one
    ? [
        { key: 'open', label: t(one.classifierId === 'Folder' ? 'filesDaily.open' : 'files.preview'), onClick: run('open') },
        { key: 'download', label: t('files.download'), onClick: run('download') },
        { key: 'delete', label: t('files.delete'), danger: true, disabled: cannotDelete(one), onClick: run('delete') },
        { type: 'divider' as const },
        ...moreMenuItems(t, one, (a) => run(a)()),
      ]
    : [
        { key: 'download', label: t('files.download'), onClick: run('download') },
        { key: 'copy', label: t('files.copy'), onClick: run('copy') },
        { key: 'move', label: t('files.move'), onClick: run('move') },
        { key: 'delete', label: t('files.delete'), danger: true, onClick: run('delete') },
      ];
  return (
    <Dropdown open menu={{ items }} onOpenChange={(open) => !open && closeMenu()} trigger={['contextMenu']}>
      <span data-testid="context-menu-anchor" style={{ position: 'fixed', left: menu.x, top: menu.y, width: 1, height: 1 }} />
    </Dropdown>
  );
}
