// drive admin storage|site|node ...: storage connections, sites and server nodes (issue #20). Administrators only; the
// server decides and validates. The secret key is read from standard input so it never sits in the shell history or
// the process list, and it is never printed back (the server does not return it).
import type { Command } from 'commander';
import type { components } from '@hcs/openapi/client';
import { action, type Io } from '../command-context.ts';
import { CliError, EXIT, usageError } from '../exit-codes.ts';
import { readPasswordStdin } from './session.ts';

type S = components['schemas'];
type Stdin = NodeJS.ReadableStream & { isTTY?: boolean };

function connectionJson(c: S['CloudConnection']) {
  return {
    cloudId: c.cloudId, name: c.name, endpoint: c.endpoint, region: c.region, bucket: c.defaultBucket, embedded: c.embedded, hasSecret: c.hasSecret,
    accessKeyHint: c.accessKeyHint, sse: c.sse,
  };
}

function connectionLine(c: S['CloudConnection']): string {
  return `${c.cloudId.padEnd(14)} ${c.name.padEnd(20)} ${c.endpoint}  bucket ${c.defaultBucket}${c.embedded ? '  [embedded]' : ''}`;
}

function policyJson(p: S['StoragePolicy']) {
  return {
    event: 'storage-policy', libCode: p.libCode, cloudId: p.cloudId, storage: p.cloudName, bucket: p.bucketName, encryption: p.encryption, kmsKeyId: p.kmsKeyId,
    inForce: p.inForce,
  };
}

/**
 * --encryption as the CLI's fixed interface names it, as the policy's mode: AES256 on the embedded store is its own
 * AES-256-GCM, elsewhere the external S3's SSE-S3; aws:kms is SSE-KMS.
 */
function policyEncryption(mode: string, embedded: boolean): S['Encryption'] {
  if (mode === 'none') return 'none';
  if (mode === 'AES256') return embedded ? 'aes256-gcm' : 'sse-s3';
  if (mode === 'aws:kms') return 'sse-kms';
  throw usageError(`--encryption: "${mode}" is not one of none, AES256, aws:kms`);
}

function nodeJson(n: S['Node']) {
  return { nodeId: n.nodeId, name: n.name, address: n.address, site: n.site, version: n.version, status: n.status, heartbeat: n.heartbeat, clusterId: n.clusterId };
}

function nodeLine(n: S['Node']): string {
  return `${n.status.padEnd(5)} ${n.nodeId.padEnd(40)} ${n.address.padEnd(24)} site ${n.site || '-'}  v${n.version}  ${new Date(n.heartbeat).toISOString()}`;
}

