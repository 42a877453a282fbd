// What the integration suites share for state a server reaches on its own schedule (replication sweeps, queued
// jobs, a second node), and for the optional real S3 server (radosgw) CI provides.

/** Polls until `probe` answers something other than undefined or false, bounded: never getting there fails the test. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The radosgw CI starts (tests/s3/radosgw.sh env), as an S3 connection's settings; undefined when none is set. */
export const radosgw = process.env.HCS_TEST_S3_ENDPOINT
  ? {
    endpoint: process.env.HCS_TEST_S3_ENDPOINT,
    region: process.env.HCS_TEST_S3_REGION ?? 'us-east-1',
    accessKeyId: process.env.HCS_TEST_S3_ACCESS_KEY ?? '',
    secretAccessKey: process.env.HCS_TEST_S3_SECRET_KEY ?? '',
  }
  : undefined;
