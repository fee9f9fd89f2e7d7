// The checks behind svg_score, and the score's formula.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { measureAnimation } from '../../../src/svg/animation/measure.ts';
import { flashesIn, sampleTimes, sizeScore, svgScore, type AnimationChecks } from '../../../src/svg/animation/score.ts';
import { svg } from './cases.ts';

const GOOD: AnimationChecks = { renders: true, moves: true, inViewBox: 1, flashesPerSecond: 0, flashFree: true, bytes: 2000 };

describe('svg_score formula', () => {
  it('0 when it does not render or does not move; 0.5 + 0.2 × in viewBox + 0.2 × no flashing + 0.1 × size otherwise', () => {
    assert.equal(svgScore(GOOD), 1);
    assert.equal(svgScore({ ...GOOD, moves: false }), 0);
    assert.equal(svgScore({ ...GOOD, renders: false }), 0);
    assert.equal(svgScore({ ...GOOD, inViewBox: 0.5 }), 0.9);
    assert.equal(svgScore({ ...GOOD, flashFree: false, flashesPerSecond: 5 }), 0.8);
    assert.equal(svgScore({ ...GOOD, inViewBox: 0, flashFree: false, bytes: 10_000_000 }), 0.5);
  });

  it('size: full up to 16 KiB, nothing from 512 KiB, logarithmic between', () => {
    assert.equal(sizeScore(100), 1);
    assert.equal(sizeScore(16 * 1024), 1);
    assert.equal(sizeScore(32 * 1024), 0.8);
    assert.equal(sizeScore(128 * 1024), 1 - 3 / 5);
    assert.equal(sizeScore(512 * 1024), 0);
  });
});

describe('flashes (WCAG 2.3.1)', () => {
  const series = (hz: number, seconds: number, levels: [number, number], fps = 30) =>
    Array.from({ length: seconds * fps + 1 }, (_, i) => {
      const t = (i * 1000) / fps;
      return { t, l: Math.floor((t / 1000) * hz * 2) % 2 === 0 ? levels[0] : levels[1] };
    });

  it('counts pairs of opposing swings of at least 0.1 in the worst second', () => {
    assert.equal(flashesIn(series(5, 2, [0.05, 0.9])), 5);
    assert.equal(flashesIn(series(2, 2, [0.05, 0.9])), 2);
    assert.equal(flashesIn(series(3, 2, [0.05, 0.9])), 3);
  });

  it('ignores small swings and swings between bright levels', () => {
    assert.equal(flashesIn(series(6, 2, [0.5, 0.55])), 0);
    assert.equal(flashesIn(series(6, 2, [0.82, 1])), 0);
  });

  it('a slow, smooth fade is at most one flash a second', () => {
    const fade = Array.from({ length: 121 }, (_, i) => ({ t: (i * 1000) / 30, l: 0.5 + 0.4 * Math.sin((i / 60) * Math.PI * 2) }));
    assert.ok(flashesIn(fade) <= 1);
  });
});

describe('sampling', () => {
  it('covers the opening and one loop, at most 24 frames a second and 40 in all, with a dense burst when sparse', () => {
    const short = sampleTimes({ loopPeriodMs: 1000, openingAnimationMs: null });
    assert.equal(short.uniform[0], 0);
    assert.equal(short.uniform.at(-1), 1000);
    assert.ok(short.uniform.length <= 40);
    assert.deepEqual(short.burst, [], 'a one-second loop sampled at 24 a second needs no burst');
    assert.equal(sampleTimes({ loopPeriodMs: 200, openingAnimationMs: null }).burst.length, 31, 'a loop shorter than a second gets a full second');
    const long = sampleTimes({ loopPeriodMs: 8000, openingAnimationMs: 2000 });
    assert.equal(long.uniform.length, 40);
    assert.equal(long.uniform.at(-1), 10_000);
    assert.equal(long.burst.length, 31);
    assert.equal(long.burst[0], 2000, 'the burst starts with the loop');
    assert.equal(sampleTimes({ loopPeriodMs: 60_000, openingAnimationMs: null }).uniform.at(-1), 10_000, 'ten seconds of a long loop');
  });
});

