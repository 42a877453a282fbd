// npm start: the drive on its embedded defaults (SQLite + embedded S3 under ./data), serving the web app.
// First, and alone: it may restart the process with its V8 heap flags, so the rest is loaded only after it.
import './runtime-flags.ts';

const { loadConfig } = await import('./config.ts');
const { buildApp } = await import('./app.ts');

const config = loadConfig();
const built = await buildApp(config);
const base = await built.listen();
console.log(`\nHCS drive is running: ${base}/drive/`);
console.log(`Sign in as "${config.admin.user}" (password: HCS_ADMIN_PASSWORD, or the one printed on first start and kept in ${config.dataDir}/admin-password.txt)\n`);

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    built.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
