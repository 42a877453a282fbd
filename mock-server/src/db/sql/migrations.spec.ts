// Migrations on both databases, and the in-place conversion of a wave-1 SQLite data dir.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, migrationsFor } from './migrations/index.ts';
import { openSqlDatabase } from './open.ts';
import { createTestPgDatabase } from '../../../../tests/helpers/pg.ts';
import { DIALECTS, openTestDatabase, type TestDatabase } from './test-databases.ts';
import type { Db } from './tx.ts';
import type { Schema } from './schema.ts';
import { NodeSqliteDialect } from './node-sqlite-dialect.ts';
import { createPostgresKysely } from './postgres.ts';

const USED_TABLES = [
  'admin_versions',
  'blob_replicas',
  'blobs',
  'business_libs',
  'captchas',
  'classifiers',
  'clusters',
  'departments',
  'dept_managers',
  'directory_disabled',
  'directory_groups',
  'directory_memberships',
  'dlp_checks',
  'dlp_rules',
  'download_tickets',
  'favourites',
  'file_versions',
  'grants',
  'group_handovers',
  'group_members',
  'groups',
  'identity_sync_reports',
  'instance_attrs',
  'instance_classifiers',
  'instance_labels',
  'instances',
  'ip_whitelist',
  'jobs',
  'labels',
  'ldap_config',
  'leases',
  'lib_attributes',
  'link_grants',
  'link_items',
  'link_lockouts',
  'link_logs',
  'link_policy',
  'link_sessions',
  'link_tokens',
  'link_uploads',
  'links',
  'menus',
  'nodes',
  'oidc_providers',
  'op_logs',
  'proof_challenges',
  'pull_syncs',
  'rate_limits',
  'recycle_entries',
  'role_auths',
  'roles',
  'sessions',
  'share_callback_deliveries',
  'share_callbacks',
  'share_recipients',
  'shares',
  'sites',
  'sso_sessions',
  'sso_states',
  'storage_connections',
  'storage_policies',
  'sync_configs',
  'sys_config',
  'templates',
  'upload_parts',
  'upload_sessions',
  'user_labels',
  'users',
];

/** SQLite's FTS5 name index (007_search) and the shadow tables FTS5 keeps for it. */
const SQLITE_FTS_TABLES = ['instances_fts', 'instances_fts_config', 'instances_fts_content', 'instances_fts_data', 'instances_fts_docsize', 'instances_fts_idx'];

const tablesOn = (dialect: string): string[] => (dialect === 'sqlite' ? [...USED_TABLES, ...SQLITE_FTS_TABLES].sort() : USED_TABLES);

async function tableNames(db: Db): Promise<string[]> {
  const tables = await db.introspection.getTables();
  return tables.map((t) => t.name).sort();
}

async function seedOwner(db: Db): Promise<{ user: string; root: string }> {
  await db
    .insertInto('users')
    .values({ id: 'u1', user_name: 'Alice', user_name_key: 'alice', password_hash: 'x', password_changed_at: 1, created_at: 1, updated_at: 1 })
    .execute();
  await db
    .insertInto('instances')
    .values({ id: 'root', space_kind: 'user', space_id: 'u1', name: '', name_key: '', is_folder: 1, created_by: 'u1', created_at: 1, updated_at: 1 })
    .execute();
  return { user: 'u1', root: 'root' };
}

