// Docker cannot run here, so the compose files are checked by reading them: the services exist, MinIO gets its
// bucket before the server starts, the PostgreSQL overlay wires the server to its database, and every HCS_* variable
// they set is one the server actually reads.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ENV_VARS, loadConfig } from '../../mock-server/src/config.ts';

const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'));
const hcs = compose.services.hcs;
const withPostgres = parse(readFileSync(new URL('../../docker-compose.postgres.yml', import.meta.url), 'utf8'));

/** ${NAME:-default} as compose resolves it with nothing set. */
const defaults = (v: unknown) => String(v).replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');

describe('docker-compose.yml', () => {
  it('has MinIO, a bucket-init step and the server', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['hcs', 'minio', 'minio-init']);
    expect(compose.services.minio.image).toMatch(/^minio\/minio/);
    expect(compose.services['minio-init'].entrypoint).toContain('mc mb --ignore-existing local/$${HCS_S3_BUCKET}');
    expect(compose.services['minio-init'].depends_on.minio.condition).toBe('service_healthy');
    expect(hcs.depends_on['minio-init'].condition).toBe('service_completed_successfully');
  });

  it('only sets HCS_* variables the server reads', () => {
    const names = Object.keys(hcs.environment);
    for (const n of names) expect(ENV_VARS, n).toHaveProperty(n);
    for (const required of ['HCS_S3_ENDPOINT', 'HCS_S3_ACCESS_KEY', 'HCS_S3_SECRET_KEY', 'HCS_S3_BUCKET', 'HCS_PORT', 'HCS_DATA_DIR']) {
      expect(names).toContain(required);
    }
  });

  it('wires the server to MinIO by its service name and port, with matching credentials', () => {
    const minio = compose.services.minio;
    const minioPort = minio.command.includes('--address') ? undefined : '9000';
    expect(hcs.environment.HCS_S3_ENDPOINT).toBe(`http://minio:${minioPort}`);
    expect(hcs.environment.HCS_S3_ACCESS_KEY).toBe(minio.environment.MINIO_ROOT_USER);
    expect(hcs.environment.HCS_S3_SECRET_KEY).toBe(minio.environment.MINIO_ROOT_PASSWORD);
    expect(compose.services['minio-init'].environment.HCS_S3_BUCKET).toBe(hcs.environment.HCS_S3_BUCKET);
    expect(minio.ports).toContain('9000:9000');
  });

  it('publishes the server port the server listens on, and the config loads from that environment', () => {
    const env = Object.fromEntries(Object.entries<string>(hcs.environment).map(([k, v]) => [k, defaults(v)]));
    const cfg = loadConfig(env, '/app');
    expect(hcs.ports).toContain(`${cfg.port}:${cfg.port}`);
    expect(cfg.s3.endpoint).toBe('http://minio:9000');
    expect(cfg.s3.publicEndpoint).toBe('http://localhost:9000');
    expect(cfg.dataDir).toBe('/data');
    expect(hcs.volumes).toContain('hcs-data:/data');
    // The web app is served by the server itself: the start command builds it before starting.
    expect(hcs.command.join(' ')).toMatch(/npm run build && npm start/);
  });

  it('docker-compose.postgres.yml adds PostgreSQL and hands the server its URL: same user, password, database and port', () => {
    const pg = withPostgres.services.postgres;
    expect(pg.image).toMatch(/^postgres:/);
    expect(Object.keys(withPostgres.services).sort()).toEqual(['hcs', 'postgres']);
    const over = withPostgres.services.hcs;
    for (const n of Object.keys(over.environment)) expect(ENV_VARS, n).toHaveProperty(n);
    expect(over.depends_on.postgres.condition).toBe('service_healthy');
    const url = new URL(defaults(over.environment.HCS_DATABASE_URL));
    expect(url.protocol).toBe('postgres:');
    expect([url.hostname, url.port]).toEqual(['postgres', '5432']);
    expect(decodeURIComponent(url.username)).toBe(defaults(pg.environment.POSTGRES_USER));
    expect(decodeURIComponent(url.password)).toBe(defaults(pg.environment.POSTGRES_PASSWORD));
    expect(url.pathname).toBe(`/${defaults(pg.environment.POSTGRES_DB)}`);
    // The server reads it: the merged environment loads, with PostgreSQL selected.
    const merged = Object.fromEntries(Object.entries<string>({ ...hcs.environment, ...over.environment }).map(([k, v]) => [k, defaults(v)]));
    expect(loadConfig(merged, '/app').databaseUrl).toBe(url.toString());
  });
});
