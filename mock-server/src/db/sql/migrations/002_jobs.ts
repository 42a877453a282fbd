// 002: the job queue (jobs.ts): one row per job, claimed with one UPDATE ... RETURNING.
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';
import { isNotNull, isNull } from './core-steps.ts';

export function jobsMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema
        .createTable('jobs')
        .addColumn('id', t.serialIdType, t.serialId)
        .addColumn('kind', t.text, (c) => c.notNull())
        .addColumn('dedupe_key', t.text)
        .addColumn('payload', t.text, (c) => c.notNull().defaultTo('{}'))
        .addColumn('state', t.text, (c) => c.notNull().defaultTo('queued').check(sql`state in ('queued', 'running', 'done', 'failed')`))
        .addColumn('attempts', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('max_attempts', t.int, (c) => c.notNull().defaultTo(5).check(sql`max_attempts >= 1`))
        .addColumn('run_at', t.time, (c) => c.notNull())
        .addColumn('lease_until', t.time)
        .addColumn('locked_by', t.text)
        .addColumn('last_error', t.text)
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addColumn('updated_at', t.time, (c) => c.notNull())
        .addColumn('finished_at', t.time)
        .execute();
      // Unique among pending jobs only (finished_at is set when a job is done or failed for good): enqueueing a
      // key again while its job waits or runs is a no-op, and the same key may run again once that job is over.
      await db.schema.createIndex('jobs_dedupe').unique().on('jobs').column('dedupe_key').where(isNull('finished_at')).execute();
      // What a claim scans: due queued jobs in run_at order, and running jobs whose lease ran out.
      await db.schema
        .createIndex('jobs_queued')
        .on('jobs')
        .columns(['run_at', 'id'])
        .where(sql<SqlBool>`state = 'queued'`)
        .execute();
      await db.schema
        .createIndex('jobs_running')
        .on('jobs')
        .column('lease_until')
        .where(sql<SqlBool>`state = 'running'`)
        .execute();
      await db.schema.createIndex('jobs_finished').on('jobs').column('finished_at').where(isNotNull('finished_at')).execute();
    },
  };
}