describe.each(DIALECTS)('migrations on $dialect', ({ dialect, skip }) => {
  let opened: TestDatabase | undefined;
  afterEach(async () => {
    await opened?.dispose();
    opened = undefined;
  });

  it.skipIf(skip !== undefined)('create exactly the tables the server uses, and apply nothing the second time', async () => {
    opened = await openTestDatabase(dialect);
    expect(await tableNames(opened.db)).toEqual(tablesOn(dialect));
    expect(await migrateToLatest(opened.db, dialect)).toEqual([]);
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(opened.db);
    expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(migrationsFor(dialect)));
  });

  it.skipIf(skip !== undefined)('keep names unique per folder among live entries only, and one root per space and library', async () => {
    opened = await openTestDatabase(dialect);
    const { db } = opened;
    const { root } = await seedOwner(db);
    const file = (id: string, deletedAt: number | null) =>
      db
        .insertInto('instances')
        .values({ id, space_kind: 'user', space_id: 'u1', parent_id: root, name: 'A.txt', name_key: 'a.txt', is_folder: 0, created_by: 'u1', created_at: 1, updated_at: 1, deleted_at: deletedAt })
        .execute();
    await file('f1', null);
    await expect(file('f2', null)).rejects.toThrow(/unique/i);
    await file('f3', 5); // in the recycle bin: the name is free again
    await expect(
      db
        .insertInto('instances')
        .values({ id: 'root2', space_kind: 'user', space_id: 'u1', name: '', name_key: '', is_folder: 1, created_by: 'u1', created_at: 1, updated_at: 1 })
        .execute(),
    ).rejects.toThrow(/unique/i);
    const root1 = await db.selectFrom('instances').select(['child_folders', 'child_files']).where('id', '=', root).executeTakeFirstOrThrow();
    expect(root1).toEqual({ child_folders: 0, child_files: 0 }); // kept by the repositories, not by the schema
  });

  it.skipIf(skip !== undefined || dialect !== 'postgres')('use bigint for times and sizes, smallint for flags and byte-order text on PostgreSQL', async () => {
    opened = await openTestDatabase(dialect);
    const cols = await sql<{ table_name: string; column_name: string; data_type: string; collation_name: string | null }>`
      select table_name, column_name, data_type, collation_name from information_schema.columns
      where table_schema = 'public' and (table_name, column_name) in (
        ('instances', 'size'), ('instances', 'created_at'), ('instances', 'is_folder'), ('instances', 'name_key'),
        ('instances', 'child_files'), ('jobs', 'id'), ('op_logs', 'id'), ('upload_sessions', 'sign_until'))
      order by table_name, column_name`.execute(opened.db);
    expect(cols.rows.map((c) => `${c.table_name}.${c.column_name} ${c.data_type}${c.collation_name ? ` ${c.collation_name}` : ''}`)).toEqual([
      'instances.child_files integer',
      'instances.created_at bigint',
      'instances.is_folder smallint',
      'instances.name_key text C',
      'instances.size bigint',
      'jobs.id bigint',
      'op_logs.id bigint',
      'upload_sessions.sign_until bigint',
    ]);
  });

  it.skipIf(skip !== undefined || dialect !== 'postgres')('run once when several nodes start on one new PostgreSQL database at the same time', async () => {
    const pg = await createTestPgDatabase();
    try {
      const nodes = await Promise.all(Array.from({ length: 4 }, () => openSqlDatabase({ dataDir: tmpdir(), databaseUrl: pg.url, poolSize: 2 })));
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(nodes[0]!.db);
      expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(migrationsFor(dialect)));
      expect(await tableNames(nodes[3]!.db)).toEqual(tablesOn('postgres'));
      await Promise.all(nodes.map((n) => n.close()));
    } finally {
      await pg.drop();
    }
  });
});

// ---- one migration over existing rows -------------------------------------------------------------------------

/** A database with no migration applied, and how to be rid of it. */
async function blankDatabase(dialect: 'sqlite' | 'postgres'): Promise<{ db: Kysely<Schema>; dispose: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'hcs-blank-'));
    const db = new Kysely<Schema>({ dialect: new NodeSqliteDialect({ path: join(dir, 'hcs.sqlite') }) });
    return { db, dispose: async () => { await db.destroy(); rmSync(dir, { recursive: true, force: true }); } };
  }
  const pg = await createTestPgDatabase();
  const db = createPostgresKysely<Schema>({ url: pg.url, poolSize: 2 });
  return { db, dispose: async () => { await db.destroy(); await pg.drop(); } };
}

describe.each(DIALECTS)('migration 027 on $dialect', ({ dialect, skip }) => {
  it.skipIf(skip !== undefined)('marks the users who have a favourite or a label on an item, no one else, and tells the session caches of the column', async () => {
    const { db, dispose } = await blankDatabase(dialect);
    try {
      const before = await new Migrator({ db, provider: { getMigrations: async () => migrationsFor(dialect) } }).migrateTo('026_sync_config_version');
      expect(before.error).toBeUndefined();
      for (const id of ['fav', 'lab', 'none']) {
        await db.insertInto('users').values({ id, user_name: id, user_name_key: id, password_hash: 'x', password_changed_at: 1, created_at: 1, updated_at: 1 }).execute();
        await db.insertInto('instances').values({ id: `root-${id}`, space_kind: 'user', space_id: id, name: '', name_key: '', is_folder: 1, created_by: id, created_at: 1, updated_at: 1 }).execute();
      }
      await db.insertInto('favourites').values({ user_id: 'fav', instance_id: 'root-fav', created_at: 1 }).execute();
      await db.insertInto('labels').values({ id: 'l1', user_id: 'lab', name: 'a', name_key: 'a', color: '#000', created_at: 1 }).execute();
      await db.insertInto('instance_labels').values({ label_id: 'l1', instance_id: 'root-lab', user_id: 'lab', created_at: 1 }).execute();
      // A label of one's own that is on no item is no mark.
      await db.insertInto('labels').values({ id: 'l2', user_id: 'none', name: 'b', name_key: 'b', color: '#000', created_at: 1 }).execute();

      expect(await migrateToLatest(db, dialect)).toEqual(['027_user_marks']);
      const flags = await db.selectFrom('users').select(['id', 'has_marks']).orderBy('id').execute();
      expect(flags.map((r) => [r.id, Number(r.has_marks)])).toEqual([['fav', 1], ['lab', 1], ['none', 0]]);
      if (dialect === 'postgres') {
        const def = await sql<{ def: string }>`select pg_get_triggerdef(oid) as def from pg_trigger where tgname = 'hcs_users_changed'`.execute(db);
        expect(def.rows).toHaveLength(1);
        expect(def.rows[0]!.def).toMatch(/old\.has_marks/);
        expect(def.rows[0]!.def).toMatch(/old\.is_admin/);
      }
    } finally {
      await dispose();
    }
  });
});

