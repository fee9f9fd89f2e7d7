import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { animate } from '../../../src/engines/motion/animator.ts';
import { readSheet } from '../../../src/engines/motion/css.ts';
import { frameAt } from '../../../src/engines/motion/frame.ts';
import { MOTIONS, MOTION_NAMES } from '../../../src/engines/motion/motions/index.ts';
import { SHEET_MARK } from '../../../src/engines/motion/output.ts';
import { animationTiming } from '../../../src/svg/animation/timing.ts';
import { parseSvg } from '../../../src/svg/parse.ts';
import { finishSvg } from '../../../src/svg/pipeline.ts';
import { walk } from '../../../src/svg/tree.ts';
import { blockLuminance, framePixels, maxDiff, maxFlashesPerSecond, paintOutside, render, restTimes, timesOver } from './check.ts';
import { CART, HEART, MOTION_CASES, WHEEL } from './drawings.ts';

const WIDTH = 120;

function sheetOf(svg: string): { prefix: string; css: string } {
  const root = parseSvg(svg);
  const style = [...walk(root)].find((el) => el.name === 'style' && el.attributes.has(SHEET_MARK))!;
  assert.ok(style, 'the animated SVG has the animator’s style sheet');
  return { prefix: style.attributes.get(SHEET_MARK)!, css: style.children.map((c) => ('text' in c ? c.text : '')).join('') };
}

describe('every motion', () => {
  it('has a demo here, words, a summary, and a safe minimum period when it loops', () => {
    assert.deepEqual(MOTION_CASES.map((c) => c.motion).sort(), [...MOTION_NAMES].sort());
    for (const name of MOTION_NAMES) {
      const module = MOTIONS[name];
      assert.equal(module.name, name);
      assert.ok(module.words.length >= 3, `${name} has synonyms`);
      assert.ok(module.summary.length > 20);
    }
  });

  for (const { motion, drawing, prompt } of MOTION_CASES) {
    describe(`${motion} ("${prompt}")`, () => {
      const source = finishSvg(drawing);
      const animation = animate(source, prompt);
      const svg = animation.svg;
      const base = render(source, WIDTH);

      it('is the motion placed, at a movement that fits', () => {
        const placed = animation.motions.find((m) => m.motion === motion);
        assert.ok(placed, `${motion} placed: ${JSON.stringify(animation.motions)}`);
        assert.equal(placed.insteadOf, undefined);
        assert.ok(placed.amplitude > 0);
        assert.equal(animation.chosenBy, 'prompt');
      });

      it('looks like the source at rest: after the opening and at the start of every loop cycle', () => {
        for (const t of restTimes(animation)) assert.equal(maxDiff(base, framePixels(svg, t, WIDTH)), 0, `frame at ${t} ms`);
        // Renderers that do not animate (resvg) show the source too.
        assert.equal(maxDiff(base, render(svg, WIDTH)), 0);
      });

      it('really moves', () => {
        const changed = timesOver(animation, 50, 1).some((t) => maxDiff(base, framePixels(svg, t, WIDTH)) > 60);
        assert.ok(changed, 'some frame differs from the source');
      });

      it('stays inside the viewBox at every moment', () => {
        const atRest = paintOutside(source);
        for (const t of timesOver(animation, 40)) assert.equal(paintOutside(frameAt(svg, t)), atRest, `paint outside the viewBox at ${t} ms`);
      });

      it('flashes no more than three times a second (WCAG 2.3.1), anywhere', () => {
        const frames = timesOver(animation, 1000 / 30).map((t) => blockLuminance(framePixels(svg, t, 96), 8));
        assert.ok(maxFlashesPerSecond(frames, 30) <= 3);
      });

      it('honours prefers-reduced-motion: every animated element loses its animation', () => {
        const { prefix, css } = sheetOf(svg);
        assert.ok(css.includes(`@media (prefers-reduced-motion:reduce){.${prefix}{animation:none!important}}`));
        const hosts = readSheet(css);
        assert.ok(hosts.size > 0);
        for (const el of walk(parseSvg(svg))) {
          const classes = (el.attributes.get('class') ?? '').split(/\s+/);
          if (classes.some((c) => hosts.has(c))) assert.ok(classes.includes(prefix), `<${el.name} class="${classes.join(' ')}"> carries .${prefix}`);
        }
        assert.doesNotMatch(svg, /<script|<animate|<set|on[a-z]+=/i);
      });

      it('passes the sanitizer unchanged, and its frames with it', () => {
        const delivered = finishSvg(svg);
        assert.equal(delivered, svg);
        for (const t of [0, 250, 1000, 2500]) assert.equal(frameAt(delivered, t), frameAt(svg, t));
      });

      it('reports the timing that is in the document, as the service measures it', () => {
        const measured = animationTiming(svg);
        assert.equal(animation.loopPeriodMs, measured.loopPeriodMs);
        assert.equal(animation.openingAnimationMs, measured.openingAnimationMs);
        const isLoop = MOTIONS[motion as keyof typeof MOTIONS].kind === 'loop';
        assert.equal(animation.loopPeriodMs !== null, isLoop);
        assert.equal(animation.openingAnimationMs !== null, !isLoop);
      });
    });
  }
});

