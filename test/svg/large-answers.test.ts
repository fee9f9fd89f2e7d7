import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { svgFromModelText } from '../../src/svg/model-output.ts';
import { SvgParseError } from '../../src/svg/parse.ts';
import { LARGE_ANSWERS } from './large-answers.ts';

/** The service's limit on SVG input, and so the largest answer worth finishing. */
const ANSWER_BYTES = 800 * 1024;

// No timings here (a shared machine makes them flaky): bench/model-output shows the work is
// linear. These prove each shape finishes, with the right document or a clean refusal — never a
// RangeError from a spread or a recursion, never another exception.
describe('answers as large as the service accepts', () => {
  for (const answer of LARGE_ANSWERS) {
    const outcome = 'delivered' in answer.expect ? 'are delivered right' : 'are refused cleanly';
    it(`${answer.name}: ${outcome}`, { timeout: 60_000 }, () => {
      const text = answer.build(ANSWER_BYTES);
      assert.ok(text.length >= ANSWER_BYTES * 0.9 && text.length <= ANSWER_BYTES * 1.05, `${text.length} bytes`);
      let svg: string;
      try {
        svg = svgFromModelText(text, { truncated: answer.truncated, fallbackViewBox: '0 0 512 512' }).svg;
      } catch (error) {
        if (!(error instanceof SvgParseError)) throw error;
        assert.ok('refused' in answer.expect, `refused: ${error.message}`);
        assert.match(error.message, answer.expect.refused);
        return;
      }
      assert.ok('delivered' in answer.expect, `delivered ${svg.length} bytes`);
      answer.expect.delivered(svg, text);
    });
  }
});
