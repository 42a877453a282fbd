// Folders and files as one zip written straight to the response, for every zip download (a signed-in user's ticket,
// a public link's visitor): the caller has already decided what may go in, this module only walks and streams.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { childrenAfter, type InstanceRow } from '../db/instances-repo.ts';
import { securityHeaders, STORED_CONTENT_HEADERS } from '../http/hygiene.ts';
import { accessible, type Caller } from './access.ts';
import { contentDisposition } from './names.ts';
import { contentOf } from './wire.ts';
import { ZipWriter } from './zip-writer.ts';
import { blobStore } from '../storage/routing.ts';

const PAGE = 200;

/** Writes the entries of `ids` (as `user` reads them) into the zip, walking folders one page of children at a time. */
export async function writeZip(ctx: AppContext, zip: ZipWriter, user: Caller, ids: readonly string[], closed: () => boolean): Promise<void> {
  const { db } = ctx;
  const used = new Set<string>();
  const addFile = async (row: InstanceRow, path: string) => {
    const blob = contentOf(row);
    if (blob.size === 0) return zip.addFile(path, row.updatedAt, 0, (async function* () {})());
    const { store } = await blobStore(ctx, blob.id);
    // Local content is read into the zip writer's reused buffers; a remote store's response is streamed.
    const reader = await store.openReader(blob.objectKey);
    if (!reader) return zip.addFile(path, row.updatedAt, blob.size, (await store.getObject(blob.objectKey)).body);
    try {
      await zip.addFile(path, row.updatedAt, blob.size, reader);
    } finally {
      await reader.close();
    }
  };
  const walk = async (folder: InstanceRow, path: string): Promise<void> => {
    await zip.addDirectory(path, folder.updatedAt);
    let after: InstanceRow | undefined;
    for (;;) {
      const page = await childrenAfter(db, folder.id, after && { isFolder: after.isFolder, nameKey: after.nameKey, id: after.id }, PAGE);
      for (const child of page) {
        if (closed()) return;
        if (child.isFolder) await walk(child, `${path}/${child.name}`);
        else await addFile(child, `${path}/${child.name}`);
      }
      if (page.length < PAGE) return;
      after = page[page.length - 1];
    }
  };
  for (const id of ids) {
    if (closed()) return;
    const row = await accessible(db, user, id, 'read');
    // Top-level names from different folders may clash: keep both.
    let name = row.name;
    for (let n = 1; used.has(name.toLowerCase()); n++) name = `${row.name} (${n})`;
    used.add(name.toLowerCase());
    if (row.isFolder) await walk(row, name);
    else await addFile(row, name);
  }
}

/**
 * Streams the zip as the reply. The zip writer writes straight to the socket: its write callbacks tell when a reused
 * read buffer may be refilled, which a stream handed to reply.send() would hide. Hijacked replies skip onSend, so
 * the headers it would add are written here.
 */
export async function sendZip(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, user: Caller, ids: readonly string[], name: string): Promise<void> {
  reply.hijack();
  const res = reply.raw;
  const headers: Record<string, string | string[]> = {};
  const set = (key: string, value: unknown) => (headers[key.toLowerCase()] = Array.isArray(value) ? value.map(String) : String(value));
  for (const [key, value] of Object.entries(reply.getHeaders())) if (value !== undefined) set(key, value);
  for (const [key, value] of Object.entries({ ...securityHeaders(req.url, 'application/zip'), ...STORED_CONTENT_HEADERS })) set(key, value);
  set('content-type', 'application/zip');
  set('content-disposition', contentDisposition('attachment', `${name}.zip`));
  set('cache-control', 'no-store');
  res.writeHead(200, headers);
  let closed = false;
  res.on('close', () => (closed = true));
  const zip = new ZipWriter(res);
  try {
    await writeZip(ctx, zip, user, ids, () => closed);
    if (!closed) await zip.finish();
  } catch (err) {
    // Headers are gone: cutting the stream makes the client see a failed download, not a corrupt zip.
    if (!closed) req.log.error({ err, traceId: req.traceId }, 'zip stream failed');
    res.destroy();
  }
}
