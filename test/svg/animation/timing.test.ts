// Timing measured from hand-written CSS and SMIL animations: loop_period_ms and
// opening_animation_ms exact to the millisecond, null when nothing loops or nothing runs once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { animationTiming, loopPeriod, LOOP_PERIOD_CAP_MS } from '../../../src/svg/animation/timing.ts';
import { expandAnimationShorthand } from '../../../src/svg/css/animation-shorthand.ts';
import { CASES, svg } from './cases.ts';

const timing = (markup: string) => {
  const { loopPeriodMs, openingAnimationMs } = animationTiming(markup);
  return { loop: loopPeriodMs, opening: openingAnimationMs };
};
const css = (sheet: string, body = '<rect class="a" width="10" height="10"/><circle class="b" r="5"/>', attrs = '') =>
  svg(`<style>${sheet}</style>${body}`.replace('<rect class="a"', `<rect class="a"${attrs}`));
const K = '@keyframes k{to{opacity:0}} @keyframes m{50%{transform:scale(2)}}';

describe('CSS animation timing', () => {
  const cases: [string, string, { loop: number | null; opening: number | null }][] = [
    ['shorthand, infinite', `${K} .a{animation:k 2s infinite}`, { loop: 2000, opening: null }],
    ['milliseconds, a delay does not shift the period', `${K} .a{animation:k 150ms linear 1s infinite}`, { loop: 150, opening: null }],
    ['alternate doubles the period', `${K} .a{animation:k 1.5s ease-in-out infinite alternate}`, { loop: 3000, opening: null }],
    ['alternate-reverse doubles it too', `${K} .a{animation:k .25s infinite alternate-reverse}`, { loop: 500, opening: null }],
    ['reverse does not', `${K} .a{animation:k 700ms infinite reverse}`, { loop: 700, opening: null }],
    ['one run: delay + duration', `${K} .a{animation:k 1.2s ease .3s}`, { loop: null, opening: 1500 }],
    ['three runs', `${K} .a{animation:k 400ms 3 forwards}`, { loop: null, opening: 1200 }],
    ['fractional count', `${K} .a{animation:k 1s 2.5}`, { loop: null, opening: 2500 }],
    ['negative delay shortens the opening', `${K} .a{animation:k 2s -500ms}`, { loop: null, opening: 1500 }],
    ['already over at time 0', `${K} .a{animation:k 1s -2s}`, { loop: null, opening: null }],
    ['two loops: least common multiple', `${K} .a{animation:k 1.2s infinite} .b{animation:m 800ms infinite}`, { loop: 2400, opening: null }],
    ['loop and entrance together', `${K} .a{animation:k 1s infinite, m 2s .5s both}`, { loop: 1000, opening: 2500 }],
    [
      'longhands, lists repeating, later rule overriding one longhand',
      `${K} .a{animation-name:k,m;animation-duration:1s,3s;animation-iteration-count:infinite,2;animation-delay:0s} rect.a{animation-duration:2s}`,
      { loop: 2000, opening: 4000 },
    ],
    ['style attribute', K, { loop: 900, opening: null }],
    ['zero duration, paused, none and unknown keyframes count for nothing', `${K} .a{animation:k 0s infinite, m 1s infinite paused, nope 1s infinite} .b{animation:none}`, { loop: null, opening: null }],
    ['keyframes that set nothing count for nothing', '@keyframes e{} .a{animation:e 1s infinite}', { loop: null, opening: null }],
    ['a rule matching no element counts for nothing', `${K} .missing{animation:k 1s infinite} g > rect{animation:k 1s infinite}`, { loop: null, opening: null }],
    ['descendant selectors and :nth-child', `${K} svg rect:nth-child(2){animation:k 3s infinite}`, { loop: 3000, opening: null }],
    ['reduced-motion media queries', `${K} @media (prefers-reduced-motion: no-preference){.a{animation:k 2s infinite}} @media (prefers-reduced-motion: reduce){.b{animation:m 5s infinite}}`, { loop: 2000, opening: null }],
    ['!important beats the style attribute', `${K} .a{animation:k 4s infinite !important}`, { loop: 4000, opening: null }],
    ['scroll timelines do not run on time', `${K} .a{animation:k 1s infinite;animation-timeline:scroll()}`, { loop: null, opening: null }],
    ['a comment hiding a brace', `${K} /* } */ .a{animation:k 1s /* 9s */ infinite}`, { loop: 1000, opening: null }],
  ];
  for (const [name, sheet, expected] of cases) {
    it(name, () => {
      const attrs = name === 'style attribute' ? ' style="animation: k 900ms infinite"' : name.startsWith('!important') ? ' style="animation: k 1s infinite"' : '';
      assert.deepEqual(timing(css(sheet, undefined, attrs)), expected);
    });
  }

  it('the shorthand is read in the spec order: first time is the duration, second the delay', () => {
    const longhands = Object.fromEntries(expandAnimationShorthand('spin 2s cubic-bezier(0.1, 0.7, 1, 0.1) 500ms 3 alternate both paused').map((l) => [l.property, l.value]));
    assert.deepEqual(longhands, {
      'animation-name': 'spin',
      'animation-duration': '2s',
      'animation-timing-function': 'cubic-bezier(0.1, 0.7, 1, 0.1)',
      'animation-delay': '500ms',
      'animation-iteration-count': '3',
      'animation-direction': 'alternate',
      'animation-fill-mode': 'both',
      'animation-play-state': 'paused',
    });
  });
});

