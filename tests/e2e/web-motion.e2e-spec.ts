// Motion follows the reader's system setting (WCAG 2.3.3), in a real browser: with no preference antd animates its
// dialogs; a browser that asks for reduced motion gets the same delete confirmation at once, with no animation. The
// confirmation is drawn by the app's antd root (shared/notify.ts confirmDialog), so it follows the setting: antd's
// static Modal.confirm, used before, rendered outside the app and always animated. Every other browser spec runs with
// reduced motion (harness.ts newPage); this one also covers the animated default.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { mkdir, signInAdmin } from '../helpers/org.ts';
import { dialogsSettled, explainFailure, signInAsAdmin, startE2E, type E2E } from './harness.ts';

let e2e: E2E;

beforeAll(async () => {
  e2e = await startE2E();
  const admin = await signInAdmin(e2e.server);
  for (const motion of ['no-preference', 'reduce']) await mkdir(admin, `motion-${motion}`);
}, 120_000);
afterAll(async () => {
  await e2e?.close();
});

/**
 * Records, from now on, every class of an animation in progress that antd's dialogs put on an element (zoom for the
 * box, fade for the mask). The prepare step is left out: antd runs it without motion too, for one frame, to measure
 * where the dialog grows from; the start and active steps are the animation itself.
 */
const recordAnimations = (page: Page) =>
  page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { animationsSeen: string[] }).animationsSeen = seen;
    const note = (el: Element) => {
      for (const c of el.classList) if (/^ant-(zoom|fade)-(appear|enter)-(start|active)$/.test(c)) seen.push(c);
    };
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes') note(r.target as Element);
        for (const n of r.addedNodes) if (n instanceof Element) [n, ...n.querySelectorAll('*')].forEach(note);
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
  });
const animationsSeen = (page: Page) => page.evaluate(() => [...new Set((window as unknown as { animationsSeen: string[] }).animationsSeen)]);

describe.each(['no-preference', 'reduce'] as const)('the delete confirmation with reduced motion: %s', (motion) => {
  const folder = `motion-${motion}`;

  it(motion === 'reduce' ? 'appears at once, with no animation, and deletes' : 'zooms in, and deletes', async () => {
    const opened = await e2e.newPage({ reducedMotion: motion });
    const page = opened.page;
    try {
      await signInAsAdmin(e2e, page);
      await page.getByTestId(`row-name-${folder}`).waitFor();
      await recordAnimations(page);
      await page.getByTestId(`row-delete-${folder}`).click();
      // OK once the dialog stands still, as a reader clicks it: pressed while the box still zooms, the press and the
      // release land on different points of a moving button and make no click (seen on a loaded machine: the
      // folder never deleted).
      await page.getByTestId('delete-confirm-ok').waitFor();
      await dialogsSettled(page);
      await page.getByTestId('delete-confirm-ok').click();
      await page.getByTestId(`row-name-${folder}`).waitFor({ state: 'detached' });
      const seen = await animationsSeen(page);
      if (motion === 'reduce') expect(seen).toEqual([]);
      else expect(seen).toEqual(expect.arrayContaining([expect.stringMatching(/^ant-zoom-(appear|enter)-(start|active)$/)]));
    } catch (err) {
      // Here, not in onTestFailed: that runs after this test has closed its page.
      await explainFailure(e2e, page, `web-motion-${motion}`);
      throw err;
    } finally {
      await opened.context.close();
    }
  });
});
