import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { animate } from '../../../src/engines/motion/animator.ts';
import { fmt, readSheet, writeSheet } from '../../../src/engines/motion/css.ts';
import { frameAt } from '../../../src/engines/motion/frame.ts';
import { outlineLength, parsePathData } from '../../../src/engines/motion/geometry.ts';
import { EASE, LINEAR, cubic, ease, hostValuesAt, progressAt, type Track } from '../../../src/engines/motion/timeline.ts';
import { finishSvg } from '../../../src/svg/pipeline.ts';
import { LINE_ART } from './drawings.ts';

const track = (over: Partial<Track>): Track => ({
  keyframes: [
    { offset: 0, values: { opacity: 0 }, easing: LINEAR },
    { offset: 1, values: { opacity: 1 }, easing: LINEAR },
  ],
  durationMs: 1000,
  delayMs: 0,
  iterations: 1,
  fill: 'none',
  ...over,
});

describe('the timeline evaluator', () => {
  it('solves cubic-bezier timing functions', () => {
    assert.equal(ease(LINEAR, 0.3), 0.3);
    assert.ok(Math.abs(ease(EASE.inOut, 0.5) - 0.5) < 1e-6);
    assert.equal(ease(EASE.out, 0), 0);
    assert.equal(ease(EASE.out, 1), 1);
    // cubic-bezier(0.42, 0, 1, 1) at x = 0.5: y = 0.3153 (a reference value).
    assert.ok(Math.abs(ease(cubic(0.42, 0, 1, 1), 0.5) - 0.3153) < 1e-3);
    // Monotone and within [0, 1] for the curves the motions use.
    for (const easing of Object.values(EASE)) {
      let last = 0;
      for (let x = 0; x <= 1; x += 0.01) {
        const y = ease(easing, x);
        assert.ok(y >= last - 1e-9 && y <= 1 + 1e-9);
        last = y;
      }
    }
  });

  it('follows CSS fill modes, delays and iterations', () => {
    assert.equal(progressAt(track({ delayMs: 100 }), 50), undefined);
    assert.equal(progressAt(track({ delayMs: 100, fill: 'backwards' }), 50), 0);
    assert.equal(progressAt(track({ delayMs: 100 }), 600), 0.5);
    assert.equal(progressAt(track({}), 1000), undefined);
    assert.equal(progressAt(track({ fill: 'forwards' }), 5000), 1);
    assert.equal(progressAt(track({ iterations: 'infinite' }), 2250), 0.25);
    assert.equal(progressAt(track({ iterations: 2.5, fill: 'both' }), 9000), 0.5);
  });

  it('lets the later animation of an element win where two set the same property', () => {
    const first = track({ iterations: 'infinite' });
    const second = track({ delayMs: 500, keyframes: [{ offset: 0, values: { opacity: 0.2 }, easing: LINEAR }, { offset: 1, values: { opacity: 0.2 }, easing: LINEAR }] });
    assert.equal(hostValuesAt([first, second], 250).values.opacity, 0.25);
    assert.equal(hostValuesAt([first, second], 750).values.opacity, 0.2);
    assert.equal(hostValuesAt([first, second], 1750).values.opacity, 0.75);
  });
});

describe('the style sheet', () => {
  it('reads back exactly what it writes (numbers to four decimals)', () => {
    const tracks: Track[] = [
      {
        keyframes: [
          { offset: 0, values: { opacity: 0, transform: { tx: 1.23456, ty: -2, rotate: 0, sx: 0.3, sy: 0.3 } }, easing: EASE.outBack },
          { offset: 0.6, values: { opacity: 1, transform: { tx: 0, ty: 0, rotate: 12.5, sx: 1.1, sy: 1.1 } }, easing: EASE.inOut },
          { offset: 1, values: { opacity: 1, transform: { tx: 0, ty: 0, rotate: 0, sx: 1, sy: 1 } }, easing: LINEAR },
        ],
        pivot: { x: 50.5, y: -7 },
        durationMs: 650,
        delayMs: 120,
        iterations: 1,
        fill: 'backwards',
      },
      {
        keyframes: [
          { offset: 0, values: { fill: { r: 255, g: 0, b: 0 }, 'stroke-dasharray': [1, 1.01], 'stroke-dashoffset': 1.005 }, easing: LINEAR },
          { offset: 1 / 3, values: { fill: { r: 0, g: 128, b: 255 }, 'stroke-dasharray': [1, 1.01], 'stroke-dashoffset': 0 }, easing: LINEAR },
          { offset: 1, values: { fill: { r: 255, g: 0, b: 0 }, 'stroke-dasharray': [1, 1.01], 'stroke-dashoffset': 0 }, easing: LINEAR },
        ],
        durationMs: 3000,
        delayMs: 0,
        iterations: 'infinite',
        fill: 'none',
      },
    ];
    const css = writeSheet('p', [{ className: 'p1', tracks: tracks.map((t, i) => ({ name: `pk${i}`, track: t })) }]);
    assert.ok(!css.includes('<') && !/url\(|\\/.test(css));
    const read = readSheet(css).get('p1')!;
    assert.equal(read.length, 2);
    assert.deepEqual(read[0]!.pivot, { x: 50.5, y: -7 });
    assert.equal(read[0]!.keyframes[0]!.values.transform!.tx, Number(fmt(50.5 + 1.23456)) - 50.5);
    assert.deepEqual(read[0]!.keyframes[1]!.easing, EASE.inOut);
    assert.equal(read[1]!.iterations, 'infinite');
    assert.deepEqual(read[1]!.keyframes[1]!.values.fill, { r: 0, g: 128, b: 255 });
    assert.equal(read[1]!.keyframes[1]!.offset, Number(fmt(100 / 3)) / 100);
  });
});

describe('frames', () => {
  const svg = animate(finishSvg(LINE_ART), 'draw').svg;

  it('write the state at t in: dashes in user units (the outline’s own length), no pathLength, no sheet', () => {
    const frame = frameAt(svg, 0);
    assert.doesNotMatch(frame, /<style|pathLength|iwmk/);
    const roof = /<path d="M20 50 L50 22 L80 50" class="iwm iwm1" style="([^"]*)"\/>/.exec(frame);
    assert.ok(roof, frame);
    const length = outlineLength(parsePathData('M20 50 L50 22 L80 50'));
    assert.equal(roof[1], `stroke-dasharray:${fmt(length)} ${fmt(1.01 * length)};stroke-dashoffset:${fmt(1.005 * length)}`);
  });

  it('leave the document as it was once everything has ended', () => {
    const end = frameAt(svg, 60_000);
    assert.equal(end.replace(/ class="iwm iwm\d+"/g, ''), finishSvg(LINE_ART).replace(/\n/g, '\n'));
  });

  it('leave a document without the animator’s sheet alone', () => {
    const plain = finishSvg(LINE_ART);
    assert.equal(frameAt(plain, 500), plain);
  });
});
