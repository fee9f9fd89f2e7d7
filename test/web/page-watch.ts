/**
 * Headless Chromium (Debian's, through playwright-core, like test/helpers/browser.ts) for the
 * browser pages, with a watch on what a page does: every request that leaves the server's origin
 * (aborted, and recorded), console errors, and Content-Security-Policy violations.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM_PATH, SKIP_BROWSER } from '../helpers/browser.ts';
import { launchChromium } from './chromium.ts';

export { SKIP_BROWSER };

/** One browser per test file, closed by the file's `after`. */
export function launchBrowser(): Promise<Browser> {
  return launchChromium(CHROMIUM_PATH);
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Requests (any scheme but data:) whose host is not the server's, 127.0.0.1. */
  foreignRequests: string[];
  consoleErrors: string[];
  /** CSP violations reported in the page so far ("directive blocked-uri"). */
  cspViolations(): Promise<string[]>;
  close(): Promise<void>;
}

/** The host a request goes to: a blob: URL names the origin that made it. */
function hostOf(url: string): string | null {
  if (url.startsWith('data:')) return null;
  try {
    const parsed = new URL(url.startsWith('blob:') ? url.slice('blob:'.length) : url);
    return parsed.hostname;
  } catch {
    return url;
  }
}

export async function openPage(browser: Browser, viewport = { width: 1360, height: 900 }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, reducedMotion: 'reduce' });
  const foreignRequests: string[] = [];
  const consoleErrors: string[] = [];
  // Nothing may reach the network: a request for another host is recorded and never sent.
  await context.route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => {
      foreignRequests.push(route.request().url());
      return route.abort();
    },
  );
  // Page scripts are plain JavaScript strings: the project's TypeScript has no DOM types.
  await context.addInitScript(`
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (event) =>
      window.cspViolations.push(event.violatedDirective + ' ' + event.blockedURI));
  `);
  const page = await context.newPage();
  page.on('request', (request) => {
    const host = hostOf(request.url());
    if (host !== null && host !== '127.0.0.1' && !foreignRequests.includes(request.url())) foreignRequests.push(request.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
  return {
    page,
    context,
    foreignRequests,
    consoleErrors,
    cspViolations: () => page.evaluate<string[]>('[...window.cspViolations]'),
    close: () => context.close(),
  };
}
