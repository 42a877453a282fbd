// minioHealth's reading of MinIO's health answers. The real MinIO is checked by the S3 suite when a Docker engine is
// there (tests/s3/s3-targets.int-spec.ts, testcontainers); this pins what each answer is taken to mean, and that a
// plain S3 server (the path is a bucket name to it) or a 200 from something that is not MinIO is not taken for MinIO.
import { createServer, type Server } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { minioHealth } from './connections.ts';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function answering(fn: (path: string) => { status: number; server?: string }): Promise<string> {
  server = createServer((req, res) => {
    const a = fn(req.url ?? '');
    res.writeHead(a.status, a.server ? { server: a.server } : {});
    res.end(a.status === 200 ? '' : '<?xml version="1.0"?><Error><Code>NoSuchBucket</Code></Error>');
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server!.address() as { port: number }).port}`;
}

it('MinIO live with write quorum, and live without it (health/cluster 503)', async () => {
  let quorum = true;
  const url = await answering((p) => (p === '/minio/health/live' ? { status: 200, server: 'MinIO' } : p === '/minio/health/cluster' ? { status: quorum ? 200 : 503, server: 'MinIO' } : { status: 404 }));
  expect(await minioHealth(url)).toEqual({ live: true, clusterHealthy: true });
  quorum = false;
  expect(await minioHealth(`${url}/`)).toEqual({ live: true, clusterHealthy: false });
});

it('a plain S3 server (the path names a bucket) and a 200 from a server that is not MinIO are not MinIO', async () => {
  const s3 = await answering(() => ({ status: 404, server: 'Ceph Object Gateway' }));
  expect(await minioHealth(s3)).toBeUndefined();
  await new Promise<void>((r) => server!.close(() => r()));
  const other = await answering(() => ({ status: 200, server: 'nginx' }));
  expect(await minioHealth(other)).toBeUndefined();
});

it('an endpoint that does not answer is not MinIO', async () => {
  const url = await answering(() => ({ status: 200 }));
  await new Promise<void>((r) => server!.close(() => r()));
  server = undefined;
  expect(await minioHealth(url)).toBeUndefined();
});