describe('SMIL animation timing', () => {
  const rect = (animations: string) => svg(`<rect id="r" width="10" height="10">${animations}</rect>`);
  const cases: [string, string, { loop: number | null; opening: number | null }][] = [
    ['repeatCount indefinite', '<animate attributeName="x" to="5" dur="2s" repeatCount="indefinite"/>', { loop: 2000, opening: null }],
    ['repeatDur indefinite, clock value', '<animate attributeName="x" to="5" dur="00:00:01.250" repeatDur="indefinite"/>', { loop: 1250, opening: null }],
    ['one run with a begin offset', '<animate attributeName="x" to="5" begin="0.5s" dur="1.5s" fill="freeze"/>', { loop: null, opening: 2000 }],
    ['repeatCount 3', '<animateTransform attributeName="transform" type="rotate" from="0" to="90" dur="400ms" repeatCount="3"/>', { loop: null, opening: 1200 }],
    ['fractional repeatCount', '<animate attributeName="x" to="5" dur="1s" repeatCount="1.5"/>', { loop: null, opening: 1500 }],
    ['repeatDur bounds repeatCount', '<animate attributeName="x" to="5" dur="1s" repeatCount="10" repeatDur="2.5s"/>', { loop: null, opening: 2500 }],
    ['end bounds an indefinite repeat', '<animate attributeName="x" to="5" dur="1s" repeatCount="indefinite" end="4s"/>', { loop: null, opening: 4000 }],
    ['minutes and ms', '<animate attributeName="x" to="5" dur="0.02min" begin="250ms"/>', { loop: null, opening: 1450 }],
    ['the latest of several begins', '<animate attributeName="x" to="5" dur="1s" begin="0s;3s"/>', { loop: null, opening: 4000 }],
    ['a negative begin', '<animate attributeName="x" to="5" dur="2s" begin="-1.5s"/>', { loop: null, opening: 500 }],
    ['set changes the drawing once, at its begin', '<set attributeName="fill" to="red" begin="2s"/>', { loop: null, opening: 2000 }],
    ['set with a duration reverts at its end', '<set attributeName="fill" to="red" begin="1s" dur="1s"/>', { loop: null, opening: 2000 }],
    ['events and indefinite never begin', '<animate attributeName="x" to="5" dur="1s" begin="click"/><animate attributeName="x" to="5" dur="1s" begin="indefinite" repeatCount="indefinite"/><animate attributeName="x" to="5" dur="1s" begin="r.mouseover"/>', { loop: null, opening: null }],
    ['syncbase: after another ends', '<animate id="a1" attributeName="x" to="5" dur="1s"/><animate attributeName="y" to="5" begin="a1.end+0.5s" dur="2s"/>', { loop: null, opening: 3500 }],
    ['syncbase on begin, and repeat()', '<animate id="a1" attributeName="x" to="5" dur="1s" repeatCount="3"/><animate attributeName="y" to="5" begin="a1.repeat(2)" dur="1s"/><animate attributeName="width" to="5" begin="a1.begin-0.2s+0s" dur="100ms"/>', { loop: null, opening: 3000 }],
    ['a syncbase chain that loops', '<animate id="a" attributeName="x" from="0" to="5" begin="0s;b.end" dur="1s"/><animate id="b" attributeName="x" from="5" to="0" begin="a.end+0.25s" dur="750ms"/>', { loop: 2000, opening: null }],
    ['a self-restarting element', '<animate id="s" attributeName="x" from="0" to="5" begin="0s;s.end+1s" dur="500ms"/>', { loop: 1500, opening: null }],
    ['loops of 2 s and 3 s, and an entrance', '<animate attributeName="x" to="5" dur="2s" repeatCount="indefinite"/><animate attributeName="y" to="5" dur="3s" repeatCount="indefinite"/><animate attributeName="width" to="5" dur="1s" begin="0.5s"/>', { loop: 6000, opening: 1500 }],
    ['a target by href', '<animate href="#r" attributeName="x" to="5" dur="800ms" repeatCount="indefinite"/>', { loop: 800, opening: null }],
    ['no target', '<animate href="#missing" attributeName="x" to="5" dur="800ms" repeatCount="indefinite"/>', { loop: null, opening: null }],
    ['animateMotion', '<animateMotion path="M0 0 L10 10" dur="3s" repeatCount="indefinite"/>', { loop: 3000, opening: null }],
  ];
  for (const [name, animations, expected] of cases) {
    it(name, () => assert.deepEqual(timing(rect(animations)), expected));
  }
});

