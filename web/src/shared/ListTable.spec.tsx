// The files screens' own table (issue #22 weight): what antd's Table did for them, the checkboxes and the sorters,
// through the markup a user (and the e2e specs) meet.
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/react';
import { ListTable, nextSort, type ListColumn, type SortOrder } from './ListTable.tsx';

interface Row {
  id: string;
  name: string;
}
const ROWS: Row[] = ['a', 'b', 'c', 'd', 'e'].map((n) => ({ id: `id-${n}`, name: `${n}.txt` }));
const rowKey = (r: Row) => r.id;

function Harness({ onSort, sortOrder }: { onSort?: (key: string) => void; sortOrder?: SortOrder | null }) {
  const [selected, setSelected] = useState<Row[]>([]);
  const columns: ListColumn<Row>[] = [
    { key: 'name', title: 'Name', sortOrder: sortOrder ?? null, fixed: 'left', minWidth: 200, render: (r) => r.name },
    { key: 'size', title: 'Size', width: 100, render: () => '1 KB' },
  ];
  return (
    <>
      <output data-testid="picked">{selected.map((r) => r.name).join(',')}</output>
      <ListTable rows={ROWS} rowKey={rowKey} columns={columns} selection={{ selected, onChange: setSelected, rowLabel: (r) => r.name }} onSort={onSort} data-testid="t" />
    </>
  );
}

const picked = () => screen.getByTestId('picked').textContent;
const box = (name: string) => screen.getByRole('checkbox', { name }) as HTMLInputElement;
const all = () => screen.getByRole('checkbox', { name: 'Select current page' }) as HTMLInputElement;

describe('ListTable selection', () => {
  it('a click toggles one row; a shift-click selects the run from the last one clicked', () => {
    render(<Harness />);
    fireEvent.click(box('b.txt'));
    expect(picked()).toBe('b.txt');
    fireEvent.click(box('d.txt'), { shiftKey: true });
    expect(picked()).toBe('b.txt,c.txt,d.txt');
    const row = screen.getByTestId('t').querySelector('tr[data-row-key="id-c"]')!;
    expect(row.getAttribute('aria-selected')).toBe('true');
    expect(row.classList.contains('hcs-lt-row-selected')).toBe(true);
    // Shift-clicking a selected row gives the run its new state: unselected.
    fireEvent.click(box('c.txt'));
    fireEvent.click(box('b.txt'), { shiftKey: true });
    expect(picked()).toBe('d.txt');
  });

  it('the header checkbox is indeterminate with some rows, checked with all, and selects or clears the page', () => {
    render(<Harness />);
    expect(all().checked).toBe(false);
    expect(all().indeterminate).toBe(false);
    fireEvent.click(box('a.txt'));
    expect(all().indeterminate).toBe(true);
    fireEvent.click(all());
    expect(picked()).toBe('a.txt,b.txt,c.txt,d.txt,e.txt');
    expect(all().checked).toBe(true);
    expect(all().indeterminate).toBe(false);
    fireEvent.click(all());
    expect(picked()).toBe('');
  });
});

describe('ListTable sorting', () => {
  it('cycles ascending, descending, then lets go, as antd did', () => {
    expect([nextSort(null), nextSort('asc'), nextSort('desc')]).toEqual(['asc', 'desc', null]);
  });

  it('a sortable header is a button that reports its column, and carries aria-sort', () => {
    const onSort = vi.fn();
    render(<Harness onSort={onSort} sortOrder="desc" />);
    const head = screen.getByRole('columnheader', { name: 'Name' });
    expect(head.getAttribute('aria-sort')).toBe('descending');
    fireEvent.click(within(head).getByRole('button'));
    expect(onSort).toHaveBeenCalledWith('name');
    // A column that does not sort has neither.
    const size = screen.getByRole('columnheader', { name: 'Size' });
    expect(size.getAttribute('aria-sort')).toBeNull();
    expect(within(size).queryByRole('button')).toBeNull();
  });
});
