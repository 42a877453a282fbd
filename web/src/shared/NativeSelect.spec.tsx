// The native select in antd's look (issue #22 weight): values of the caller's type, the placeholder, and clearing.
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import { NativeSelect } from './NativeSelect.tsx';

const OPTIONS = [
  { value: 1, label: 'Documents' },
  { value: 2, label: 'Pictures' },
];

describe('NativeSelect', () => {
  it("gives back the option's own value, and the placeholder clears it when allowClear", () => {
    const onChange = vi.fn();
    const { rerender } = render(<NativeSelect<number> value={undefined} options={OPTIONS} onChange={onChange} placeholder="File type" allowClear aria-label="File type" />);
    const select = screen.getByRole('combobox', { name: 'File type' }) as HTMLSelectElement;
    expect(select.selectedOptions[0]!.textContent).toBe('File type');
    fireEvent.change(select, { target: { value: '2' } });
    expect(onChange).toHaveBeenLastCalledWith(2);
    rerender(<NativeSelect<number> value={2} options={OPTIONS} onChange={onChange} placeholder="File type" allowClear aria-label="File type" />);
    expect(select.selectedOptions[0]!.textContent).toBe('Pictures');
    fireEvent.change(select, { target: { value: '' } });
    expect(onChange).toHaveBeenLastCalledWith(undefined);
  });

  it('without allowClear, a chosen value offers no empty option', () => {
    render(<NativeSelect<number> value={1} options={OPTIONS} onChange={() => {}} placeholder="File type" aria-label="Sort" />);
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['Documents', 'Pictures']);
  });
});
