// Unit tests of issue #16's list pieces: shift-click selection, and the versions dialog's rollback (confirmed, sent
// with the chosen version, list reloaded) in both languages.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { setupServer } from 'msw/node';
import type { Instance } from '../../api/gen/model/instance.ts';
import { getGetHistoryVersionMockHandler, getRollbackFileMockHandler } from '../../api/gen/files/files.msw.ts';
import { renderInProviders } from '../../test/render-app.tsx';
import { clickSelect } from './selection.ts';
import VersionsDialog from './VersionsDialog.tsx';

const server = setupServer();
beforeAll(() => server.listen());
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const item = (i: number): Instance => ({
  instanceId: `id${i}`,
  instanceName: `f${i}.txt`,
  classifierId: 'File',
  parentId: 'root',
  libCode: 'NetDisk',
  instanceType: '1',
  fSize: 10,
  fType: 'txt',
  fileType: 'txt',
  userId: 'u1',
  userName: 'alice',
  createTime: 0,
  updateTime: 0,
});

describe('shift-click selection', () => {
  const rows = [1, 2, 3, 4, 5, 6].map(item);
  const ids = (l: Instance[]) => l.map((r) => r.instanceId);

  it('a plain click toggles one item', () => {
    expect(ids(clickSelect(rows, [], rows[1]!, undefined, false))).toEqual(['id2']);
    expect(ids(clickSelect(rows, [rows[1]!], rows[1]!, 'id2', false))).toEqual([]);
  });

  it('a shift-click adds the run between the anchor and the clicked item, either direction', () => {
    expect(ids(clickSelect(rows, [rows[1]!], rows[4]!, 'id2', true))).toEqual(['id2', 'id3', 'id4', 'id5']);
    expect(ids(clickSelect(rows, [rows[4]!], rows[1]!, 'id5', true)).sort()).toEqual(['id2', 'id3', 'id4', 'id5']);
  });

  it('a shift-click without an anchor on screen acts as a plain click', () => {
    expect(ids(clickSelect(rows, [], rows[3]!, 'gone', true))).toEqual(['id4']);
  });
});

describe('VersionsDialog', () => {
  const versions = (current: number) => ({
    ret: 0 as const,
    msg: 'success',
    data: {
      instanceId: 'id1',
      list: [
        { version: current, fSize: 20, fMd5: 'b'.repeat(64), createTime: Date.UTC(2024, 1, 2), userId: 'u1', userName: 'alice', current: true },
        { version: 1, fSize: 10, fMd5: 'a'.repeat(64), createTime: Date.UTC(2024, 0, 2), userId: 'u2', userName: 'bob', current: false },
      ],
    },
  });

  it.each(['en_US', 'zh_CN'] as const)('%s: lists time, size, author and SHA-256, and rolls back only after confirming', async (lang) => {
    let current = 2;
    const rolled: unknown[] = [];
    server.use(
      getGetHistoryVersionMockHandler(() => versions(current)),
      getRollbackFileMockHandler(async ({ request }) => {
        rolled.push(await request.json());
        current = 3;
        return { ret: 0 as const, msg: 'success', data: item(1) };
      }),
    );
    let changed = 0;
    await renderInProviders(<VersionsDialog item={item(1)} onClose={() => {}} onChanged={() => (changed += 1)} />, lang);
    expect(await screen.findByText('bob')).toBeTruthy();
    expect(screen.getByText('a'.repeat(64))).toBeTruthy();
    expect(screen.getByTestId('version-2')).toBeTruthy();
    // The current content cannot be rolled back to; the older one can.
    expect(screen.queryByTestId('version-rollback-2')).toBeNull();
    fireEvent.click(screen.getByTestId('version-rollback-1'));
    expect(await screen.findAllByText(lang === 'zh_CN' ? '确定回滚到版本 v1 吗？当前内容会保留为历史版本。' : 'Roll back to version v1? The current content is kept as a version.')).not.toHaveLength(0);
    expect(rolled).toEqual([]);
    fireEvent.click(screen.getByTestId('rollback-confirm-ok'));
    await waitFor(() => expect(rolled).toEqual([{ instanceId: 'id1', version: 1 }]));
    expect(await screen.findByTestId('version-3')).toBeTruthy();
    expect(changed).toBe(1);
  });
});