// ---- wave-1 SQLite data dirs ------------------------------------------------------------------------------

interface TableShape {
  columns: string[];
  foreignKeys: string[];
  checks: string[];
  indexes: string[];
}

/** SQL text without comments, quotes, case or layout differences. */
function normalise(text: string): string {
  return text
    .replace(/--[^\n]*/g, '')
    .replace(/"/g, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/\s*([(),])\s*/g, '$1')
    .trim();
}

function checksOf(createSql: string): string[] {
  const text = normalise(createSql);
  const out: string[] = [];
  for (let i = text.indexOf('check('); i !== -1; i = text.indexOf('check(', i + 1)) {
    let depth = 0;
    let j = i + 'check'.length;
    for (; j < text.length; j++) {
      if (text[j] === '(') depth++;
      else if (text[j] === ')' && --depth === 0) break;
    }
    out.push(text.slice(i, j + 1));
  }
  return out.sort();
}

/** Everything about a SQLite schema that behaviour depends on, table by table, for comparing two databases. */
function shapeOf(path: string): Record<string, TableShape> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const all = <T>(q: string, ...args: string[]) => db.prepare(q).all(...args) as T[];
    const tables = all<{ name: string; sql: string }>(
      "select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' order by name",
    );
    const shape: Record<string, TableShape> = {};
    for (const t of tables) {
      const columns = all<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(`pragma table_info("${t.name}")`).map(
        (c) => `${c.name} ${c.type.toLowerCase()} notnull=${c.notnull} default=${c.dflt_value} pk=${c.pk}`,
      );
      const foreignKeys = all<{ table: string; from: string; to: string; on_delete: string; on_update: string }>(`pragma foreign_key_list("${t.name}")`)
        .map((f) => `${f.from} -> ${f.table}.${f.to} on delete ${f.on_delete} on update ${f.on_update}`)
        .sort();
      const indexes = all<{ name: string; unique: number; origin: string; partial: number }>(`pragma index_list("${t.name}")`)
        .map((ix) => {
          const cols = all<{ name: string | null; desc: number; key: number }>(`pragma index_xinfo("${ix.name}")`)
            .filter((c) => c.key === 1)
            .map((c) => `${c.name}${c.desc ? ' desc' : ''}`);
          const def = all<{ sql: string | null }>("select sql from sqlite_master where type = 'index' and name = ?", ix.name)[0]?.sql ?? '';
          const where = /\bwhere (.*)$/.exec(normalise(def))?.[1] ?? '';
          return `${ix.name} unique=${ix.unique} origin=${ix.origin} partial=${ix.partial} (${cols.join(', ')}) where ${where}`;
        })
        .sort();
      shape[t.name] = { columns, foreignKeys, checks: checksOf(t.sql), indexes };
    }
    return shape;
  } finally {
    db.close();
  }
}

