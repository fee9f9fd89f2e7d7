// Screenshots of the playground for the README: a sandbox generation streaming its drafts, and the
// same page once the final SVGs are in. Starts the service on 127.0.0.1 with a temporary database
// and a test key, drives Debian's Chromium (INKWELL_CHROMIUM for another) with playwright-core,
// and writes docs/playground-stream.png and docs/playground.png.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHarness } from '../test/helpers/harness.ts';
import { launchChromium } from '../test/web/chromium.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STREAM_SHOT = join(ROOT, 'docs', 'playground-stream.png');
const FINAL_SHOT = join(ROOT, 'docs', 'playground.png');
const VIEWPORT = { width: 1280, height: 860 };

// Slow enough that the drafts can be caught half-drawn.
const harness = await startHarness({ config: { sandbox: { slow_stream_delay_ms: 350 } } });
const browser = await launchChromium();
try {
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(`${harness.url}/`);
  await page.fill('#key-input', harness.keys.test);
  await page.click('#key-form button[type="submit"]');
  await page.locator('#model option[value="local-svg"]').waitFor({ state: 'attached' });

  // The sandbox's slow-stream directive goes in a header, so the prompt on screen stays clean.
  await page.route('**/v1/svgs/generations', (route) =>
    route.continue({ headers: { ...route.request().headers(), 'inkwell-mock': 'slow-stream' } }),
  );
  await page.fill('textarea[name="generate.prompt"]', 'A lighthouse at dusk, flat illustration');
  await page.fill('textarea[name="generate.instructions"]', 'Three colours at most, thick outlines.');
  await page.fill('input[name="generate.n"]', '3');
  await page.locator('input[name="stream"]').setChecked(true);
  await page.click('#run-button');

  // Mid-stream: every output has a draft on screen, none is final yet.
  await page.locator('.output[data-state="draft"] img.output-image.shown').nth(2).waitFor();
  await page.waitForTimeout(800);
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: STREAM_SHOT });

  await page.locator('.output[data-state="final"] img.output-image.shown').nth(2).waitFor({ timeout: 60_000 });
  await page.locator('#summary-status[data-kind="succeeded"]').waitFor({ timeout: 30_000 });
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: FINAL_SHOT });
  console.log(`wrote ${STREAM_SHOT}\nwrote ${FINAL_SHOT}`);
} finally {
  await browser.close();
  await harness.close();
}
