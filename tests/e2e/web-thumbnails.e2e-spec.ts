// Thumbnails in the files screen (issue #22): an image shows the server's thumbnail, loaded by the <img> with the
// session cookie alone, in the icon view and as the list's name icon; a file of another type keeps its icon.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import type { Locator } from 'playwright-core';
import { signInAsAdmin, startE2E, type E2E } from './harness.ts';
import { uploadFile } from '../helpers/upload.ts';

let e2e: E2E;
let token: string;

async function api(path: string, query: Record<string, string | number> = {}, body?: unknown): Promise<any> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const res = await fetch(`${e2e.baseUrl}${path}${qs ? '?' + qs : ''}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'X-Requested-With': 'XMLHttpRequest', token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

/** Whether the <img> finished loading a real picture (a failed load has no natural size). */
const loadedWidth = (img: Locator) =>
  img.evaluate((el) => new Promise<number>((resolve) => {
    const i = el as HTMLImageElement;
    if (i.complete) return resolve(i.naturalWidth);
    i.addEventListener('load', () => resolve(i.naturalWidth), { once: true });
    i.addEventListener('error', () => resolve(0), { once: true });
  }));

beforeAll(async () => {
  e2e = await startE2E();
  token = (await e2e.server.login()).token;
  const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 20, g: 140, b: 90 } } })
    .composite([{ input: { create: { width: 320, height: 240, channels: 3, background: { r: 250, g: 210, b: 30 } } }, left: 0, top: 0 }])
    .png()
    .toBuffer();
  await uploadFile(api, 'garden.png', png);
  await uploadFile(api, 'readme.txt', Buffer.from('no picture here\n'));
}, 180_000);
afterAll(async () => {
  await e2e?.close();
});

describe('thumbnails in the files screen', () => {
  it('shows the image thumbnail in the icon view and in the list, and the plain icon for other files', async () => {
    const { context, page } = await e2e.newPage({ viewport: { width: 1366, height: 800 } });
    try {
      await signInAsAdmin(e2e, page);
      const listThumb = page.getByTestId('thumb-garden.png');
      await listThumb.waitFor();
      expect(await loadedWidth(listThumb)).toBe(64);
      expect(await page.getByTestId('thumb-readme.txt').count()).toBe(0);

      await page.getByTestId('view-icon').click();
      const card = page.getByTestId('card-garden.png');
      await card.waitFor();
      const cardThumb = card.getByTestId('thumb-garden.png');
      expect(await loadedWidth(cardThumb)).toBe(256);
      expect(await page.getByTestId('card-readme.txt').getByTestId('thumb-readme.txt').count()).toBe(0);
      await e2e.screenshot(page, 'files-icon-view-thumbnails');
    } finally {
      await context.close();
    }
  });
});
