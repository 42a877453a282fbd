// The list table of the files screens (issue #22 weight): antd's Table brought its virtual body, filter and column
// machinery, Radio, rc-tree's check logic and form hooks onto the first paint, 30 KB of JS gzip for what the screens
// use of it: a header that stays while the rows scroll, the name and actions kept in view when the list scrolls
// sideways, checkboxes with select-all and shift runs, sortable headers and ellipsis. It is drawn in antd's colours
// from the theme's tokens, so it follows ConfigProvider and looks like the tables of the other screens.
import { useCallback, useContext, useLayoutEffect, useRef, useState, type CSSProperties, type HTMLAttributes, type ReactNode } from 'react';
import { ConfigProvider, Spin, theme } from 'antd';
import enUS from 'antd/es/locale/en_US';
import './list-table.css';

export type SortOrder = 'asc' | 'desc';

export interface ListColumn<T> {
  key: string;
  title: ReactNode;
  render: (row: T) => ReactNode;
  /** Fixed width in px; a column without one takes what the table has left (at least minWidth). */
  width?: number;
  minWidth?: number;
  /** Cut long content with an ellipsis rather than wrapping the row. */
  ellipsis?: boolean;
  /** Kept in view at that edge while the rows scroll sideways. */
  fixed?: 'left' | 'right';
  /** The column sorts (its header is a button); its current order, or null when the list is sorted by another. */
  sortOrder?: SortOrder | null;
}

export interface ListTableProps<T> {
  rows: readonly T[];
  rowKey: (row: T) => string;
  columns: readonly ListColumn<T>[];
  /** The checkbox column: omitted, the table has none. */
  selection?: {
    selected: readonly T[];
    onChange: (rows: T[]) => void;
    /** Each row's checkbox's accessible name (the header's is antd's "select the page", in the app's language). */
    rowLabel: (row: T) => string;
  };
  onSort?: (key: string) => void;
  loading?: boolean;
  /** The table's height, header included: the header stays, the rows scroll under it. */
  height?: number;
  /** Wider than this the table fills its box; narrower, it scrolls sideways. */
  scrollX?: number;
  rowProps?: (row: T) => HTMLAttributes<HTMLElement>;
  'data-testid'?: string;
}

const CHECK_WIDTH = 48;

/**
 * The header click's next order, as antd's sorter cycles: another column starts ascending, then descending, then the
 * column lets go (null: the caller's default order).
 */
export function nextSort(current: SortOrder | null | undefined): SortOrder | null {
  return current === 'asc' ? 'desc' : current === 'desc' ? null : 'asc';
}

/**
 * A checkbox click's new selection: a plain click toggles the row and becomes the anchor; a shift-click gives the run
 * from the anchor to the row the clicked row's new state (antd's rowSelection did the same).
 */
export function toggleRows<T>(rows: readonly T[], selectedKeys: ReadonlySet<string>, rowKey: (r: T) => string, clicked: T, anchor: string | undefined, shift: boolean): T[] {
  const on = !selectedKeys.has(rowKey(clicked));
  const to = rows.indexOf(clicked);
  const from = shift && anchor !== undefined ? rows.findIndex((r) => rowKey(r) === anchor) : -1;
  const run = new Set((from >= 0 ? rows.slice(Math.min(from, to), Math.max(from, to) + 1) : [clicked]).map(rowKey));
  return rows.filter((r) => (run.has(rowKey(r)) ? on : selectedKeys.has(rowKey(r))));
}

function ariaSort(order: SortOrder | null | undefined): 'ascending' | 'descending' | 'none' {
  return order === 'asc' ? 'ascending' : order === 'desc' ? 'descending' : 'none';
}

