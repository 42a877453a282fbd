// Steps of migration 001 that a wave-1 SQLite database may still lack (its migrations 003 to 005) or lacks for
// certain (the child counts). The fresh path and the conversion (wave1.ts) run the very same code, so both end
// with the same schema.
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

type Db = Kysely<unknown>;

export const isNull = (col: string) => sql<SqlBool>`${sql.ref(col)} is null`;
export const isNotNull = (col: string) => sql<SqlBool>`${sql.ref(col)} is not null`;

/** Wave-1 migration 003: single-use and short-lived download tickets (only their SHA-256 is stored). */
export async function createDownloadTickets(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('download_tickets')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('user_id', t.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', t.text, (c) => c.notNull().check(sql`kind in ('zip', 'preview')`))
    .addColumn('payload', t.text, (c) => c.notNull())
    .addColumn('expires_at', t.time, (c) => c.notNull())
    .addColumn('used_at', t.time)
    .execute();
  await db.schema.createIndex('download_tickets_expiry').on('download_tickets').column('expires_at').execute();
}

/**
 * Wave-1 migration 004: what storage may hold for an upload session (write mode, how long a signed write stays
 * valid, when it ended). Added with ALTER TABLE on both paths so a fresh and a converted database match exactly.
 * SQLite takes one ADD COLUMN per statement.
 */
export async function addUploadBounds(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .alterTable('upload_sessions')
    .addColumn('write_mode', t.text, (c) => c.check(sql`write_mode in ('put', 'multipart', 'server')`))
    .execute();
  await db.schema.alterTable('upload_sessions').addColumn('sign_until', t.time, (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('upload_sessions').addColumn('ended_at', t.time).execute();
  await db.schema.createIndex('upload_sessions_open').on('upload_sessions').columns(['user_id', 'expires_at']).where(isNull('ended_at')).execute();
}

/**
 * Wave-1 migration 005: sign-in CAPTCHA challenges, single-use and short-lived, shared by every node. Only an
 * HMAC of the answer is kept.
 */
export async function createCaptchas(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('captchas')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('answer_hash', t.text, (c) => c.notNull())
    .addColumn('ip', t.text, (c) => c.notNull())
    .addColumn('expires_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('captchas_ip').on('captchas').columns(['ip', 'expires_at']).execute();
  await db.schema.createIndex('captchas_expiry').on('captchas').column('expires_at').execute();
}

/** Per-folder counts of live children, so a listing's total never scans the folder (issue #12 item 6). */
export async function addChildCounts(db: Db, t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('instances').addColumn('child_folders', t.int, (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('instances').addColumn('child_files', t.int, (c) => c.notNull().defaultTo(0)).execute();
}
