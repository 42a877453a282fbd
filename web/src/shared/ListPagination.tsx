// The files screens' pagination (issue #22 weight): antd's Pagination imports its Select for the page-size changer
// whether it shows or not, and that Select was most of 30 KB of JS gzip on the files screen's first paint. This one
// draws what those screens use of it, in antd's look: the total, the pages with ellipses (antd's window of two pages
// either side of the current one), previous and next, the page size as a native select and the quick jumper. Its
// words are antd's own locale's (Pagination), so they read as before in both languages.
import { useContext, useState, type CSSProperties, type ReactNode } from 'react';
import { ConfigProvider, theme } from 'antd';
import enUS from 'antd/es/locale/en_US';
import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import { NativeSelect } from './NativeSelect.tsx';
import './list-pagination.css';

export interface ListPaginationProps {
  current: number;
  pageSize: number;
  total: number;
  pageSizeOptions?: readonly number[];
  showQuickJumper?: boolean;
  showTotal?: (total: number) => ReactNode;
  onChange: (page: number, pageSize: number) => void;
  style?: CSSProperties;
  'data-testid'?: string;
}

/** Pages shown around the current one on each side before the ellipses, as antd's default. */
const BUFFER = 2;

/** The page numbers to draw, with 'prev' and 'next' where a run of pages is left out (rc-pagination's arrangement). */
export function pageItems(current: number, pages: number): (number | 'prev' | 'next')[] {
  if (pages <= 3 + BUFFER * 2) return Array.from({ length: pages }, (_, i) => i + 1);
  let from = Math.max(1, current - BUFFER);
  let to = Math.min(pages, current + BUFFER);
  if (current - 1 <= BUFFER) to = 1 + BUFFER * 2;
  if (pages - current <= BUFFER) from = pages - BUFFER * 2;
  const prev = current - 1 >= BUFFER * 2 && current !== 1 + 2;
  const next = pages - current >= BUFFER * 2 && current !== pages - 2;
  if (prev && to !== pages) from += 1;
  if (next && from !== 1) to -= 1;
  const items: (number | 'prev' | 'next')[] = [];
  for (let p = from; p <= to; p++) items.push(p);
  if (prev) items.unshift('prev');
  if (next) items.push('next');
  if (from !== 1) items.unshift(1);
  if (to !== pages) items.push(pages);
  return items;
}

export function ListPagination({ current, pageSize, total, pageSizeOptions, showQuickJumper, showTotal, onChange, style, 'data-testid': testId }: ListPaginationProps) {
  const { token } = theme.useToken();
  const locale = { ...enUS.Pagination, ...useContext(ConfigProvider.ConfigContext).locale?.Pagination };
  const [jump, setJump] = useState('');
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const go = (page: number) => {
    const to = Math.min(pages, Math.max(1, page));
    if (to !== current) onChange(to, pageSize);
  };
  const colours = {
    '--pg-primary': token.colorPrimary,
    '--pg-hover-bg': token.colorBgTextHover,
    '--pg-active-bg': token.colorBgContainer,
    '--pg-disabled': token.colorTextDisabled,
    '--pg-text': token.colorText,
    '--pg-radius': `${token.borderRadius}px`,
    '--pg-height': `${token.controlHeight}px`,
    '--pg-border': token.colorBorder,
  } as CSSProperties;
  const onJump = () => {
    const page = Number.parseInt(jump, 10);
    setJump('');
    if (Number.isFinite(page)) go(page);
  };
  return (
    <nav className="hcs-pg" style={{ ...colours, ...style }} data-testid={testId}>
      {showTotal && <span className="hcs-pg-total" data-testid={testId && `${testId}-total`}>{showTotal(total)}</span>}
      <button type="button" className="hcs-pg-item hcs-pg-step" disabled={current <= 1} title={locale.prev_page} aria-label={locale.prev_page} onClick={() => go(current - 1)}>
        <LeftOutlined />
      </button>
      {pageItems(current, pages).map((item) =>
        typeof item === 'number' ? (
          <button
            key={item}
            type="button"
            className={`hcs-pg-item${item === current ? ' hcs-pg-active' : ''}`}
            title={String(item)}
            aria-current={item === current ? 'page' : undefined}
            onClick={() => go(item)}
          >
            {item}
          </button>
        ) : (
          <button
            key={item}
            type="button"
            className="hcs-pg-item hcs-pg-jump"
            title={item === 'prev' ? locale.prev_5 : locale.next_5}
            onClick={() => go(current + (item === 'prev' ? -5 : 5))}
          >
            •••
          </button>
        ),
      )}
      <button type="button" className="hcs-pg-item hcs-pg-step" disabled={current >= pages} title={locale.next_page} aria-label={locale.next_page} onClick={() => go(current + 1)}>
        <RightOutlined />
      </button>
      {pageSizeOptions && (
        <NativeSelect
          value={pageSize}
          options={pageSizeOptions.map((n) => ({ value: n, label: `${n} ${locale.items_per_page}` }))}
          // A new page size starts at the first page, where the caller's onChange sends it.
          onChange={(size) => size !== undefined && onChange(1, size)}
          style={{ marginInlineStart: 8 }}
          aria-label={locale.page_size}
          data-testid={testId && `${testId}-size`}
        />
      )}
      {showQuickJumper && (
        <label className="hcs-pg-jumper">
          {locale.jump_to}
          <input
            inputMode="numeric"
            value={jump}
            aria-label={locale.jump_to}
            onChange={(e) => setJump(e.target.value.replace(/\D/g, ''))}
            onKeyDown={(e) => e.key === 'Enter' && onJump()}
            onBlur={onJump}
            data-testid={testId && `${testId}-jumper`}
          />
          {locale.page}
        </label>
      )}
    </nav>
  );
}
