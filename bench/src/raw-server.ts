// Baseline for upload/download: a minimal Fastify server that streams PUT bodies to disk and GETs from disk
// with 1 MiB reads, no auth, no metadata, no hashing. It is what "just moving the bytes" costs on this disk.
import Fastify from 'fastify';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';

export async function startRawServer(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false, bodyLimit: Number.MAX_SAFE_INTEGER });
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
  app.put('/:name', async (req, reply) => {
    const file = join(dir, (req.params as { name: string }).name.replace(/[^A-Za-z0-9._-]/g, '_'));
    await pipeline(req.body as NodeJS.ReadableStream, createWriteStream(file, { highWaterMark: 1 << 20 }));
    return reply.code(200).send('ok');
  });
  app.get('/:name', async (req, reply) => {
    const file = join(dir, (req.params as { name: string }).name.replace(/[^A-Za-z0-9._-]/g, '_'));
    reply.header('content-length', statSync(file).size);
    return reply.send(createReadStream(file, { highWaterMark: 1 << 20 }));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
