// The listing benchmark's baseline as its own process, run the way the server runs (the same V8 heap settings,
// runtime-flags.ts, first): a bare Fastify route that runs only the keyset page SELECT of a listing on the same
// database, nothing else (no session, no access check, no total, no names). Prints its URL when it listens.
//   HCS_BARE_DATA_DIR (the SQLite file's dir), HCS_BARE_DATABASE_URL (PostgreSQL), HCS_BARE_PARENT_ID
import '../../mock-server/src/runtime-flags.ts';

const { default: Fastify } = await import('fastify');
const { openSqlDatabase } = await import('../../mock-server/src/db/sql/open.ts');
const { keysetPage } = await import('../../mock-server/src/db/instances-repo.ts');

const parentId = process.env.HCS_BARE_PARENT_ID ?? '';
// The pool the server has by default (HCS_DATABASE_POOL_SIZE 10).
const database = await openSqlDatabase({ dataDir: process.env.HCS_BARE_DATA_DIR ?? '', databaseUrl: process.env.HCS_BARE_DATABASE_URL || undefined, poolSize: 10 });
if (database.dialect === 'postgres') {
  // The 100,000 rows were just created: whether autovacuum has analysed them yet decided which plans PostgreSQL
  // cached for the prepared statements of both sides, and so the figures (the bare page-1 route: 69 req/s with its
  // generic plan forced, 1875 with custom plans forced, 1832 and 2982 in two runs left alone). A database in use has
  // its statistics; this one gets them now, before either side is measured (cached plans are re-planned after it).
  const { sqlOn } = await import('../../tests/helpers/db.ts');
  await sqlOn(database.db).run('ANALYZE instances');
}
const app = Fastify({ logger: false });
app.get('/page', async (req) => {
  const q = req.query as { id?: string; key?: string; folder?: string };
  const after = q.id && q.key !== undefined ? { isFolder: q.folder === '1', nameKey: q.key, id: q.id } : undefined;
  return { list: await keysetPage(database.db, parentId, after, 50) };
});
await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`bare listing at http://127.0.0.1:${(app.server.address() as { port: number }).port}/page`);
process.once('SIGTERM', () => {
  void app.close().then(() => database.close()).then(() => process.exit(0));
});
