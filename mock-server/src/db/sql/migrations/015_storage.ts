// 015: storage connections, library storage policies, nodes, clusters and sites (issue #20 part 1).
// - storage_connections: external S3 endpoints. The secret key is sealed under the master key (storage/master-key.ts)
//   and never leaves the server. The embedded store is connection '0' and has no row: it always exists.
// - storage_policies: per library, the connection, bucket and at-rest encryption of new uploads.
// - blobs.connection_id: where each blob's object lives. Blobs from before are on connection '0'; a policy change
//   never moves them (their bucket column was already per blob).
// - nodes: every server process, with its heartbeat; a node silent for long is shown down, never deleted by itself.
// - clusters group nodes, sites group clusters (in a region) and name a default storage connection.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

export function storageMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema
        .createTable('storage_connections')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('name', t.text, (c) => c.notNull())
        .addColumn('name_key', t.text, (c) => c.notNull().unique())
        .addColumn('endpoint', t.text, (c) => c.notNull())
        .addColumn('region', t.text, (c) => c.notNull())
        .addColumn('bucket', t.text, (c) => c.notNull())
        .addColumn('access_key', t.text, (c) => c.notNull())
        .addColumn('secret_enc', t.text, (c) => c.notNull())
        .addColumn('sse', t.text, (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('storage_policies')
        .addColumn('lib_code', t.text, (c) => c.primaryKey())
        .addColumn('connection_id', t.text, (c) => c.notNull())
        .addColumn('bucket', t.text, (c) => c.notNull())
        .addColumn('encryption', t.text, (c) => c.notNull().check(sql`encryption in ('none', 'aes256-gcm', 'sse-s3', 'sse-kms')`))
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema.alterTable('blobs').addColumn('connection_id', t.text, (c) => c.notNull().defaultTo('0')).execute();
      await db.schema.createIndex('blobs_connection').on('blobs').columns(['connection_id']).execute();
      await db.schema
        .createTable('sites')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('name', t.text, (c) => c.notNull())
        .addColumn('name_key', t.text, (c) => c.notNull().unique())
        .addColumn('region', t.text, (c) => c.notNull().defaultTo(''))
        .addColumn('connection_id', t.text, (c) => c.notNull())
        .addColumn('created_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('clusters')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('name', t.text, (c) => c.notNull())
        .addColumn('name_key', t.text, (c) => c.notNull().unique())
        .addColumn('site_id', t.text, (c) => c.references('sites.id').onDelete('set null'))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('nodes')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('name', t.text, (c) => c.notNull())
        .addColumn('address', t.text, (c) => c.notNull())
        .addColumn('site', t.text, (c) => c.notNull().defaultTo(''))
        .addColumn('version', t.text, (c) => c.notNull())
        .addColumn('started_at', t.time, (c) => c.notNull())
        .addColumn('heartbeat_at', t.time, (c) => c.notNull())
        .addColumn('cluster_id', t.text, (c) => c.references('clusters.id').onDelete('set null'))
        .execute();
    },
  };
}
