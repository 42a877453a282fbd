// The files table's header sorting keeps antd's sorter cycle (issue #22 weight: the table is our own now): a column
// starts ascending, then descending, then the list goes back to its default order, by name ascending.
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/react';
import type { Instance } from '../../api/gen/model/instance.ts';
import { renderInProviders } from '../../test/render-app.tsx';
import { FileTable } from './FileTable.tsx';
import type { SortField, SortOrder } from './list-state.ts';

const row: Instance = { instanceId: 'i1', instanceName: 'a.txt', classifierId: 'File', parentId: 'root', libCode: 'NetDisk', instanceType: '1', fSize: 10, fType: 'txt', fileType: 'txt', userId: 'u1', userName: 'alice', createTime: 0, updateTime: 0 };
const noop = () => {};

async function clickHeader(sortField: SortField, sortOrder: SortOrder, header: string) {
  const calls: [SortField, SortOrder][] = [];
  const view = await renderInProviders(
    <FileTable rows={[row]} selected={[]} onSelect={noop} onAction={noop} sortField={sortField} sortOrder={sortOrder} onSort={(f, o) => calls.push([f, o])} loading={false} />,
  );
  fireEvent.click(within(screen.getByRole('columnheader', { name: header })).getByRole('button'));
  view.unmount();
  return calls;
}

describe('FileTable header sorting', () => {
  it('cycles a column ascending, descending, then back to name ascending', async () => {
    expect(await clickHeader('instanceName', 'asc', 'Name')).toEqual([['instanceName', 'desc']]);
    expect(await clickHeader('instanceName', 'desc', 'Name')).toEqual([['instanceName', 'asc']]);
    expect(await clickHeader('instanceName', 'asc', 'Size')).toEqual([['fSize', 'asc']]);
    expect(await clickHeader('fSize', 'asc', 'Size')).toEqual([['fSize', 'desc']]);
    expect(await clickHeader('fSize', 'desc', 'Size')).toEqual([['instanceName', 'asc']]);
  });

  it('marks the sorted column with aria-sort and no other', async () => {
    await renderInProviders(<FileTable rows={[row]} selected={[]} onSelect={noop} onAction={noop} sortField="createTime" sortOrder="desc" onSort={noop} loading={false} />);
    expect(screen.getByRole('columnheader', { name: 'Created' }).getAttribute('aria-sort')).toBe('descending');
    expect(screen.getByRole('columnheader', { name: 'Name' }).getAttribute('aria-sort')).toBe('none');
  });
});
