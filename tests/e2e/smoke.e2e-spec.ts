// Smoke test in a real browser: the built web app loads from the server at /drive/, a person can sign in,
// and the app reaches the personal-files screen with its data coming from the real /hcs server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from './harness.ts';

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
});
afterAll(async () => {
  await e2e?.close();
});

describe('smoke', () => {
  it('serves the app, signs in and lands on /personalFile', async () => {
    const { page, context } = await e2e.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    const first = await page.goto(`${e2e.baseUrl}/`);
    expect(first?.ok()).toBe(true);
    // Unknown paths and / end on the sign-in screen when nobody is signed in.
    await page.waitForURL(/\/drive\/login/, { timeout: 20000 });
    await page.locator('input[autocomplete="username"], input#username, input[name="username"]').first().fill(e2e.adminUser);
    await page.locator('input[type="password"]').first().fill(e2e.adminPassword);
    await page.locator('button[type="submit"]').first().click();
    await page.waitForURL(/\/drive\/personalFile/, { timeout: 20000 });
    // The page shows the signed-in user's name somewhere in the header.
    await expect.poll(async () => page.locator('body').innerText(), { timeout: 10000 }).toContain(e2e.adminUser);
    await e2e.screenshot(page, 'smoke-personal-file');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('answers /hcs calls with the envelope', async () => {
    const res = await fetch(`${e2e.baseUrl}/hcs/services/System/platformInfo`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
    const body = (await res.json()) as any;
    expect(body.ret).toBe(0);
    expect(body.data.platformId).toBe('NetDisk');
  });

  it('sent only responses that match the contract', () => {
    expect(e2e.server.violations).toEqual([]);
  });
});
