// Restore with a taken name (issue #16 item 1): only the entries answering NAME_EXISTS are asked about, once, and
// sent again with the user's choice; other failures are reported as they are; cancelling restores nothing more.
import { describe, expect, it } from 'vitest';
import type { Conflict } from '../../api/gen/model/conflict.ts';
import { restoreWithConflicts, type RestoreCall } from './restore.tsx';

function fakeServer(taken: Set<string>, broken: Set<string> = new Set()) {
  const calls: { ids: string[]; conflict?: Conflict }[] = [];
  const call: RestoreCall = async (ids, conflict) => {
    calls.push({ ids, ...(conflict ? { conflict } : {}) });
    const failed = ids
      .filter((id) => broken.has(id) || (taken.has(id) && !conflict))
      .map((id) => ({ instanceId: id, code: broken.has(id) ? ('NOT_FOUND' as const) : ('NAME_EXISTS' as const), msg: 'x' }));
    const done = ids.filter((id) => !failed.some((f) => f.instanceId === id)).map((id) => ({ instanceId: id }) as never);
    return { ret: 0 as const, msg: 'success', data: { done, failed } };
  };
  return { call, calls };
}

describe('restoreWithConflicts', () => {
  it('asks once about the taken names and resends just those with the choice', async () => {
    const { call, calls } = fakeServer(new Set(['b', 'c']), new Set(['d']));
    const asked: string[][] = [];
    const out = await restoreWithConflicts(['a', 'b', 'c', 'd'], call, async (ids) => {
      asked.push(ids);
      return 'keepBoth';
    });
    expect(asked).toEqual([['b', 'c']]);
    expect(calls).toEqual([{ ids: ['a', 'b', 'c', 'd'] }, { ids: ['b', 'c'], conflict: 'keepBoth' }]);
    expect(out.restored).toBe(3);
    expect(out.failed.map((f) => f.code)).toEqual(['NOT_FOUND']);
  });

  it('does not ask when nothing is taken, and cancelling sends nothing more', async () => {
    const free = fakeServer(new Set());
    let asked = false;
    expect((await restoreWithConflicts(['a'], free.call, async () => ((asked = true), 'replace'))).restored).toBe(1);
    expect(asked).toBe(false);
    const taken = fakeServer(new Set(['a']));
    const out = await restoreWithConflicts(['a'], taken.call, async () => 'cancel');
    expect(taken.calls).toHaveLength(1);
    expect(out.restored).toBe(0);
  });
});
