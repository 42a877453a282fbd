// The files screens' own pagination (issue #22 weight): antd's arrangement of pages, its words in both languages,
// the page size and the quick jumper.
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/react';
import { renderInProviders } from '../test/render-app.tsx';
import { ListPagination, pageItems } from './ListPagination.tsx';

describe('pageItems', () => {
  it('lists every page up to seven, then the pages around the current one between ellipses, as antd does', () => {
    expect(pageItems(2, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(pageItems(1, 9)).toEqual([1, 2, 3, 4, 5, 'next', 9]);
    expect(pageItems(1, 50)).toEqual([1, 2, 3, 4, 5, 'next', 50]);
    expect(pageItems(4, 50)).toEqual([1, 2, 3, 4, 5, 'next', 50]);
    expect(pageItems(20, 50)).toEqual([1, 'prev', 19, 20, 21, 'next', 50]);
    expect(pageItems(50, 50)).toEqual([1, 'prev', 46, 47, 48, 49, 50]);
  });
});

describe('ListPagination', () => {
  const show = (lang: 'zh_CN' | 'en_US', onChange = vi.fn()) =>
    renderInProviders(<ListPagination current={3} pageSize={20} total={1000} pageSizeOptions={[10, 20, 50]} showQuickJumper showTotal={(n) => `${n} items`} onChange={onChange} data-testid="pg" />, lang).then(() => onChange);

  it('goes to a page, the next and previous, and five pages on with the ellipsis', async () => {
    const onChange = await show('en_US');
    fireEvent.click(screen.getByTitle('5'));
    fireEvent.click(screen.getByRole('button', { name: 'Next Page' }));
    fireEvent.click(screen.getByRole('button', { name: 'Previous Page' }));
    fireEvent.click(screen.getByTitle('Next 5 Pages'));
    expect(onChange.mock.calls).toEqual([[5, 20], [4, 20], [2, 20], [8, 20]]);
    expect(screen.getByTitle('3').getAttribute('aria-current')).toBe('page');
    expect(screen.getByTestId('pg-total').textContent).toBe('1000 items');
  });

  it('a new page size starts at page one; the jumper goes to a page, kept inside the range', async () => {
    const onChange = await show('en_US');
    fireEvent.change(screen.getByTestId('pg-size'), { target: { value: '50' } });
    const jumper = screen.getByTestId('pg-jumper');
    fireEvent.change(jumper, { target: { value: '40' } });
    fireEvent.keyDown(jumper, { key: 'Enter' });
    fireEvent.change(jumper, { target: { value: '9999' } });
    fireEvent.blur(jumper);
    expect(onChange.mock.calls).toEqual([[1, 50], [40, 20], [50, 20]]);
  });

  it("speaks antd's words in Chinese", async () => {
    await show('zh_CN');
    const sizes = within(screen.getByTestId('pg-size')).getAllByRole('option').map((o) => o.textContent);
    expect(sizes).toEqual(['10 条/页', '20 条/页', '50 条/页']);
    expect(screen.getByRole('button', { name: '下一页' })).toBeTruthy();
    expect(screen.getByTestId('pg').textContent).toContain('跳至');
  });
});
