// The frame evaluator against a real browser: each hand-written animation (CSS and SMIL) is seeked
// in Chromium (SMIL with setCurrentTime, CSS through document.getAnimations()) and compared with
// the static frame the evaluator writes for the same time, rendered by resvg. Antialiasing differs
// between the two renderers (and Chrome scales composited layers), so a frame matches when at
// most 0.5 % of its pixels differ by more than 48 levels from every pixel within one pixel of the
// same place in the other image.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FrameEvaluator } from '../../../src/svg/animation/frames.ts';
import { renderRgba } from '../../../src/svg/render.ts';
import { finishSvg } from '../../../src/svg/pipeline.ts';
import { animationTiming } from '../../../src/svg/animation/timing.ts';
import { artworkMarkup, decorateSource } from '../../../src/engines/sandbox/artwork.ts';
import { CASES, svg as svgOf } from './cases.ts';
import { browserFrames, SKIP_BROWSER, tolerantDiff } from '../../helpers/browser.ts';

const SIZE = 96;
function renderFrame(markup: string): Uint8Array {
  const { pixels, width } = renderRgba(markup, SIZE);
  assert.equal(width, SIZE);
  return pixels;
}

/** Frames a real browser shows for a document; the evaluator's, rendered by resvg, must match. */
async function assertMatchesBrowser(name: string, markup: string, times: number[]): Promise<void> {
  const evaluator = new FrameEvaluator(markup);
  const browser = await browserFrames(markup, times, SIZE);
  assert.ok(
    browser.some((frame) => tolerantDiff(frame, browser[0]!, SIZE) > 0.005),
    `${name}: the browser shows it moving`,
  );
  times.forEach((t, i) => {
    const ours = renderFrame(evaluator.frameAt(t));
    const share = tolerantDiff(ours, browser[i]!, SIZE);
    assert.ok(share <= 0.005, `${name} at ${t} ms: ${(share * 100).toFixed(2)} % of pixels differ`);
  });
}

describe('frames at time t match a real browser', { skip: SKIP_BROWSER }, () => {
  for (const [name, { svg: markup, times }] of Object.entries(CASES)) {
    it(name, () => assertMatchesBrowser(name, markup, times));
  }
});

describe('the measured loop period is a period in a real browser', { skip: SKIP_BROWSER }, () => {
  for (const [name, { svg: markup }] of Object.entries(CASES)) {
    const { loopPeriodMs, openingAnimationMs } = animationTiming(markup);
    if (loopPeriodMs === null) continue;
    it(name, async () => {
      // Past the opening, time t and t + one loop look the same; half a loop later they do not all.
      const t = (openingAnimationMs ?? 0) + 137;
      const [a, b] = await browserFrames(markup, [t, t + loopPeriodMs], SIZE);
      assert.ok(tolerantDiff(a!, b!, SIZE) <= 0.002, `${name}: frames ${loopPeriodMs} ms apart differ`);
    });
  }
});

describe('the sandbox animation moves in a real browser as computed', { skip: SKIP_BROWSER }, () => {
  it('a decorated source', async () => {
    const art = decorateSource(svgOf('<rect x="10" y="10" width="80" height="80" fill="#2a9d8f"/><circle cx="50" cy="50" r="20" fill="#e9c46a"/>'), null, { periodMs: 2000 });
    // The static SANDBOX label is text, which resvg draws without fonts here: left out of the comparison.
    const markup = finishSvg(artworkMarkup(art)).replace(/<text[^>]*>SANDBOX<\/text>/, '');
    await assertMatchesBrowser('sandbox', markup, [0, 300, 600, 1100, 1600, 2100]);
  });
});