export function registerAdminStorage(admin: Command, io: Io, stdin: Stdin = process.stdin): void {
  const storage = admin.command('storage').description('Storage connections (S3 endpoints)');
  storage
    .command('add')
    .argument('<name>', 'a name for the connection, unique')
    .requiredOption('--endpoint <url>', 'http(s) URL of the S3 endpoint')
    .requiredOption('--bucket <bucket>', 'the default bucket')
    .requiredOption('--access-key <key>', 'the access key id')
    .option('--secret-key-stdin', 'read the secret key (one line) from standard input (required)')
    .option('--region <region>', 'the S3 region', 'us-east-1')
    .description('Add an S3 storage connection; the secret is stored encrypted and never shown again')
    .action(
      action(io, async (ctx, name: string, opts: { endpoint: string; bucket: string; accessKey: string; secretKeyStdin?: boolean; region: string }) => {
        if (!opts.secretKeyStdin) throw usageError('--secret-key-stdin is required: printf "%s" "$SECRET" | drive admin storage add ...');
        if (!/^https?:\/\//.test(opts.endpoint)) throw usageError(`--endpoint: "${opts.endpoint}" is not an http(s) URL`);
        const secretKey = (await readPasswordStdin(stdin)).split(/\r?\n/)[0]!;
        if (!secretKey) throw usageError('--secret-key-stdin: the first line of standard input is empty');
        const body = { name, endpoint: opts.endpoint, bucket: opts.bucket, accessKey: opts.accessKey, secretKey, region: opts.region };
        const made = (await ctx.api().call((c) => c.POST('/hcs/controller/cloudConnect/addCloud', { body }))).data!;
        ctx.print({ event: 'storage-add', ...connectionJson(made) }, `Added storage connection ${made.name} (${made.cloudId})`);
      }),
    );
  storage
    .command('ls')
    .description('List storage connections; connection zero is the embedded store')
    .action(
      action(io, async (ctx) => {
        const page = (await ctx.api().call((c) => c.GET('/hcs/controller/cloudConnect/page', { params: { query: { pageNo: 1, pageSize: 1000 } } }))).data!;
        if (ctx.settings.json) for (const c of page.list) ctx.print(connectionJson(c), '');
        else ctx.print(null, page.list.map(connectionLine).join('\n'));
      }),
    );
  storage
    .command('policy')
    .argument('<library code>', 'the library whose new uploads are placed (NetDisk: personal files)')
    .requiredOption('--storage <name>', 'the name (or id) of the storage connection; embedded: the server\'s own store')
    .option('--bucket <bucket>', 'the bucket (default: the connection\'s default bucket)')
    .option('--encryption <mode>', 'none, AES256 (the embedded store: its AES-256-GCM; an external S3: SSE-S3) or aws:kms (SSE-KMS)', 'none')
    .option('--kms-key <id>', 'with aws:kms: the KMS key id or ARN (default: the bucket\'s key)')
    .description('Choose where a library\'s new uploads are stored and how they are encrypted; files already stored stay where they are')
    .action(
      action(io, async (ctx, libCode: string, opts: { storage: string; bucket?: string; encryption: string; kmsKey?: string }) => {
        if (opts.kmsKey !== undefined && opts.encryption !== 'aws:kms') throw usageError('--kms-key goes with --encryption aws:kms');
        // Checked before anything is sent.
        policyEncryption(opts.encryption, true);
        const api = ctx.api();
        const page = (await api.call((c) => c.GET('/hcs/controller/cloudConnect/page', { params: { query: { pageNo: 1, pageSize: 1000 } } }))).data!;
        const conn = page.list.find((c) => c.name.toLowerCase() === opts.storage.toLowerCase()) ?? page.list.find((c) => c.cloudId === opts.storage);
        if (!conn) throw new CliError(EXIT.REFUSED, `no storage connection named ${opts.storage} (drive admin storage ls)`, 'NOT_FOUND');
        const body = {
          libCode, cloudId: conn.cloudId, encryption: policyEncryption(opts.encryption, conn.cloudId === '0'),
          ...(opts.bucket !== undefined ? { bucketName: opts.bucket } : {}), ...(opts.kmsKey !== undefined ? { kmsKeyId: opts.kmsKey } : {}),
        };
        const p = (await api.call((c) => c.POST('/hcs/controller/storagePolicy/set', { body }))).data!;
        ctx.print(policyJson(p), `${p.libCode}: new uploads to ${p.cloudName} / ${p.bucketName}, encryption ${p.encryption} (in force: ${p.inForce})`);
      }),
    );

  const site = admin.command('site').description('Sites and their default storage');
  site
    .command('add')
    .argument('<name>', 'the site name (the HCS_SITE of its nodes)')
    .requiredOption('--storage <name>', 'the name (or id) of its default storage connection')
    .option('--region <region>', 'the region the site is in', '')
    .description('Add a site with its default storage connection')
    .action(
      action(io, async (ctx, name: string, opts: { storage: string; region: string }) => {
        const api = ctx.api();
        const page = (await api.call((c) => c.GET('/hcs/controller/cloudConnect/page', { params: { query: { pageNo: 1, pageSize: 1000 } } }))).data!;
        const conn = page.list.find((c) => c.name.toLowerCase() === opts.storage.toLowerCase()) ?? page.list.find((c) => c.cloudId === opts.storage);
        if (!conn) throw new CliError(EXIT.REFUSED, `no storage connection named ${opts.storage} (drive admin storage ls)`, 'NOT_FOUND');
        const made = (await api.call((c) => c.POST('/hcs/controller/region/site/addOrUpdate', { body: { name, region: opts.region, cloudId: conn.cloudId } }))).data!;
        ctx.print(
          { event: 'site-add', siteId: made.siteId, name: made.name, region: made.region, cloudId: made.cloudId, storage: made.cloudName },
          `Added site ${made.name} with storage ${made.cloudName}`,
        );
      }),
    );

  const node = admin.command('node').description('Server nodes');
  node
    .command('ls')
    .description('List server nodes: up ones beat recently, down ones have gone silent')
    .action(
      action(io, async (ctx) => {
        const list = (await ctx.api().call((c) => c.GET('/hcs/controller/node/list', {}))).data!.list;
        if (ctx.settings.json) for (const n of list) ctx.print(nodeJson(n), '');
        else ctx.print(null, list.map(nodeLine).join('\n'));
      }),
    );
}
