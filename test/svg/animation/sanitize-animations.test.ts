// The sanitizer and the model-output pipeline keep safe CSS animations and SMIL, and refuse
// what could run or fetch something through an animation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { svgFromModelText } from '../../../src/svg/model-output.ts';
import { finishSvg } from '../../../src/svg/pipeline.ts';
import { animationTiming } from '../../../src/svg/animation/timing.ts';
import { CASES, svg } from './cases.ts';

const modelOutput = (markup: string) => svgFromModelText(markup, { truncated: false, fallbackViewBox: '0 0 100 100' }).svg;

describe('animations through the sanitizer', () => {
  it('keeps every hand-written CSS and SMIL case with its timing intact', () => {
    for (const [name, { svg: markup }] of Object.entries(CASES)) {
      for (const clean of [finishSvg(markup), modelOutput(markup)]) {
        assert.deepEqual(animationTiming(clean), animationTiming(markup), name);
      }
    }
  });

  it('keeps @keyframes, animation properties, reduced-motion queries and SMIL attributes', () => {
    const markup = svg(
      '<style>@media (prefers-reduced-motion: no-preference){.a{animation:k 1s ease-in-out infinite alternate;transform-box:fill-box;transform-origin:center}} @keyframes k{50%{transform:scale(1.1) rotate(3deg);fill:#f00}}</style>' +
        '<rect class="a" width="10" height="10" style="animation-delay:-200ms"/>' +
        '<circle r="4"><animate attributeName="r" values="4;6;4" keyTimes="0;0.5;1" calcMode="spline" keySplines=".4 0 .2 1;.4 0 .2 1" begin="0s" dur="1s" repeatCount="indefinite" fill="freeze" additive="sum" accumulate="none"/>' +
        '<animateTransform attributeName="transform" type="rotate" from="0 5 5" to="360 5 5" dur="2s" repeatDur="indefinite"/>' +
        '<animateMotion path="M0 0 L10 10" rotate="auto" keyPoints="0;1" keyTimes="0;1" dur="3s"/><set attributeName="fill" to="red" begin="1s"/></circle>',
    );
    const clean = finishSvg(markup);
    for (const kept of ['@keyframes k', 'animation:k 1s ease-in-out infinite alternate', 'prefers-reduced-motion', 'style="animation-delay:-200ms"', 'keySplines=', 'repeatDur="indefinite"', '<animateMotion path="M0 0 L10 10" rotate="auto"', '<set attributeName="fill" to="red" begin="1s"/>']) {
      assert.ok(clean.includes(kept), `keeps ${kept}`);
    }
  });

  it('refuses animation targets that could inject links or script, and unsafe values', () => {
    const markup = svg(
      '<a href="#x"><rect id="x" width="10" height="10">' +
        '<set attributeName="href" to="javascript:alert(1)"/>' +
        '<animate attributeName="xlink:href" values="https://evil.example/;#x" dur="1s"/>' +
        '<set attributeName="onclick" to="alert(1)"/>' +
        '<animate attributeName="style" to="background:url(https://evil.example/)" dur="1s"/>' +
        '<animate attributeName="fill" values="red;url(https://evil.example/p.svg#g)" dur="1s"/>' +
        '<animate attributeName="fill" from="red" to="blue" begin="0s" dur="1s" onbegin="alert(1)"/>' +
        '</rect></a>',
    );
    const clean = finishSvg(markup);
    assert.doesNotMatch(clean, /attributeName="(?:href|xlink:href|onclick|style)"/);
    assert.doesNotMatch(clean, /javascript:|url\(https|onbegin/);
    // What is left of a refused target names no attribute, so it animates nothing.
    for (const element of clean.match(/<(?:animate|set)\b[^>]*>/g) ?? []) {
      if (element.includes('evil.example') || element.includes('alert')) assert.doesNotMatch(element, /attributeName=/, element);
    }
    assert.match(clean, /<animate attributeName="fill" from="red" to="blue" begin="0s" dur="1s"\/>/, 'the safe animation stays');
  });

  it('drops a style sheet whose keyframes fetch or escape', () => {
    for (const sheet of ['@keyframes k{to{fill:url(https://evil.example/#a)}} .a{animation:k 1s}', '@import "x.css"; .a{animation:k 1s}', '@keyframes k{to{fill:\\72 ed}}']) {
      assert.doesNotMatch(finishSvg(svg(`<style>${sheet}</style><rect class="a" width="1" height="1"/>`)), /<style/, sheet);
    }
  });

  it('the optimizer keeps a group that is the target of its SMIL animations', () => {
    const clean = modelOutput(svg('<g><animateTransform attributeName="transform" type="rotate" from="0 50 50" to="360 50 50" dur="3s" repeatCount="indefinite"/><rect width="10" height="10"/></g><g><circle r="3"/></g>'));
    assert.match(clean, /<g><animateTransform [^>]*\/><rect width="10" height="10"\/><\/g><circle r="3"\/>/);
  });
});
