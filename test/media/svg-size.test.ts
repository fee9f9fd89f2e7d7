// A size an SVG input writes but that means nothing (NaN, 1e400, a viewBox of three numbers) is
// refused, instead of being silently replaced by a default size.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/contract/errors.ts';
import { checkImageBytes } from '../../src/media/image.ts';
import { cleanSvgInput, svgFromBase64 } from '../../src/media/svg-input.ts';
import { malformedSvgSize, svgIntrinsicSize } from '../../src/svg/geometry.ts';
import { parseSvg } from '../../src/svg/parse.ts';

const root = (attributes: string) => parseSvg(`<svg xmlns="http://www.w3.org/2000/svg" ${attributes}/>`);
const malformed = (attributes: string) => malformedSvgSize(root(attributes));

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return error;
  }
  return assert.fail('the SVG was accepted');
}

describe('malformed SVG sizes', () => {
  it('a viewBox that is not four finite numbers with a width and height above 0', () => {
    for (const viewBox of ['0 0 1e400 1e400', '0 0 NaN NaN', '0 0 Infinity 10', '1e400 0 10 10', '0 0 10', '0 0 10 10 10', '', '0 0 0 10', '0 0 10 -1', '0 0 ten 10', '0 0 0x10 10']) {
      assert.equal(malformed(`viewBox="${viewBox}"`), 'viewBox', viewBox);
    }
  });

  it('a width or height that is a number, bare or in an absolute unit, but not finite or not above 0', () => {
    for (const value of ['1e400', '1e400px', 'NaN', '-Infinity', 'infpx', '0', '-5', '0mm', '1e-400', '1e308in']) {
      assert.equal(malformed(`width="${value}" height="10"`), 'width', value);
      assert.equal(malformed(`width="10" height="${value}"`), 'height', value);
    }
    assert.equal(malformed(`width="${'9'.repeat(400)}"`), 'width', 'four hundred digits overflow to Infinity');
  });

  it('leaves sizes that are no intrinsic size, or valid, alone', () => {
    const fine = ['', 'viewBox="0 0 1e12 1e12"', 'viewBox=" 0,0 , 10 20 "', 'viewBox="-.5 -1e3 .5 1E3"', 'width="50%" height="auto"', 'width="2em" height="-3ex"', 'width="calc(1px)"', 'width="1e30"', 'width="+2.5PT"'];
    for (const attributes of fine) assert.equal(malformed(attributes), undefined, attributes);
  });

  it('keeps reading intrinsic sizes as a browser would', () => {
    assert.deepEqual(svgIntrinsicSize(root('width="1in" height="50%" viewBox="0 0 4 2"')), { width: 96, height: 48, viewBox: { minX: 0, minY: 0, width: 4, height: 2 } });
    assert.deepEqual(svgIntrinsicSize(root('width="2em" viewBox="0 0 40 20"')), { width: 40, height: 20, viewBox: { minX: 0, minY: 0, width: 40, height: 20 } });
  });

  it('reads a width of a million digits in linear time', { timeout: 10_000 }, () => {
    assert.equal(malformed(`width="${'1'.repeat(1_000_000)}!"`), undefined, 'not a number: no intrinsic size');
    assert.equal(malformed(`width="${'1'.repeat(1_000_000)}"`), 'width');
  });
});

describe('every SVG input refuses a malformed size with 400 on its field', () => {
  const svg = (attributes: string) => `<svg xmlns="http://www.w3.org/2000/svg" ${attributes}><rect width="1" height="1"/></svg>`;

  it('inline markup (edits `svg`)', () => {
    const error = refusal(() => cleanSvgInput(svg('viewBox="0 0 NaN NaN"'), 'svg'));
    assert.deepEqual([error.status, error.code, error.param], [400, 'invalid_request', 'svg']);
    assert.equal(error.message, "Invalid SVG in 'svg': the root viewBox must be four finite numbers, with a width and height above 0.");
  });

  it('base64 markup (edits and animations `svg_source`)', () => {
    const error = refusal(() => svgFromBase64(Buffer.from(svg('width="1e400" height="10"')).toString('base64'), 'svg_source.base64'));
    assert.deepEqual([error.status, error.code, error.param], [400, 'invalid_request', 'svg_source.base64']);
    assert.equal(error.message, "Invalid SVG in 'svg_source.base64': the root width must be a finite length above 0.");
  });

  it('an SVG given as an image (vectorizations, references)', async () => {
    const error = await checkImageBytes(Buffer.from(svg('viewBox="0 0 1e400 1e400"')), 'image.base64').then(
      () => assert.fail('accepted'),
      (e: unknown) => e as ApiError,
    );
    assert.deepEqual([error.status, error.code, error.param], [400, 'invalid_request', 'image.base64']);
  });
});
