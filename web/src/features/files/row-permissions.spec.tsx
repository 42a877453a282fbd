// Rows carry the caller's real rights (issue #14: editIsDisabled = no `edit`, isDisabled = no `delete`): each flag
// disables its own actions only. A department member (defaultrole: edit, no delete) may rename and move but not delete.
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/react';
import type { Instance } from '../../api/gen/model/instance.ts';
import { renderInProviders } from '../../test/render-app.tsx';
import { FileTable } from './FileTable.tsx';
import { FileCards } from './FileCards.tsx';

const row = (name: string, over: Partial<Instance>): Instance => ({
  instanceId: name,
  instanceName: name,
  classifierId: 'File',
  parentId: 'root',
  libCode: 'NetDisk',
  instanceType: '3',
  fSize: 10,
  fType: 'txt',
  fileType: 'txt',
  userId: 'u1',
  userName: 'alice',
  createTime: 0,
  updateTime: 0,
  ...over,
});

const noop = () => {};

async function menuOf(name: string) {
  fireEvent.click(screen.getByTestId(`row-more-${name}`));
  const menus = await screen.findAllByRole('menu');
  const menu = menus[menus.length - 1]!;
  const disabled = (label: string) => within(menu).getByRole('menuitem', { name: label }).getAttribute('aria-disabled') === 'true';
  return { rename: disabled('Rename'), move: disabled('Move') };
}

describe('row actions follow the row\'s rights', () => {
  it('no delete right: delete is disabled, rename and move are not', async () => {
    await renderInProviders(<FileTable rows={[row('keep.txt', { isDisabled: true, editIsDisabled: false })]} selected={[]} onSelect={noop} onAction={noop} sortField="instanceName" sortOrder="asc" loading={false} />);
    expect((screen.getByTestId('row-delete-keep.txt') as HTMLButtonElement).disabled).toBe(true);
    expect(await menuOf('keep.txt')).toEqual({ rename: false, move: false });
  });

  it('no edit right: rename and move are disabled, delete is not', async () => {
    await renderInProviders(<FileTable rows={[row('fixed.txt', { isDisabled: false, editIsDisabled: true })]} selected={[]} onSelect={noop} onAction={noop} sortField="instanceName" sortOrder="asc" loading={false} />);
    expect((screen.getByTestId('row-delete-fixed.txt') as HTMLButtonElement).disabled).toBe(false);
    expect(await menuOf('fixed.txt')).toEqual({ rename: true, move: true });
  });

  it('the icon view\'s delete follows the delete right alone', async () => {
    const deleted: string[] = [];
    await renderInProviders(
      <FileCards
        rows={[row('a.txt', { isDisabled: false, editIsDisabled: true }), row('b.txt', { isDisabled: true, editIsDisabled: false })]}
        selected={[]}
        onSelect={noop}
        onAction={(a, i) => a === 'delete' && deleted.push(i.instanceName)}
      />,
    );
    for (const name of ['a.txt', 'b.txt']) fireEvent.click(within(screen.getByTestId(`card-${name}`)).getByLabelText('delete'));
    expect(deleted).toEqual(['a.txt']);
  });
});
