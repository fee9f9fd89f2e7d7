import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { animate } from '../../../src/engines/motion/animator.ts';
import { MOTIONS, MOTION_NAMES } from '../../../src/engines/motion/motions/index.ts';
import { MOTION_WORDS, parsePrompt } from '../../../src/engines/motion/prompt.ts';
import { finishSvg } from '../../../src/svg/pipeline.ts';
import { CART, HEART, SHAPES } from './drawings.ts';

const motions = (prompt: string) => parsePrompt(prompt).steps.map((s) => s.motion);

describe('reading a prompt', () => {
  it('knows every word of every motion, and no word twice', () => {
    const seen = new Map<string, string>();
    for (const name of MOTION_NAMES) {
      for (const word of MOTIONS[name].words) {
        assert.ok(!seen.has(word), `"${word}" means both ${seen.get(word)} and ${name}`);
        seen.set(word, name);
        assert.deepEqual(motions(word), [name], `"${word}"`);
        assert.deepEqual(motions(`Please make it ${word.toUpperCase()}!`), [name], `"${word}" in a sentence`);
      }
    }
    assert.equal(MOTION_WORDS.size, seen.size);
  });

  it('understands synonyms and phrases', () => {
    const cases: [string, string[]][] = [
      ['make it rotate', ['spin']],
      ['let the wheel turn', ['spin']],
      ['wobble a bit', ['wiggle']],
      ['the heart beats', ['pulse']],
      ['a heart beat', ['pulse']],
      ['sketch the outline', ['draw']],
      ['write the letters', ['draw']],
      ['the parts appear one by one', ['fade', 'stagger']],
      ['piece by piece', ['stagger']],
      ['one after the other', ['stagger']],
      ['hovering gently', ['float']],
      ['jump!', ['bounce']],
      ['tremble', ['shake']],
      ['rainbow colours', ['colour']],
      ['change colour', ['colour']],
      ['colour shift', ['colour']],
      ['fly in', ['slide']],
      ['zoom in', ['pop']],
    ];
    for (const [prompt, expected] of cases) assert.deepEqual(motions(prompt), expected, prompt);
  });

  it('never flashes: flash, blink, flicker and twinkle are a slow pulse', () => {
    for (const word of ['flash', 'blink', 'flicker', 'twinkle', 'strobe the star']) {
      const steps = motions(word);
      assert.deepEqual(steps, ['pulse'], word);
    }
  });

  it('orders combinations: "then" starts a new group, "and" and commas keep one', () => {
    const parsed = parsePrompt('draw the outline, then pulse the heart');
    assert.deepEqual(
      parsed.steps.map((s) => [s.motion, s.group, s.kind ?? null, s.words]),
      [
        ['draw', 0, 'lines', []],
        ['pulse', 1, null, ['heart']],
      ],
    );
    assert.deepEqual(
      parsePrompt('fade in and slide in, then wiggle. Finally shake it').steps.map((s) => [s.motion, s.group]),
      [
        ['fade', 0],
        ['slide', 0],
        ['wiggle', 1],
        ['shake', 2],
      ],
    );
    assert.deepEqual(
      parsePrompt('make the wheels spin and the body bounce').steps.map((s) => [s.motion, s.words]),
      [
        ['spin', ['wheel']],
        ['bounce', ['body']],
      ],
    );
  });

  it('reads words that name properties of every object (constructor, toString) as words, not directions or targets', () => {
    for (const prompt of ['slide in from the constructor', 'slide constructor', 'spin the toString', 'spin the __proto__']) {
      const step = parsePrompt(prompt).steps[0]!;
      assert.equal(step.options.direction, undefined, prompt);
      assert.equal(step.kind, undefined, prompt);
    }
  });

  it('reads directions, turning sense, speed and negation', () => {
    assert.equal(parsePrompt('slide in from the right').steps[0]!.options.direction, 'left');
    assert.equal(parsePrompt('slide in from the top').steps[0]!.options.direction, 'down');
    assert.equal(parsePrompt('slide up').steps[0]!.options.direction, 'up');
    assert.equal(parsePrompt('spin counterclockwise').steps[0]!.options.clockwise, false);
    assert.equal(parsePrompt('spin counter clockwise').steps[0]!.options.clockwise, false);
    assert.equal(parsePrompt('spin clockwise').steps[0]!.options.clockwise, true);
    assert.equal(parsePrompt('spin slowly').speed, 1.5);
    assert.equal(parsePrompt('spin very slowly').speed, 2);
    assert.equal(parsePrompt('a quick spin').speed, 0.7);
    const negated = parsePrompt("don't spin, just float");
    assert.deepEqual(negated.steps.map((s) => s.motion), ['float']);
    assert.deepEqual(negated.negated, ['spin']);
    assert.deepEqual(motions('float without spinning'), ['float']);
  });

  it('ignores words it does not know, and reports them', () => {
    const parsed = parsePrompt('please make the zorblax wiggle elegantly');
    assert.deepEqual(motions('please make the zorblax wiggle elegantly'), ['wiggle']);
    assert.deepEqual(parsed.otherWords, ['zorblax', 'elegantly']);
    const animation = animate(finishSvg(SHAPES), 'please make the zorblax wiggle elegantly');
    assert.deepEqual(animation.ignoredWords, ['zorblax', 'elegantly']);
    assert.deepEqual(animation.motions.map((m) => m.motion), ['wiggle']);
  });

  it('has no steps without motion words (the drawing then chooses), and the drawing chooses for an empty prompt', () => {
    assert.deepEqual(parsePrompt('a lighthouse at dusk').steps, []);
    assert.deepEqual(parsePrompt('').steps, []);
    assert.deepEqual(parsePrompt(undefined).steps, []);
    assert.equal(animate(finishSvg(SHAPES), 'a lighthouse at dusk').chosenBy, 'drawing');
  });

  it('finds the parts a prompt names by id, class, data-* or title, singular or plural', () => {
    const animation = animate(finishSvg(HEART), 'pulse the heart');
    assert.match(animation.svg, /<g class="iwm iwm1"><path id="heart"/);
    const cart = animate(finishSvg(CART), 'spin the wheels');
    assert.equal(cart.motions[0]!.targets, 2);
    assert.match(cart.svg, /<g class="iwm iwm1"><g id="wheel-left"/);
    assert.match(cart.svg, /<g class="iwm iwm2"><g id="wheel-right"/);
    const titled = finishSvg(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><g><title>Sun</title><circle cx="30" cy="30" r="10" fill="gold"/></g><rect x="10" y="70" width="80" height="10" fill="green" data-name="grass"/></svg>',
    );
    assert.match(animate(titled, 'make the sun pulse').svg, /<g class="iwm iwm1"><g><title>Sun<\/title>/);
    assert.match(animate(titled, 'shake the grass').svg, /<g class="iwm iwm1"><rect[^>]*data-name="grass"/);
  });

  it('reads a prompt of 100 000 characters in linear time', () => {
    const long = 'spin the wheel and then '.repeat(4200).slice(0, 100_000);
    const start = performance.now();
    const parsed = parsePrompt(long);
    assert.ok(performance.now() - start < 1000);
    // A loop asked for again and again is one loop.
    assert.deepEqual(parsed.steps.map((s) => s.motion), ['spin']);
    const many = parsePrompt('fade then '.repeat(10_000));
    assert.ok(many.steps.length <= 16);
    const start2 = performance.now();
    animate(finishSvg(SHAPES), long);
    animate(finishSvg(SHAPES), 'fade then '.repeat(10_000));
    assert.ok(performance.now() - start2 < 2000);
  });
});