describe('a wave-1 SQLite data dir', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'hcs-wave1-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  const wave1Sql = (file: string) => readFileSync(new URL(`./migrations/wave1-fixture/${file}`, import.meta.url), 'utf8');

  /**
   * A data dir as the wave-1 server left it: its migrations (kept as a fixture: the server no longer runs them)
   * applied and recorded in schema_migrations, as its migration runner did.
   */
  function openWave1(dir: string, versions: [number, string][]): DatabaseSync {
    const db = new DatabaseSync(join(dir, 'hcs.sqlite'));
    db.exec('PRAGMA foreign_keys = ON');
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    for (const [version, file] of versions) {
      db.exec(wave1Sql(file));
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 1)').run(version, file);
    }
    return db;
  }
  const ALL_WAVE1: [number, string][] = [
    [1, '001_initial.sql'],
    [3, '003_files.sql'],
    [4, '004_upload_bounds.sql'],
    [5, '005_captchas.sql'],
  ];

  /** Files, folders and a recycled file, written with the wave-1 code's own SQL. */
  function seedWave1(db: DatabaseSync): void {
    db.exec(`
      INSERT INTO users (id, user_name, user_name_key, password_hash, password_changed_at, created_at, updated_at)
        VALUES ('u1', 'Alice', 'alice', 'scrypt$x', 1, 1, 1);
      INSERT INTO instances (id, space_kind, space_id, parent_id, name, name_key, is_folder, created_by, created_at, updated_at)
        VALUES ('root', 'user', 'u1', NULL, '', '', 1, 'u1', 1, 1),
               ('docs', 'user', 'u1', 'root', 'Docs', 'docs', 1, 'u1', 2, 2),
               ('pics', 'user', 'u1', 'root', 'Pics', 'pics', 1, 'u1', 2, 2),
               ('a', 'user', 'u1', 'root', 'a.txt', 'a.txt', 0, 'u1', 3, 3),
               ('b', 'user', 'u1', 'docs', 'b.txt', 'b.txt', 0, 'u1', 3, 3),
               ('c', 'user', 'u1', 'docs', 'c.txt', 'c.txt', 0, 'u1', 3, 3);
      INSERT INTO instances (id, space_kind, space_id, parent_id, name, name_key, is_folder, created_by, created_at, updated_at, deleted_at)
        VALUES ('gone', 'user', 'u1', 'docs', 'gone.txt', 'gone.txt', 0, 'u1', 3, 3, 9);
    `);
  }

  async function freshShape(): Promise<Record<string, TableShape>> {
    const dir = tempDir();
    const { close } = await openSqlDatabase({ dataDir: dir });
    await close();
    return shapeOf(join(dir, 'hcs.sqlite'));
  }

  it('is converted in place: its rows stay, child counts are filled, unused tables go, and the schema equals a fresh one', async () => {
    const dir = tempDir();
    const old = openWave1(dir, ALL_WAVE1);
    seedWave1(old);
    old.exec("INSERT INTO favourites (user_id, instance_id, created_at) VALUES ('u1', 'a', 1)"); // a table no code uses, filled by hand
    old.close();

    const { db, close } = await openSqlDatabase({ dataDir: dir });
    try {
      const folders = await db.selectFrom('instances').select(['id', 'child_folders', 'child_files']).where('is_folder', '=', 1).orderBy('id').execute();
      expect(folders).toEqual([
        { id: 'docs', child_folders: 0, child_files: 2 }, // the recycled file does not count
        { id: 'pics', child_folders: 0, child_files: 0 },
        { id: 'root', child_folders: 2, child_files: 1 },
      ]);
      const user = await db.selectFrom('users').select(['user_name', 'password_hash']).where('id', '=', 'u1').executeTakeFirstOrThrow();
      expect(user).toEqual({ user_name: 'Alice', password_hash: 'scrypt$x' });
      expect(await tableNames(db)).toEqual([...tablesOn('sqlite'), 'wave1_favourites'].sort());
    } finally {
      await close();
    }

    const converted = shapeOf(join(dir, 'hcs.sqlite'));
    delete converted.wave1_favourites;
    expect(converted).toEqual(await freshShape());

    // Opening it again applies nothing.
    const again = await openSqlDatabase({ dataDir: dir });
    try {
      expect(await migrateToLatest(again.db, 'sqlite')).toEqual([]);
    } finally {
      await again.close();
    }
  });

  it('that never got wave-1 migrations 004 and 005 gets their columns and tables too', async () => {
    const dir = tempDir();
    const old = openWave1(dir, ALL_WAVE1.slice(0, 2));
    seedWave1(old);
    old.close();

    const { close } = await openSqlDatabase({ dataDir: dir });
    await close();
    expect(shapeOf(join(dir, 'hcs.sqlite'))).toEqual(await freshShape());
  });

  it('with a wave-1 migration the conversion does not know is refused and left untouched', async () => {
    const dir = tempDir();
    const old = openWave1(dir, ALL_WAVE1);
    seedWave1(old);
    old.exec("INSERT INTO schema_migrations VALUES (99, '099_future.sql', 1)");
    old.close();
    const before = shapeOf(join(dir, 'hcs.sqlite'));

    await expect(openSqlDatabase({ dataDir: dir })).rejects.toThrow(/001_core failed: .*wave-1 migrations \[.*99\]/);
    const after = shapeOf(join(dir, 'hcs.sqlite'));
    expect(after).toEqual(before); // the failed migration's transaction rolled back
  });
});