describe('motions in combination', () => {
  it('"draw the outline, then pulse the heart": the drawing first, then the pulse loops on the heart alone', () => {
    const animation = animate(finishSvg(HEART), 'draw the outline, then pulse the heart');
    assert.deepEqual(
      animation.motions.map((m) => [m.motion, m.startMs, m.endMs]),
      [
        ['draw', 0, 1500],
        ['pulse', 1500, null],
      ],
    );
    assert.equal(animation.openingAnimationMs, 1500);
    assert.equal(animation.loopPeriodMs, 1600);
    // The heart is wrapped; the frame is drawn on in place.
    assert.match(animation.svg, /<g class="iwm iwm2"><path id="heart"/);
    assert.match(animation.svg, /<rect id="frame"[^>]* class="iwm iwm1" pathLength="1"\/>/);
    const base = render(finishSvg(HEART), WIDTH);
    assert.equal(maxDiff(base, framePixels(animation.svg, 1500 + 1600 * 4, WIDTH)), 0);
  });

  it('loops share one period, each cycle a whole fraction of it no faster than is safe', () => {
    const animation = animate(finishSvg(CART), 'spin the wheels and bounce the body and shift the colours');
    const loops = animation.motions.filter((m) => m.endMs === null);
    assert.deepEqual(loops.map((m) => m.motion).sort(), ['bounce', 'colour', 'spin']);
    for (const loop of loops) {
      assert.equal(animation.loopPeriodMs! % loop.periodMs!, 0);
      assert.ok(loop.periodMs! >= 1000);
    }
    assert.equal(animationTiming(animation.svg).loopPeriodMs, animation.loopPeriodMs);
  });

  it('a spin that cannot turn inside the viewBox rocks instead', () => {
    // A bar as long as the viewBox is wide: a full turn would leave it.
    const bar = finishSvg('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 40"><rect x="2" y="15" width="96" height="10" fill="#333"/></svg>');
    const animation = animate(bar, 'spin');
    assert.equal(animation.motions[0]!.motion, 'wiggle');
    assert.equal(animation.motions[0]!.insteadOf, 'spin');
    for (const t of timesOver(animation, 40)) assert.equal(paintOutside(frameAt(animation.svg, t)), 0);
  });

  it('a wheel spins about its hub even when it is drawn off-centre inside a transformed group', () => {
    const animation = animate(finishSvg(CART), 'spin the wheels');
    const wheels = animation.motions.find((m) => m.motion === 'spin')!;
    assert.equal(wheels.targets, 2);
    // A quarter turn of a four-spoke wheel about its hub looks the same as no turn at all.
    const period = wheels.periodMs!;
    const base = render(finishSvg(CART), WIDTH);
    assert.ok(maxDiff(base, framePixels(animation.svg, period / 4, WIDTH)) <= 100);
    assert.ok(maxDiff(base, framePixels(animation.svg, period / 8, WIDTH)) > 100);
  });

  it('animations keep the source’s own style sheet, classes and transforms', () => {
    const styled = finishSvg(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><style>.a{fill:#2a9d8f}</style><rect class="a" x="20" y="20" width="30" height="30" transform="rotate(10 35 35)"/><circle class="a" cx="70" cy="70" r="12"/></svg>',
    );
    const animation = animate(styled, 'pulse and shift the colours');
    assert.match(animation.svg, /<style>\.a\{fill:#2a9d8f\}<\/style>/);
    assert.match(animation.svg, /<rect class="a iwm iwm\d+" x="20" y="20" width="30" height="30" transform="rotate\(10 35 35\)"\/>/);
    const base = render(styled, WIDTH);
    for (const t of restTimes(animation)) assert.equal(maxDiff(base, framePixels(animation.svg, t, WIDTH)), 0);
  });

  it('stays within the viewBox with a wheel that turns while it floats', () => {
    const animation = animate(finishSvg(WHEEL), 'spin and float');
    for (const t of timesOver(animation, 40)) assert.equal(paintOutside(frameAt(animation.svg, t)), 0);
  });
});
