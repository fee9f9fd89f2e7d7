// The exact frames cross-checked in a real browser: each animation is loaded in Chromium, seeked
// to several times (CSS animations through document.getAnimations()), screenshotted, and compared
// with the resvg rendering of the frame the animator computes for that time.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { animate } from '../../../src/engines/motion/animator.ts';
import { frameAt } from '../../../src/engines/motion/frame.ts';
import { finishSvg } from '../../../src/svg/pipeline.ts';
import { CHROMIUM_PATH, SKIP_BROWSER, browserFrames, meanAbsDiff, tolerantDiff } from '../../helpers/browser.ts';
import { render } from './check.ts';
import { CART, GEAR, HEART, MOTION_CASES, SHAPES } from './drawings.ts';

const SIZE = 160;

/** Share of pixels that differ beyond antialiasing (see tolerantDiff), and the mean difference per channel. */
function compare(browser: Uint8Array, svg: string): { differing: number; mean: number } {
  const ours = render(svg, SIZE).data;
  return { differing: tolerantDiff(ours, browser, SIZE), mean: meanAbsDiff(ours, browser) };
}

const CASES = [
  ...MOTION_CASES,
  { motion: 'draw, then pulse', drawing: HEART, prompt: 'draw the outline, then pulse the heart' },
  { motion: 'slide, then spin (a cart)', drawing: CART, prompt: 'slide in from the left, then spin the wheels' },
  { motion: 'automatic (gear)', drawing: GEAR, prompt: '' },
  { motion: 'slow counterclockwise spin, colour shift and bounce', drawing: SHAPES, prompt: 'spin slowly counterclockwise, shift the colours and bounce' },
];

describe('frames in a real browser', { skip: SKIP_BROWSER, timeout: 300_000 }, () => {
  for (const { motion, drawing, prompt } of CASES) {
    it(`${motion}: Chromium at t matches the computed frame at t`, async () => {
      const source = finishSvg(drawing);
      const animation = animate(source, prompt || undefined);
      const svg = finishSvg(animation.svg);
      const end = (animation.openingAnimationMs ?? 0) + (animation.loopPeriodMs ?? 0);
      // Inside the opening and the first cycle, off the keyframe boundaries.
      const times = Array.from({ length: 7 }, (_, i) => Math.round((end * (i + 0.5)) / 7));
      const [static_] = await browserFrames(source, [0], SIZE);
      const baseline = compare(static_!, source);
      const frames = await browserFrames(svg, times, SIZE);
      let worst = { differing: 0, mean: 0 };
      times.forEach((t, i) => {
        const d = compare(frames[i]!, frameAt(svg, t));
        worst = { differing: Math.max(worst.differing, d.differing), mean: Math.max(worst.mean, d.mean) };
        assert.ok(d.differing <= baseline.differing + 0.01, `${motion} at ${t} ms: ${(d.differing * 100).toFixed(2)} % of pixels differ (static drawing: ${(baseline.differing * 100).toFixed(2)} %)`);
        assert.ok(d.mean <= baseline.mean + 4, `${motion} at ${t} ms: mean difference ${d.mean.toFixed(2)} (static drawing: ${baseline.mean.toFixed(2)})`);
      });
      // Recorded for the README (node --test prints diagnostics).
      console.log(`# ${motion}: at most ${(worst.differing * 100).toFixed(2)} % of pixels differ, mean ${worst.mean.toFixed(2)}/255 per channel (static drawing alone: ${(baseline.differing * 100).toFixed(2)} %, ${baseline.mean.toFixed(2)})`);
    });
  }

  it('with prefers-reduced-motion: reduce nothing animates, and the drawing is the source', async () => {
    const { chromium } = await import('playwright-core');
    const profile = mkdtempSync(join(tmpdir(), 'inkwell-motion-browser-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      reducedMotion: 'reduce',
      viewport: { width: SIZE, height: SIZE },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = await context.newPage();
      for (const { drawing, prompt } of MOTION_CASES) {
        const svg = animate(finishSvg(drawing), prompt).svg;
        await page.setContent(`<!doctype html><body style="margin:0">${svg}</body>`);
        const state = (await page.evaluate(
          `(() => ({ running: document.getAnimations().length, hosts: [...document.querySelectorAll('.iwm')].map((el) => getComputedStyle(el).animationName) }))()`,
        )) as { running: number; hosts: string[] };
        assert.equal(state.running, 0, prompt);
        assert.ok(state.hosts.length > 0 && state.hosts.every((name) => name === 'none'), prompt);
      }
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
