import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { animate } from '../../../src/engines/motion/animator.ts';
import { readScene } from '../../../src/engines/motion/scene.ts';
import { findWheels } from '../../../src/engines/motion/wheels.ts';
import { finishSvg } from '../../../src/svg/pipeline.ts';
import { BLOB, BUSY, CART, GEAR, HEART, LINE_ART, SHAPES, WHEEL } from './drawings.ts';

const auto = (drawing: string) => animate(finishSvg(drawing));
const summary = (drawing: string) => auto(drawing).motions.map((m) => `${m.motion}${m.endMs === null ? ' (loop)' : ''}`);

describe('choosing motions from the drawing (no prompt)', () => {
  it('line art — strokes without fill — is drawn on, and then rests', () => {
    const animation = auto(LINE_ART);
    assert.equal(animation.chosenBy, 'drawing');
    assert.equal(animation.drawing.kind, 'line-art');
    assert.equal(animation.drawing.lineShare, 1);
    assert.deepEqual(summary(LINE_ART), ['draw']);
    assert.equal(animation.loopPeriodMs, null);
    assert.equal((animation.svg.match(/pathLength="1"/g) ?? []).length, 4);
  });

  it('a few solid shapes pop in one after another, then float gently', () => {
    const animation = auto(SHAPES);
    assert.equal(animation.drawing.kind, 'few-solid-shapes');
    assert.equal(animation.drawing.parts, 3);
    assert.deepEqual(summary(SHAPES), ['stagger', 'float (loop)']);
    assert.equal(animation.motions[0]!.targets, 3);
  });

  it('a single solid shape pops in, then pulses', () => {
    assert.deepEqual(summary(BLOB), ['pop', 'pulse (loop)']);
  });

  it('a busy drawing fades in, then floats (as far as there is room)', () => {
    const animation = auto(BUSY);
    assert.equal(animation.drawing.kind, 'many-shapes');
    assert.equal(animation.drawing.wheels, 0, 'squares are not wheels');
    assert.deepEqual(summary(BUSY), ['fade', 'float (loop)']);
    assert.ok(animation.motions[1]!.amplitude < 1);
  });

  it('a wheel (a rim with six spokes) is drawn on, then spins about its hub', () => {
    const animation = auto(WHEEL);
    assert.equal(animation.drawing.wheels, 1);
    assert.deepEqual(summary(WHEEL), ['draw', 'spin (loop)']);
    const wheel = findWheels(readScene(finishSvg(WHEEL)))[0]!;
    assert.equal(wheel.order, 6);
    assert.deepEqual([Math.round(wheel.centre.x), Math.round(wheel.centre.y)], [50, 50]);
  });

  it('a gear (one toothed outline) spins; the turn is slow enough for its teeth not to flicker', () => {
    const animation = auto(GEAR);
    assert.equal(animation.drawing.wheels, 1);
    assert.deepEqual(summary(GEAR), ['stagger', 'spin (loop)']);
    const spin = animation.motions[1]!;
    // Sixteen tooth flanks pass a point per turn: at least 16 × 250 ms a turn.
    assert.ok(spin.periodMs! >= 4000, `${spin.periodMs}`);
    assert.equal(findWheels(readScene(finishSvg(GEAR)))[0]!.order, 8);
  });

  it('a cart: only its two wheels spin, each about its own hub', () => {
    const animation = auto(CART);
    assert.equal(animation.drawing.wheels, 2);
    assert.deepEqual(summary(CART), ['stagger', 'spin (loop)']);
    assert.equal(animation.motions[1]!.targets, 2);
    assert.match(animation.svg, /translate\(45px,72px\) rotate\(0deg\)/);
    assert.match(animation.svg, /translate\(115px,72px\) rotate\(0deg\)/);
  });

  it('round shapes without spokes, and spokes without symmetry, are not wheels', () => {
    const plain = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><circle cx="50" cy="50" r="30" fill="none" stroke="#000" stroke-width="4"/><circle cx="50" cy="50" r="10" fill="#000"/></svg>';
    assert.equal(findWheels(readScene(finishSvg(plain))).length, 0);
    const clock = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><circle cx="50" cy="50" r="40" fill="none" stroke="#000" stroke-width="4"/><path d="M50 50V20M50 50H72" stroke="#000" stroke-width="4"/></svg>';
    assert.equal(findWheels(readScene(finishSvg(clock))).length, 0);
    const star = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><polygon points="50,10 61,40 95,40 67,60 78,92 50,72 22,92 33,60 5,40 39,40" fill="gold"/></svg>';
    assert.equal(findWheels(readScene(finishSvg(star))).length, 0);
  });

  it('half line art, half solid (a frame around a heart) counts as a few solid shapes', () => {
    assert.equal(auto(HEART).drawing.kind, 'few-solid-shapes');
  });

  it('a prompt that rules a chosen motion out gets its neighbour instead', () => {
    const animation = animate(finishSvg(SHAPES), "don't float");
    assert.deepEqual(animation.motions.map((m) => m.motion), ['stagger', 'pulse']);
    assert.deepEqual(animate(finishSvg(LINE_ART), 'no drawing on').motions.map((m) => m.motion), ['fade']);
  });

  it('is quick on a large drawing: 3000 paths in well under a second', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const paths = Array.from({ length: 3000 }, () => {
      const x = (random() * 900).toFixed(1);
      const y = (random() * 900).toFixed(1);
      return `<path d="M${x} ${y}c20 30 40 -10 60 5s20 30 10 40l-20 -10z" fill="#${Math.floor(random() * 0xffffff).toString(16).padStart(6, '0')}"/>`;
    });
    const big = finishSvg(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1000 1000">${paths.join('')}</svg>`);
    for (const prompt of [undefined, 'spin', 'one by one, then bounce', 'colour shift']) {
      const start = performance.now();
      const animation = animate(big, prompt);
      assert.ok(performance.now() - start < 3000, `${prompt}: ${performance.now() - start} ms`);
      assert.ok(animation.motions.length > 0);
    }
  });
});
