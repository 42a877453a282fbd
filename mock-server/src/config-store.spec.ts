// Run-time settings across nodes: two handles on one database stand for two server nodes. A change is seen at once
// on the node that made it, and on the other once its copy is older than VERSION_CHECK_MS (the clock is moved, not
// waited for); values that were never set are the environment's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from './config.ts';
import { configStore, VERSION_CHECK_MS } from './config-store.ts';
import { openSqlDatabase, type SqlDatabase } from './db/sql/open.ts';
import { transaction } from './db/sql/tx.ts';
import { writeConfigValue } from './db/admin-console-repo.ts';

let dir: string;
let a: SqlDatabase;
let b: SqlDatabase;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hcs-config-store-'));
  a = await openSqlDatabase({ dataDir: dir, databaseUrl: undefined });
  b = await openSqlDatabase({ dataDir: dir, databaseUrl: undefined });
});
afterAll(async () => {
  vi.useRealTimers();
  await a.close();
  await b.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('configStore', () => {
  it('a change on one node holds there at once and on another within VERSION_CHECK_MS', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const config = loadConfig({ HCS_DATA_DIR: dir, HCS_SYNC_SPEED: '1000' });
    const nodeA = configStore({ db: a.db, config });
    const nodeB = configStore({ db: b.db, config });
    expect(await nodeA.get('upload.syncSpeed')).toBe(1000);
    expect(await nodeB.get('upload.syncSpeed')).toBe(1000);

    await transaction(a.db, (trx) => writeConfigValue(trx, 'upload.syncSpeed', '5000', undefined));
    nodeA.invalidate();
    expect(await nodeA.get('upload.syncSpeed')).toBe(5000);
    // Node B asks the database again only once its copy is VERSION_CHECK_MS old.
    expect(await nodeB.get('upload.syncSpeed')).toBe(1000);
    vi.setSystemTime(1_000_000 + VERSION_CHECK_MS);
    expect(await nodeB.get('upload.syncSpeed')).toBe(5000);
    expect(await nodeB.get('hcd_able')).toBe(true);
  });
});
