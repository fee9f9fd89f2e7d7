/**
 * A real browser for animation tests: Debian's Chromium driven by playwright-core.
 *
 * `browserFrames(svg, timesMs, size)` renders the SVG inline in a page, `size` CSS pixels wide
 * (device scale 1, height from the viewBox's aspect ratio), and for each time seeks every
 * animation — SMIL with `svg.pauseAnimations(); svg.setCurrentTime(t / 1000)`, CSS with
 * `document.getAnimations().forEach(a => { a.pause(); a.currentTime = t })` — then screenshots
 * the SVG with a transparent background and returns its RGBA pixels (`size × height × 4` bytes,
 * not premultiplied), comparable with a resvg rendering of the same size.
 *
 * One browser is launched on first use and reused by every call in the process; it is closed by a
 * root `after` hook, and also after a few idle seconds so a test process never hangs on it.
 * When Chromium is absent, `SKIP_BROWSER` holds the reason (tests pass it to `skip`, like
 * SKIP_POSTGRES); CI installs it (`.ci/run`).
 */
import { existsSync } from 'node:fs';
import { after } from 'node:test';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.INKWELL_CHROMIUM ?? '/usr/bin/chromium';

export const SKIP_BROWSER: string | false = existsSync(CHROMIUM_PATH)
  ? false
  : `Chromium is not installed (${CHROMIUM_PATH}): browser tests skipped (apt-get install chromium, or set INKWELL_CHROMIUM)`;

const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Idle time after which the shared browser is closed (relaunched on the next call). */
const IDLE_CLOSE_MS = 5_000;

let browser: Promise<Browser> | null = null;
let active = 0;
let idleTimer: NodeJS.Timeout | null = null;

async function launch(): Promise<Browser> {
  if (SKIP_BROWSER) throw new Error(SKIP_BROWSER);
  const { chromium } = await import('playwright-core');
  // playwright-core gives every launch a fresh temporary user-data-dir and removes it on close.
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: LAUNCH_ARGS, headless: true });
}

function acquire(): Promise<Browser> {
  if (idleTimer) {
    clearTimeout(idleTimer);
    idleTimer = null;
  }
  active += 1;
  if (!browser) {
    browser = launch();
    browser.catch(() => {
      browser = null;
    });
  }
  return browser;
}

function release(): void {
  active -= 1;
  if (active === 0) {
    idleTimer = setTimeout(() => void closeBrowser(), IDLE_CLOSE_MS);
    idleTimer.unref();
  }
}

/** Closes the shared browser (idempotent). Called automatically; exported for explicit cleanup. */
export async function closeBrowser(): Promise<void> {
  if (idleTimer) {
    clearTimeout(idleTimer);
    idleTimer = null;
  }
  const current = browser;
  browser = null;
  if (current) await current.then((b) => b.close()).catch(() => {});
}

after(closeBrowser);

/** Inserts the SVG into the page, `width` px wide, and answers its height in px. */
const INSERT_SVG = `async ({ markup, width }) => {
  const parsed = new DOMParser().parseFromString(markup, 'image/svg+xml');
  const error = parsed.querySelector('parsererror');
  if (error) throw new Error('SVG does not parse: ' + error.textContent);
  const root = document.importNode(parsed.documentElement, true);
  const vb = (root.getAttribute('viewBox') || '').trim().split(/[\\s,]+/).map(Number);
  let aspect = 1;
  if (vb.length === 4 && vb[2] > 0 && vb[3] > 0) aspect = vb[3] / vb[2];
  else {
    const w = parseFloat(root.getAttribute('width') || '');
    const h = parseFloat(root.getAttribute('height') || '');
    if (w > 0 && h > 0) aspect = h / w;
  }
  const h = Math.max(1, Math.round(width * aspect));
  root.setAttribute('width', String(width));
  root.setAttribute('height', String(h));
  document.getElementById('host').appendChild(root);
  return h;
}`;

/** Seeks every SMIL and CSS animation of the page to `ms` and waits for two frames. */
const SEEK = `async (ms) => {
  const root = document.querySelector('#host > svg');
  root.pauseAnimations();
  root.setCurrentTime(ms / 1000);
  for (const a of document.getAnimations()) {
    a.pause();
    a.currentTime = ms;
  }
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null))));
}`;

/** Calls a page function given as JavaScript source with one argument. */
function inPage(page: Page, source: string, arg: unknown): Promise<unknown> {
  return page.evaluate(({ source, arg }) => (0, eval)(`(${source})`)(arg), { source, arg });
}