describe('the loop period rule', () => {
  it('is the least common multiple, exact to the millisecond', () => {
    assert.equal(loopPeriod([1200, 800]), 2400);
    assert.equal(loopPeriod([1000, 1500, 2500]), 15_000);
    assert.equal(loopPeriod([333.5, 667]), 667);
    assert.equal(loopPeriod([]), null);
  });

  it(`past ${LOOP_PERIOD_CAP_MS} ms it is the longest single period`, () => {
    assert.equal(loopPeriod([1700, 2300]), 39_100);
    assert.equal(loopPeriod([1001, 1000]), 1001);
    assert.equal(loopPeriod([7000, 11_000, 13_000]), 13_000);
  });

  it('the shared hand-written cases', () => {
    const expected: Record<string, { loop: number | null; opening: number | null }> = {
      'CSS translate, linear, infinite': { loop: 2000, opening: null },
      'CSS rotate about fill-box centre, ease-in-out, alternate': { loop: 2000, opening: null },
      'CSS scale pop with delay, fill both, cubic-bezier': { loop: null, opening: 1000 },
      'CSS draw-on with pathLength and dash offset': { loop: null, opening: 1500 },
      'CSS colour shift and per-keyframe timing, steps': { loop: 2000, opening: null },
      'CSS inside prefers-reduced-motion media query, skew and translate percent': { loop: 1000, opening: null },
      'SMIL animate x and fill colour, discrete and linear with keyTimes': { loop: 6000, opening: null },
      'SMIL animateTransform rotate with centre, begin offset, freeze': { loop: null, opening: 1500 },
      'SMIL additive scale over translate, keySplines, opacity': { loop: 2000, opening: null },
      'SMIL syncbase chain that loops, set, stroke-dashoffset': { loop: 2500, opening: 1000 },
      'SMIL animateMotion along a path with rotate auto': { loop: 2000, opening: null },
      'CSS transform lists of different kinds (matrix decomposition), nth-child, currentColor and var()': { loop: 2000, opening: null },
      'SMIL to-animation, by-animation and accumulate': { loop: null, opening: 3000 },
    };
    for (const [name, { svg: markup }] of Object.entries(CASES)) assert.deepEqual(timing(markup), expected[name], name);
  });
});
