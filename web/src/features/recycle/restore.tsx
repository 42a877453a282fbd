// Restoring bin entries (issue #16 item 1): first without a conflict choice; the entries whose name is now taken
// (NAME_EXISTS) are asked about once, keep both or replace, as uploads do, and sent again with that choice.
import { Button, Space, type ModalFuncProps } from 'antd';
import type { BatchResultResponse } from '../../api/gen/model/batchResultResponse.ts';
import type { Conflict } from '../../api/gen/model/conflict.ts';

export type RestoreCall = (ids: string[], conflict?: Conflict) => Promise<BatchResultResponse>;

export interface RestoreOutcome {
  restored: number;
  /** Entries that failed for another reason (or were taken and the user cancelled), with their codes. */
  failed: { instanceId: string; code: string; msg: string }[];
}

export type AskConflict = (ids: string[]) => Promise<Conflict | 'cancel'>;

export async function restoreWithConflicts(ids: string[], call: RestoreCall, ask: AskConflict): Promise<RestoreOutcome> {
  const first = (await call(ids)).data ?? { done: [], failed: [] };
  const taken = first.failed.filter((f) => f.code === 'NAME_EXISTS').map((f) => f.instanceId);
  const other = first.failed.filter((f) => f.code !== 'NAME_EXISTS');
  if (taken.length === 0) return { restored: first.done.length, failed: other };
  const choice = await ask(taken);
  if (choice === 'cancel') return { restored: first.done.length, failed: other };
  const second = (await call(taken, choice)).data ?? { done: [], failed: [] };
  return { restored: first.done.length + second.done.length, failed: [...other, ...second.failed] };
}

/** The keep-both / replace question as a modal (from antd's hook API, so it has the app's theme and language). */
export function conflictQuestion(confirm: (p: ModalFuncProps) => { destroy: () => void }, t: (k: string) => string, names: string[]): Promise<Conflict | 'cancel'> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (v: Conflict | 'cancel') => {
      if (settled) return;
      settled = true;
      resolve(v);
      m.destroy();
    };
    const m = confirm({
      title: t('recycle.conflictTitle'),
      content: (
        <ul style={{ maxHeight: 200, overflow: 'auto', paddingInlineStart: 18 }}>
          {names.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ),
      closable: true,
      onCancel: () => done('cancel'),
      footer: (
        <Space style={{ marginTop: 12, width: '100%', justifyContent: 'flex-end' }}>
          <Button onClick={() => done('cancel')}>{t('files.cancel')}</Button>
          <Button onClick={() => done('replace')} data-testid="restore-replace">
            {t('recycle.replace')}
          </Button>
          <Button type="primary" onClick={() => done('keepBoth')} data-testid="restore-keep-both">
            {t('recycle.keepBoth')}
          </Button>
        </Space>
      ),
    });
  });
}