/** Renders `svg` at `size` px wide at each time in `timesMs`; one RGBA buffer per time. */
export async function browserFrames(svg: string, timesMs: number[], size: number): Promise<Uint8Array[]> {
  const b = await acquire();
  const context = await b.newContext({
    viewport: { width: size + 16, height: size + 16 },
    deviceScaleFactor: 1,
    reducedMotion: 'no-preference',
    javaScriptEnabled: true,
    offline: true,
  });
  try {
    const page = await context.newPage();
    await page.setContent('<!doctype html><html><head><style>html,body{margin:0;padding:0;background:transparent}#host{line-height:0}svg{display:block}</style></head><body><div id="host"></div></body></html>');
    // Page scripts are plain JavaScript (the project's TypeScript has no DOM types).
    const height = (await inPage(page, INSERT_SVG, { markup: svg, width: size })) as number;
    await page.setViewportSize({ width: size + 16, height: height + 16 });
    const frames: Uint8Array[] = [];
    for (const t of timesMs) {
      await inPage(page, SEEK, t);
      const png = await page.screenshot({
        clip: { x: 0, y: 0, width: size, height },
        omitBackground: true,
        animations: 'allow',
        type: 'png',
      });
      const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      if (info.width !== size || info.height !== height) {
        throw new Error(`screenshot is ${info.width}×${info.height}, expected ${size}×${height}`);
      }
      frames.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    }
    return frames;
  } finally {
    await context.close().catch(() => {});
    release();
  }
}

/** Loads each markup as an <img> (a blob: URL, as a page shows a draft) and resolves whether it rendered. */
const LOAD_IMAGES = `async (markups) => Promise.all(markups.map((markup) => new Promise((resolve) => {
  const url = URL.createObjectURL(new Blob([markup], { type: 'image/svg+xml' }));
  const img = new Image();
  img.onload = () => { URL.revokeObjectURL(url); resolve(img.naturalWidth > 0 && img.naturalHeight > 0); };
  img.onerror = () => { URL.revokeObjectURL(url); resolve(false); };
  img.src = url;
})))`;

/** Whether each SVG document renders in an <img> exactly as given, with no fix-up. */
export async function browserImagesLoad(markups: string[]): Promise<boolean[]> {
  const b = await acquire();
  const context = await b.newContext({ javaScriptEnabled: true, offline: true });
  try {
    const page = await context.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    return (await inPage(page, LOAD_IMAGES, markups)) as boolean[];
  } finally {
    await context.close().catch(() => {});
    release();
  }
}

/** Mean absolute difference per channel (0–255) between two RGBA buffers of the same size. */
export function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new Error(`buffers differ in size: ${a.length} vs ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

/** Share of pixels (0–1) whose largest channel difference exceeds `threshold` (0–255). */
export function differingPixels(a: Uint8Array, b: Uint8Array, threshold = 48): number {
  if (a.length !== b.length) throw new Error(`buffers differ in size: ${a.length} vs ${b.length}`);
  let n = 0;
  for (let i = 0; i < a.length; i += 4) {
    const d = Math.max(
      Math.abs(a[i]! - b[i]!),
      Math.abs(a[i + 1]! - b[i + 1]!),
      Math.abs(a[i + 2]! - b[i + 2]!),
      Math.abs(a[i + 3]! - b[i + 3]!),
    );
    if (d > threshold) n++;
  }
  return n / (a.length / 4);
}

/**
 * Share of pixels (0–1) that differ by more than `threshold` (0–255, any channel, colours
 * composited on white) from every pixel within `radius` of the same place in the other image,
 * both ways: edges antialiased a pixel apart do not count, a shape drawn elsewhere does.
 */
export function tolerantDiff(a: Uint8Array, b: Uint8Array, width: number, threshold = 48, radius = 1): number {
  if (a.length !== b.length) throw new Error(`buffers differ in size: ${a.length} vs ${b.length}`);
  const height = a.length / 4 / width;
  const onWhite = (p: Uint8Array) => {
    const out = new Float32Array((p.length / 4) * 3);
    for (let i = 0, j = 0; i < p.length; i += 4, j += 3) {
      const al = p[i + 3]! / 255;
      out[j] = p[i]! * al + 255 * (1 - al);
      out[j + 1] = p[i + 1]! * al + 255 * (1 - al);
      out[j + 2] = p[i + 2]! * al + 255 * (1 - al);
    }
    return out;
  };
  const A = onWhite(a);
  const B = onWhite(b);
  const unmatched = (x: Float32Array, y: Float32Array, px: number, py: number) => {
    const i = (py * width + px) * 3;
    for (let dy = -radius; dy <= radius; dy++) {
      for (let dx = -radius; dx <= radius; dx++) {
        const qx = px + dx;
        const qy = py + dy;
        if (qx < 0 || qy < 0 || qx >= width || qy >= height) continue;
        const j = (qy * width + qx) * 3;
        if (Math.abs(x[i]! - y[j]!) <= threshold && Math.abs(x[i + 1]! - y[j + 1]!) <= threshold && Math.abs(x[i + 2]! - y[j + 2]!) <= threshold) return false;
      }
    }
    return true;
  };
  let n = 0;
  for (let py = 0; py < height; py++) for (let px = 0; px < width; px++) if (unmatched(A, B, px, py) || unmatched(B, A, px, py)) n++;
  return n / (width * height);
}
