import { describe, expect, it } from 'vitest';
import { createDownloadMachine, createUploadMachine, DOWNLOAD_TRANSITIONS, TransitionError, UPLOAD_TRANSITIONS, type DownloadStatus, type UploadStatus } from './state-machine.ts';

const UPLOAD: UploadStatus[] = ['ready', 'checking', 'uploading', 'pause', 'merging', 'success', 'error', 'deleted', 'onTimeout'];
const ALLOWED = new Set([
  'ready>checking', 'ready>deleted',
  'checking>uploading', 'checking>success', 'checking>pause', 'checking>error', 'checking>onTimeout', 'checking>deleted',
  'uploading>merging', 'uploading>success', 'uploading>pause', 'uploading>error', 'uploading>onTimeout', 'uploading>deleted',
  'merging>success', 'merging>error', 'merging>onTimeout', 'merging>deleted',
  'pause>ready', 'pause>deleted',
  'error>ready', 'error>deleted',
  'onTimeout>ready', 'onTimeout>deleted',
]);

describe('upload state machine (spec 4)', () => {
  for (const from of UPLOAD) {
    for (const to of UPLOAD) {
      const ok = ALLOWED.has(`${from}>${to}`);
      it(`${from} -> ${to} is ${ok ? 'allowed' : 'refused'}`, () => {
        const m = createUploadMachine(from);
        expect(m.can(to)).toBe(ok);
        if (ok) {
          m.transition(to);
          expect(m.status).toBe(to);
        } else {
          expect(() => m.transition(to)).toThrow(TransitionError);
          expect(m.status).toBe(from);
        }
      });
    }
  }

  it('the table is exactly the specified one', () => {
    const table = Object.entries(UPLOAD_TRANSITIONS).flatMap(([f, tos]) => tos.map((t) => `${f}>${t}`));
    expect(new Set(table)).toEqual(ALLOWED);
  });

  it('pause only from uploading or checking; retry only from error (or timeout); terminal success and deleted', () => {
    expect(UPLOAD.filter((s) => UPLOAD_TRANSITIONS[s].includes('pause')).sort()).toEqual(['checking', 'uploading']);
    expect(UPLOAD.filter((s) => s !== 'pause' && UPLOAD_TRANSITIONS[s].includes('ready')).sort()).toEqual(['error', 'onTimeout']);
    expect(createUploadMachine('success').isTerminal()).toBe(true);
    expect(createUploadMachine('deleted').isTerminal()).toBe(true);
  });

  it('notifies listeners with from and to', () => {
    const m = createUploadMachine();
    const seen: string[] = [];
    m.onChange((to, from) => seen.push(`${from}>${to}`));
    m.transition('checking');
    m.transition('pause');
    m.transition('ready');
    expect(seen).toEqual(['ready>checking', 'checking>pause', 'pause>ready']);
  });
});

describe('download state machine (spec 4)', () => {
  const ALL: DownloadStatus[] = ['wait', 'resume', 'pause', 'refresh', 'success', 'error', 'deleted'];
  for (const from of ALL) {
    for (const to of ALL) {
      const ok = DOWNLOAD_TRANSITIONS[from].includes(to);
      it(`${from} -> ${to} ${ok ? 'allowed' : 'refused'}`, () => {
        const m = createDownloadMachine(from);
        if (ok) m.transition(to);
        else expect(() => m.transition(to)).toThrow(TransitionError);
      });
    }
  }
  it('running items go to refresh on failure and back to wait on resume', () => {
    const m = createDownloadMachine();
    m.transition('resume');
    m.transition('refresh');
    m.transition('wait');
    expect(m.status).toBe('wait');
  });
});
