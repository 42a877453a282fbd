// Instance names: the wire encoding, the spec's validity rules, the categories derived from the
// extension, and the "name (1).ext" scheme used whenever two entries would share a name.
import { decodeName, MAX_NAME_LENGTH, nameProblem as sharedNameProblem, type NameProblem } from '@hcs/openapi/client';
import { AppError } from '../http/errors.ts';

export { MAX_NAME_LENGTH };

// The rules are the contract's, shared with the web and the CLI; the wording is the server's (English for logs
// and scripts, as every envelope msg).
const MESSAGES: Record<NameProblem, string> = {
  empty: 'the name is empty',
  whitespace: 'the name starts or ends with whitespace',
  tooLong: `the name is longer than ${MAX_NAME_LENGTH} characters`,
  forbiddenChars: 'the name contains one of \\ [ ] / : * ? " < > |',
  control: 'the name contains control characters',
  reserved: 'the name is reserved',
};

/** Why the name is invalid, or null when it is fine. */
export function nameProblem(name: string): string | null {
  const problem = sharedNameProblem(name);
  return problem && MESSAGES[problem];
}

export function assertValidName(name: string, field = 'instanceName'): string {
  const problem = nameProblem(name);
  if (problem) throw new AppError('NAME_INVALID', problem, { fields: [{ field, message: problem }] });
  return name;
}

/** Decodes a wire name (Base64 with _x/_j/_d) and enforces the name rules. */
export function decodeWireName(wire: string, field = 'instanceName'): string {
  let name: string;
  try {
    name = decodeName(wire);
  } catch {
    throw new AppError('NAME_INVALID', 'the name is not valid Base64 with the _x/_j/_d replacements', {
      fields: [{ field, message: 'malformed encoded name' }],
    });
  }
  return assertValidName(name.normalize('NFC'), field);
}

/** Case-insensitive uniqueness key within a folder. */
export function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/** Lower-case extension without the dot; empty for none (".bashrc" has none). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return '';
  return name.slice(dot + 1).toLowerCase();
}

const WORD = ['doc', 'docx', 'dot', 'dotx', 'docm', 'rtf', 'odt', 'wps', 'wpt'];
const PPT = ['ppt', 'pptx', 'pps', 'ppsx', 'pot', 'potx', 'pptm', 'odp', 'dps'];
const EXCEL = ['xls', 'xlsx', 'xlsm', 'xlsb', 'xlt', 'xltx', 'csv', 'ods', 'et'];
const IMAGE = ['jpg', 'jpeg', 'png', 'gif', 'bmp', 'webp', 'svg', 'tif', 'tiff', 'ico', 'heic', 'heif', 'avif'];
// The spec's video extension list (section 9).
const VIDEO = ['mp4', 'wmv', 'mkv', 'mpg', '264', 'ts', 'mov', '3gp', 'avi', 'ogg', 'webm', 'flv', 'rmvb', 'asf'];
const AUDIO = ['mp3', 'wav', 'flac', 'aac', 'm4a', 'wma', 'amr', 'ape', 'opus', 'mid', 'midi'];
const TXT = ['txt', 'md', 'log', 'json', 'xml', 'yaml', 'yml', 'ini', 'conf'];
const ZIP = ['zip', 'rar', '7z', 'tar', 'gz', 'tgz', 'bz2', 'xz'];

export type FileTypeCategory = 'Folder' | 'txt' | 'word' | 'ppt' | 'excel' | 'pdf' | 'picture' | 'video' | 'audio' | 'other' | 'zip';

/** Filter category 1-9 of the spec: folder, Word, PPT, Excel, PDF, image, video, audio, other. */
export function filterCategory(isFolder: boolean, ext: string): number {
  if (isFolder) return 1;
  if (WORD.includes(ext)) return 2;
  if (PPT.includes(ext)) return 3;
  if (EXCEL.includes(ext)) return 4;
  if (ext === 'pdf') return 5;
  if (IMAGE.includes(ext)) return 6;
  if (VIDEO.includes(ext)) return 7;
  if (AUDIO.includes(ext)) return 8;
  return 9;
}

export function fileTypeOf(isFolder: boolean, ext: string): FileTypeCategory {
  if (isFolder) return 'Folder';
  const cat = filterCategory(false, ext);
  const byCat: Record<number, FileTypeCategory> = { 2: 'word', 3: 'ppt', 4: 'excel', 5: 'pdf', 6: 'picture', 7: 'video', 8: 'audio' };
  if (byCat[cat]) return byCat[cat];
  if (TXT.includes(ext)) return 'txt';
  if (ZIP.includes(ext)) return 'zip';
  return 'other';
}

const CONTENT_TYPES: Record<string, string> = {
  txt: 'text/plain; charset=utf-8', md: 'text/plain; charset=utf-8', log: 'text/plain; charset=utf-8', csv: 'text/csv; charset=utf-8',
  json: 'application/json', pdf: 'application/pdf', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif',
  bmp: 'image/bmp', webp: 'image/webp', svg: 'image/svg+xml', ico: 'image/x-icon', tif: 'image/tiff', tiff: 'image/tiff',
  avif: 'image/avif', mp4: 'video/mp4', webm: 'video/webm', ogg: 'video/ogg', mov: 'video/quicktime', mkv: 'video/x-matroska',
  mp3: 'audio/mpeg', wav: 'audio/wav', flac: 'audio/flac', aac: 'audio/aac', m4a: 'audio/mp4', opus: 'audio/opus',
  doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint', pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  zip: 'application/zip', xml: 'text/plain; charset=utf-8', html: 'text/plain; charset=utf-8', htm: 'text/plain; charset=utf-8',
};

/**
 * Content type for serving a file. Markup (HTML, XML) is deliberately served as text so a user's upload can
 * never run script on the server's origin; SVG stays an image but the preview route sandboxes it.
 */
export function contentTypeOf(name: string): string {
  return CONTENT_TYPES[extensionOf(name)] ?? 'application/octet-stream';
}

/** "report.pdf" -> "report (n).pdf"; folders and dot-less names get the suffix at the end. */
export function numberedName(name: string, n: number, isFolder: boolean): string {
  const dot = isFolder ? -1 : name.lastIndexOf('.');
  const candidate = dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
  if ([...candidate].length <= MAX_NAME_LENGTH) return candidate;
  // Keep the suffix and extension; shorten the stem so the result stays a valid name.
  const suffix = dot > 0 ? ` (${n})${name.slice(dot)}` : ` (${n})`;
  const stem = [...(dot > 0 ? name.slice(0, dot) : name)].slice(0, MAX_NAME_LENGTH - [...suffix].length).join('').trimEnd();
  return stem + suffix;
}

/** RFC 6266 Content-Disposition with an ASCII fallback and the UTF-8 name in filename*. */
export function contentDisposition(kind: 'attachment' | 'inline', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
