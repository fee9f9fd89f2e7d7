/**
 * Launches headless Chromium (Debian's by default, INKWELL_CHROMIUM for another) with
 * playwright-core. No test-runner hooks here, so scripts can use it too; tests reach it through
 * page-watch.ts, which takes the path and the skip reason from test/helpers/browser.ts.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

export const DEFAULT_CHROMIUM = process.env.INKWELL_CHROMIUM ?? '/usr/bin/chromium';

const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(executablePath = DEFAULT_CHROMIUM): Promise<Browser> {
  if (!existsSync(executablePath)) throw new Error(`Chromium is not installed at ${executablePath} (apt-get install chromium, or set INKWELL_CHROMIUM)`);
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, args: LAUNCH_ARGS, headless: true });
}