describe('the checks on rendered frames', () => {
  const measure = (markup: string) => measureAnimation(markup, { render: true });

  it('a static document is not animated and is not rendered', () => {
    const report = measure(svg('<rect width="50" height="50"/>'));
    assert.equal(report.animated, false);
    assert.equal(report.checks, undefined);
  });

  it('without rendering, only the timing', () => {
    const report = measureAnimation(svg('<rect width="50" height="50"><animate attributeName="x" to="40" dur="1s" repeatCount="indefinite"/></rect>'), { render: false });
    assert.deepEqual(report, { loopPeriodMs: 1000, openingAnimationMs: null, animated: true });
  });

  it('a gentle motion inside the viewBox scores full marks', () => {
    const report = measure(svg('<style>@keyframes f{50%{transform:translateY(-8px)}} circle{animation:f 2s ease-in-out infinite}</style><circle cx="50" cy="55" r="25" fill="#457b9d"/>'));
    assert.equal(report.checks?.moves, true);
    assert.equal(report.checks?.inViewBox, 1);
    assert.equal(report.checks?.flashFree, true);
    assert.equal(report.score, 1);
  });

  it('animations that change nothing visible do not move (score 0)', () => {
    const report = measure(svg('<style>@keyframes s{from{opacity:1}to{opacity:1}} rect{animation:s 1s infinite}</style><rect width="50" height="50"/><circle r="5" fill="red" opacity="0"><animate attributeName="r" values="5;20;5" dur="1s" repeatCount="indefinite"/></circle>'));
    assert.equal(report.animated, true);
    assert.equal(report.checks?.moves, false);
    assert.equal(report.score, 0);
  });

  it('a part that leaves the viewBox is found; a background bleeding past it all the time is not', () => {
    const leaves = measure(svg('<rect x="40" y="40" width="20" height="20" fill="#e63946"><animate attributeName="x" values="40;120;40" dur="2s" repeatCount="indefinite"/></rect>'));
    assert.ok(leaves.checks!.inViewBox < 0.8, `inViewBox ${leaves.checks!.inViewBox}`);
    assert.ok(leaves.score! < 0.95);
    const bleed = measure(svg('<rect x="-20" y="-20" width="140" height="140" fill="#a8dadc"/><circle cx="50" cy="50" r="10"><animate attributeName="r" values="10;20;10" dur="1s" repeatCount="indefinite"/></circle>'));
    assert.equal(bleed.checks!.inViewBox, 1);
  });

  it('a black and white blink five times a second fails the flash check; once a second passes', () => {
    const blink = (dur: string) => svg(`<rect width="100" height="100" fill="#000"><animate attributeName="fill" values="#000;#fff" calcMode="discrete" dur="${dur}" repeatCount="indefinite"/></rect>`);
    const fast = measure(blink('200ms'));
    assert.equal(fast.checks?.flashFree, false);
    assert.ok(fast.checks!.flashesPerSecond > 3);
    assert.equal(fast.score, 0.8);
    const slow = measure(blink('1s'));
    assert.equal(slow.checks?.flashFree, true);
  });

  it('a long loop is checked for flashes in a dense one-second burst', () => {
    const markup = svg('<rect width="100" height="100" fill="#000"><animate attributeName="fill" values="#000;#fff;#000;#fff;#000;#fff;#000;#fff;#000;#fff" calcMode="discrete" keyTimes="0;0.01;0.02;0.03;0.04;0.05;0.06;0.07;0.08;0.09" dur="10s" repeatCount="indefinite"/></rect>');
    assert.equal(measure(markup).checks?.flashFree, false);
  });
});
