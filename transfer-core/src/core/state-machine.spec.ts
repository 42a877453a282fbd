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

// Download transitions written out from spec section 4 (and the section 8 lines on download failures), not read
// from the code's table. Each allowed move names the sentence it comes from.
const DOWNLOAD: DownloadStatus[] = ['wait', 'resume', 'pause', 'refresh', 'success', 'error', 'deleted'];
const DOWNLOAD_ALLOWED = new Set([
  // "wait/ready, resume (running)": a queued item starts running.
  'wait>resume',
  // Transfer panel "pause all" (section 2) and per-row pause reach queued items too.
  'wait>pause',
  // "Delete removes the local record and stops the item": from every status that is not final.
  'wait>deleted', 'resume>deleted', 'pause>deleted', 'refresh>deleted', 'error>deleted',
  // "Finished items leave the list".
  'resume>success',
  // "Pause cancels requests and clears the speed timer"; "Refreshing the page pauses the running item".
  'resume>pause',
  // "Network loss turns every running item to refresh"; section 8 "Download failure sets the item to refresh".
  'resume>refresh',
  // Section 8 "Download errors" (file information, downloaded type, a failed check of the bytes): not resumable.
  'resume>error',
  // "Resume ... clears the cancel flag and restarts": a paused item, one with a request exception, and (retry, per-row
  // action in section 2) a failed one go back to the queue, not straight to running.
  'pause>wait', 'refresh>wait', 'error>wait',
]);

describe('download state machine (spec 4)', () => {
  for (const from of DOWNLOAD) {
    for (const to of DOWNLOAD) {
      const ok = DOWNLOAD_ALLOWED.has(`${from}>${to}`);
      it(`${from} -> ${to} is ${ok ? 'allowed' : 'refused'}`, () => {
        const m = createDownloadMachine(from);
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
    const table = Object.entries(DOWNLOAD_TRANSITIONS).flatMap(([f, tos]) => tos.map((t) => `${f}>${t}`));
    expect(new Set(table)).toEqual(DOWNLOAD_ALLOWED);
  });

  it('success and deleted are terminal; a new download starts queued', () => {
    expect(createDownloadMachine('success').isTerminal()).toBe(true);
    expect(createDownloadMachine('deleted').isTerminal()).toBe(true);
    expect(createDownloadMachine().status).toBe('wait');
  });

  it('running items go to refresh on failure and back to wait on resume', () => {
    const m = createDownloadMachine();
    m.transition('resume');
    m.transition('refresh');
    m.transition('wait');
    expect(m.status).toBe('wait');
  });
});
