import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sniffImageFormat } from '../../src/media/sniff.ts';
import { isUsableSvgSize, svgIntrinsicSize } from '../../src/svg/geometry.ts';
import { parseSvg } from '../../src/svg/parse.ts';

const sniff = (text: string) => sniffImageFormat(Buffer.from(text));
const size = (attributes: string) => svgIntrinsicSize(parseSvg(`<svg xmlns="http://www.w3.org/2000/svg" ${attributes}/>`));

describe('SVG sniffing', () => {
  it('finds the root <svg> after a BOM, XML declaration, comments, a DOCTYPE and whitespace', () => {
    assert.equal(sniff('<svg/>'), 'svg');
    assert.equal(sniff('\uFEFF<?xml version="1.0"?>\n<!-- a -->\n<!DOCTYPE svg>\n<!-- b --><svg xmlns="x">'), 'svg');
    assert.equal(sniff('<!----><!----><svg>'), 'svg');
  });

  it('refuses text that is not an SVG document', () => {
    assert.equal(sniff('<html><svg></svg></html>'), undefined);
    assert.equal(sniff('<svgx>'), undefined);
    assert.equal(sniff('<!-- never closed <svg>'), undefined);
    assert.equal(sniff('<!DOCTYPE a><!DOCTYPE b><svg>'), undefined);
  });

  // The timeout turns a regression (a hang) into a failure; it is no speed target.
  it('reads hundreds of empty comments before a non-SVG byte in one pass', { timeout: 10_000 }, () => {
    // A regular expression with repeated comment groups backtracked exponentially on this.
    assert.equal(sniff(`${'<!---->'.repeat(585)}x`), undefined);
    assert.equal(sniff(`${'<!---->'.repeat(500)}<svg>`), 'svg');
  });
});

describe('SVG intrinsic size', () => {
  it('reads absolute lengths and falls back on the viewBox', () => {
    assert.deepEqual(size('width="2in" height="96px"'), { width: 192, height: 96 });
    assert.deepEqual(size('viewBox="0 0 40 20" width="80"'), { width: 80, height: 40, viewBox: { minX: 0, minY: 0, width: 40, height: 20 } });
    assert.deepEqual(size(''), { width: 300, height: 150 });
  });

  it('ignores a width of 40 000 digits at once instead of backtracking over it', { timeout: 10_000 }, () => {
    assert.deepEqual(size(`width="${'1'.repeat(40_000)}!" height="10"`), { width: 300, height: 10 });
  });

  it('calls sizes usable only between 0.001 and 1e9 units', () => {
    assert.equal(isUsableSvgSize(size('viewBox="0 0 1 0.5"')), true);
    assert.equal(isUsableSvgSize(size('viewBox="0 0 1e308 1e-308"')), false);
    assert.equal(isUsableSvgSize(size('width="1e-300" height="1"')), false);
    assert.equal(isUsableSvgSize(size('width="1e30" height="10"')), false);
    assert.equal(isUsableSvgSize(size('viewBox="-1e308 0 10 10"')), false);
  });
});