export function ListTable<T>({ rows, rowKey, columns, selection, onSort, loading = false, height, scrollX, rowProps, 'data-testid': testId }: ListTableProps<T>) {
  const { token } = theme.useToken();
  const locale = { ...enUS.Table, ...useContext(ConfigProvider.ConfigContext).locale?.Table };
  const anchor = useRef<string | undefined>(undefined);
  const box = useRef<HTMLDivElement>(null);
  // The sticky columns cast their shadow only over rows scrolled under them, as antd's did.
  const [under, setUnder] = useState({ left: false, right: false });
  const measure = useCallback(() => {
    const el = box.current;
    if (!el) return;
    const next = { left: el.scrollLeft > 0, right: el.scrollLeft + el.clientWidth < el.scrollWidth - 1 };
    setUnder((was) => (was.left === next.left && was.right === next.right ? was : next));
  }, []);
  useLayoutEffect(() => {
    measure();
    window.addEventListener('resize', measure);
    return () => window.removeEventListener('resize', measure);
  }, [measure, rows.length, columns.length]);
  const selectedKeys = new Set((selection?.selected ?? []).map(rowKey));
  const onPage = rows.filter((r) => selectedKeys.has(rowKey(r))).length;
  const all = rows.length > 0 && onPage === rows.length;
  // Sticky offsets: the name column sits right of the checkboxes, each fixed column after those before it.
  const left = new Map<string, number>();
  const right = new Map<string, number>();
  let offset = selection ? CHECK_WIDTH : 0;
  for (const c of columns.filter((c) => c.fixed === 'left')) {
    left.set(c.key, offset);
    offset += c.width ?? c.minWidth ?? 0;
  }
  offset = 0;
  for (const c of columns.filter((c) => c.fixed === 'right').reverse()) {
    right.set(c.key, offset);
    offset += c.width ?? 0;
  }
  const colours = {
    '--lt-bg': token.colorBgContainer,
    '--lt-head-bg': token.colorFillAlter,
    '--lt-border': token.colorBorderSecondary,
    // antd's own table colours (its rowHoverBg, rowSelectedBg and rowSelectedHoverBg tokens).
    '--lt-hover': token.colorFillAlter,
    '--lt-selected': token.colorPrimaryBg,
    '--lt-selected-hover': token.colorPrimaryBgHover,
    '--lt-head-color': token.colorTextHeading,
    '--lt-sort-color': token.colorPrimary,
    '--lt-text': token.colorText,
    '--lt-font-size': `${token.fontSize}px`,
  } as CSSProperties;
  const stick = (c: ListColumn<T>): CSSProperties | undefined =>
    left.has(c.key) ? { left: left.get(c.key) } : right.has(c.key) ? { right: right.get(c.key) } : undefined;
  const fixedClass = (c: ListColumn<T>) => (c.fixed ? ` hcs-lt-fixed hcs-lt-fixed-${c.fixed}` : '') + (c.ellipsis ? ' hcs-lt-ellipsis' : '');
  const toggleAll = () => selection?.onChange(all ? [] : [...rows]);
  return (
    <Spin spinning={loading}>
      <div
        ref={box}
        className={`hcs-lt${under.left ? ' hcs-lt-under-left' : ''}${under.right ? ' hcs-lt-under-right' : ''}`}
        onScroll={measure}
        style={{ ...colours, maxHeight: height }}
        data-testid={testId}
      >
        <table style={{ width: scrollX, minWidth: '100%' }}>
          <colgroup>
            {selection && <col style={{ width: CHECK_WIDTH }} />}
            {columns.map((c) => (
              <col key={c.key} style={{ width: c.width, minWidth: c.minWidth }} />
            ))}
          </colgroup>
          <thead>
            <tr>
              {selection && (
                <th className="hcs-lt-check hcs-lt-fixed hcs-lt-fixed-left" style={{ left: 0 }}>
                  <label>
                    <input
                      type="checkbox"
                      aria-label={String(locale.selectAll)}
                      checked={all}
                      disabled={rows.length === 0}
                      ref={(el) => {
                        if (el) el.indeterminate = onPage > 0 && !all;
                      }}
                      onChange={toggleAll}
                    />
                  </label>
                </th>
              )}
              {columns.map((c) => (
                <th key={c.key} className={`hcs-lt-head${fixedClass(c)}`} style={stick(c)} aria-sort={c.sortOrder !== undefined && onSort ? ariaSort(c.sortOrder) : undefined}>
                  {c.sortOrder !== undefined && onSort ? (
                    <button type="button" className="hcs-lt-sorter" onClick={() => onSort(c.key)}>
                      <span className="hcs-lt-title">{c.title}</span>
                      <span className={`hcs-lt-arrows${c.sortOrder ? ` hcs-lt-${c.sortOrder}` : ''}`} aria-hidden>
                        <span />
                        <span />
                      </span>
                    </button>
                  ) : (
                    c.title
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => {
              const key = rowKey(r);
              const selected = selectedKeys.has(key);
              const { className, ...props } = rowProps?.(r) ?? {};
              return (
                <tr
                  key={key}
                  {...props}
                  data-row-key={key}
                  aria-selected={selection ? selected : undefined}
                  className={`hcs-lt-row${selected ? ' hcs-lt-row-selected' : ''}${className ? ` ${className}` : ''}`}
                >
                  {selection && (
                    <td className="hcs-lt-check hcs-lt-fixed hcs-lt-fixed-left" style={{ left: 0 }}>
                      <label>
                        <input
                          type="checkbox"
                          aria-label={selection.rowLabel(r)}
                          checked={selected}
                          onChange={(e) => {
                            const shift = (e.nativeEvent as MouseEvent).shiftKey === true;
                            selection.onChange(toggleRows(rows, selectedKeys, rowKey, r, anchor.current, shift));
                            anchor.current = key;
                          }}
                        />
                      </label>
                    </td>
                  )}
                  {columns.map((c) => (
                    <td key={c.key} className={fixedClass(c).trim() || undefined} style={stick(c)}>
                      {c.render(r)}
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </Spin>
  );
}
