// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- archiver is untyped: its declaration must come along into every program that compiles this module (the tests' too)
/// <reference path="./archiver.d.ts" />
// Exports of the operation log (System/downloadOptLog) as CSV or XLSX, written straight to the socket in keyset
// batches: memory stays flat however many rows there are (bench/oplog-export measures a million). Writes wait for
// the socket to drain, so a slow client holds back the database reads instead of filling the heap.
import { once } from 'node:events';
import { Readable, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { FastifyReply } from 'fastify';
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

const XLSX_PARTS: Record<string, string> = {
  '[Content_Types].xml':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
  '_rels/.rels':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
  'xl/workbook.xml':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ' +
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="oplog" sheetId="1" r:id="rId1"/></sheets></workbook>',
  'xl/_rels/workbook.xml.rels':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
};

/** Text as XML character data; characters XML 1.0 cannot hold are dropped. */
function xmlText(v: string): string {
  return v.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/[<>&"]/g, (c) => `&${({ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot' } as const)[c as '<']};`);
}

function xlsxRow(n: number, values: readonly string[]): string {
  // Inline strings: no shared-string table to build up in memory; the columns are A to K.
  const cellsXml = values.map((v, i) => `<c r="${String.fromCharCode(65 + i)}${n}" t="inlineStr"><is><t xml:space="preserve">${xmlText(v)}</t></is></c>`);
  return `<row r="${n}">${cellsXml.join('')}</row>`;
}

/** The worksheet's XML, produced only as fast as the zip's deflate takes it (Readable.from pulls on demand). */
async function* sheetXml(db: Db, f: OpLogFilter, lang: 'zh' | 'en', aborted: () => boolean): AsyncGenerator<string> {
  yield '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';
  let n = 1;
  yield xlsxRow(n++, HEADERS[lang]);
  for await (const batch of iterateOpLogs(db, f)) {
    if (aborted()) return;
    yield batch.map((r) => xlsxRow(n++, cells(r))).join('');
  }
  yield '</sheetData></worksheet>';
}

/**
 * Writes the XLSX (one sheet, inline strings) to `out` with archiver's streaming zip: the sheet is a pulled stream,
 * so rows are read from the database only as the deflate and the socket take them. (exceljs's streaming writer
 * buffers the sheet ahead of its zip: 786 MiB RSS for a million rows, bench --only=oplog.)
 */
export async function writeXlsx(db: Db, out: Writable, f: OpLogFilter, lang: 'zh' | 'en', aborted: () => boolean): Promise<void> {
  // archiver (about 20 MiB resident) loads with the first export, not at the server's start.
  const { ZipArchive } = await import('archiver');
  const zip = new ZipArchive({ zlib: { level: 6 } });
  zip.pipe(out);
  for (const [name, xml] of Object.entries(XLSX_PARTS)) zip.append(xml, { name });
  zip.append(Readable.from(sheetXml(db, f, lang, aborted)), { name: 'xl/worksheets/sheet1.xml' });
  await zip.finalize();
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
      await writeXlsx(db, res, f, lang, () => closed);
      await finished(res);
    }
  } catch (err) {
    reply.request.log.error({ err, traceId: reply.request.traceId }, 'operation log export failed');
    // Headers are gone: a cut stream shows as a failed download rather than a truncated file.
    res.destroy();
  }
  return reply;
}
