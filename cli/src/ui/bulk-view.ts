// The bulk-transfer view, after ink's jest example: finished files scroll above in <Static> (written once,
// never redrawn), the files in flight sit below with progress bars, and one summary line closes it.
// Written with createElement rather than JSX because Node runs these sources directly (type stripping
// does not transform JSX).
import { createElement as h, type ReactElement } from 'react';
import { Box, Static, Text } from 'ink';
import { formatSize } from '@hcs/transfer-core';
import { bar, formatDuration } from '../format.ts';
import type { ActiveFile } from '../stats.ts';

export interface FinishedItem {
  key: string;
  path: string;
  bytes: number;
  /** uploaded | instant | skipped | downloaded, or failed. */
  outcome: string;
  message?: string;
}

export interface BulkViewProps {
  job: 'upload' | 'download';
  finished: FinishedItem[];
  active: ActiveFile[];
  files: number;
  done: number;
  failed: number;
  bytes: number;
  bytesDone: number;
  speed: number;
  timeLeft: number | undefined;
  /** Shown after the first Ctrl-C while in-flight work winds down. */
  stopping?: boolean;
  /** More active files than fit are summarised as "+N more". */
  maxActive?: number;
}

const LABEL: Record<string, { text: string; color: string }> = {
  uploaded: { text: ' DONE ', color: 'green' },
  downloaded: { text: ' DONE ', color: 'green' },
  instant: { text: 'INSTANT', color: 'cyan' },
  skipped: { text: ' SKIP ', color: 'gray' },
  failed: { text: ' FAIL ', color: 'red' },
};

function finishedLine(item: FinishedItem): ReactElement {
  const label = LABEL[item.outcome] ?? { text: item.outcome, color: 'white' };
  return h(
    Box,
    { key: item.key },
    h(Text, { color: label.color, bold: true }, `${label.text} `),
    h(Text, null, item.path),
    h(Text, { dimColor: true }, ` ${formatSize(item.bytes)}`),
    item.message ? h(Text, { color: 'red' }, ` ${item.message}`) : null,
  );
}

function activeLine(a: ActiveFile): ReactElement {
  const phase = a.phase === 'hashing' ? 'hash  ' : a.phase === 'verifying' ? 'verify' : 'send  ';
  const pct = a.bytes > 0 ? Math.floor((a.loaded / a.bytes) * 100) : 100;
  return h(
    Box,
    { key: a.path },
    h(Text, { color: 'yellow' }, `${phase} `),
    h(Text, { color: 'cyan' }, bar(a.loaded, a.bytes, 20)),
    h(Text, null, ` ${String(pct).padStart(3)}% `),
    h(Text, { wrap: 'truncate-start' }, a.path),
  );
}

/** The one-line summary: files, bytes, speed, time left, failures. */
export function summaryText(p: Pick<BulkViewProps, 'files' | 'done' | 'failed' | 'bytes' | 'bytesDone' | 'speed' | 'timeLeft'>): string {
  return (
    `Files ${p.done}/${p.files}` +
    ` · ${formatSize(p.bytesDone)} of ${formatSize(p.bytes)}` +
    ` · ${formatSize(Math.round(p.speed))}/s` +
    ` · ${formatDuration(p.timeLeft)} left` +
    ` · ${p.failed} failed`
  );
}

export function BulkView(props: BulkViewProps): ReactElement {
  const max = props.maxActive ?? 8;
  const shown = props.active.slice(0, max);
  const hidden = props.active.length - shown.length;
  return h(
    Box,
    { flexDirection: 'column' },
    h(Static<FinishedItem>, { items: props.finished, children: (item: FinishedItem) => finishedLine(item) }),
    h(
      Box,
      { flexDirection: 'column', marginTop: props.finished.length > 0 ? 1 : 0 },
      ...shown.map(activeLine),
      hidden > 0 ? h(Text, { dimColor: true, key: 'more' }, `  +${hidden} more in flight`) : null,
    ),
    h(
      Box,
      null,
      h(Text, { bold: true, color: props.failed > 0 ? 'red' : 'green' }, summaryText(props)),
      props.stopping ? h(Text, { color: 'yellow' }, '  pausing: saving state (Ctrl-C again to quit now)') : null,
    ),
  );
}
