// Exports of the operation log (System/downloadOptLog) as CSV or XLSX, written straight to the socket in keyset
// batches: memory stays flat however many rows there are (bench/oplog-export measures a million). Writes wait for
// the socket to drain, so a slow client holds back the database reads instead of filling the heap.
import { once } from 'node:events';
import { PassThrough, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { FastifyReply } from 'fastify';
import ExcelJS from 'exceljs';
import type { Db } from '../db/sql/tx.ts';
import { iterateOpLogs, type OpLogFilter } from '../db/admin-console-repo.ts';
import type { OpLogRow } from '../db/oplog-repo.ts';
import { contentDisposition } from './names.ts';
import { securityHeaders } from '../http/hygiene.ts';

const HEADERS = {
  en: ['Time (UTC)', 'User', 'Type', 'Subject', 'Object id', 'Object name', 'Result', 'IP', 'Device', 'Detail', 'Trace id'],
  zh: ['时间 (UTC)', '用户', '操作类型', '模块', '对象 ID', '对象名称', '结果', 'IP', '设备', '详情', '追踪 ID'],
};

function cells(r: OpLogRow): string[] {
  return [new Date(r.at).toISOString(), r.userName, r.opType, r.opSubject, r.objectId, r.objectName, r.result, r.ip, r.device, r.detail, r.traceId];
}

/**
 * A CSV field: quoted when needed, and a leading = + - @ (or tab/CR) defused with a quote mark, since object names
 * are user input and a spreadsheet would run them as formulas.
 */
export function csvField(v: string): string {
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

async function write(out: Writable, chunk: string | Buffer): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

/** Writes the CSV (UTF-8 with BOM, so spreadsheet programs read the Chinese names) of the rows to `out`. */
export async function writeCsv(db: Db, out: Writable, f: OpLogFilter, lang: 'zh' | 'en', aborted: () => boolean): Promise<void> {
  await write(out, `\ufeff${HEADERS[lang].join(',')}\r\n`);
  for await (const batch of iterateOpLogs(db, f)) {
    if (aborted()) return;
    await write(out, batch.map((r) => cells(r).map(csvField).join(',')).join('\r\n') + '\r\n');
  }
}

/** Writes the XLSX of the rows to `out` with exceljs's streaming writer (inline strings, each row committed). */
export async function writeXlsx(db: Db, out: Writable, f: OpLogFilter, lang: 'zh' | 'en', aborted: () => boolean): Promise<void> {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false });
  const sheet = wb.addWorksheet('oplog');
  sheet.addRow(HEADERS[lang]).commit();
  for await (const batch of iterateOpLogs(db, f)) {
    if (aborted()) return;
    for (const r of batch) sheet.addRow(cells(r)).commit();
    // The writer pushes into `out` without asking; waiting here for it to drain keeps memory flat.
    if (out.writableNeedDrain) await once(out, 'drain');
  }
  sheet.commit();
  await wb.commit();
}

export async function streamOpLogExport(
  db: Db, reply: FastifyReply, f: OpLogFilter, format: 'csv' | 'xlsx', acceptLanguage: string | undefined,
): Promise<FastifyReply> {
  const lang = /^zh/i.test(acceptLanguage ?? '') ? 'zh' : 'en';
  const stamp = new Date().toISOString().slice(0, 10);
  const type = format === 'csv' ? 'text/csv; charset=utf-8' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
  // Hijacked so that the writers see the socket's back-pressure; onSend's headers are then written here.
  reply.hijack();
  const res = reply.raw;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries({ ...reply.getHeaders(), ...securityHeaders(reply.request.url, type) })) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.map(String) : String(value);
  }
  headers['content-type'] = type;
  headers['content-disposition'] = contentDisposition('attachment', `oplog-${stamp}.${format}`);
  headers['cache-control'] = 'no-store';
  res.writeHead(200, headers);
  let closed = false;
  res.on('close', () => (closed = true));
  try {
    if (format === 'csv') {
      await writeCsv(db, res, f, lang, () => closed);
      if (!closed) res.end();
    } else {
      // exceljs ends the stream it is given; a pass-through keeps it from ending the socket before the zip is done.
      const pipe = new PassThrough();
      pipe.pipe(res);
      await writeXlsx(db, pipe, f, lang, () => closed);
      await finished(res);
    }
  } catch (err) {
    reply.request.log.error({ err, traceId: reply.request.traceId }, 'operation log export failed');
    // Headers are gone: a cut stream shows as a failed download rather than a truncated file.
    res.destroy();
  }
  return reply;
}
