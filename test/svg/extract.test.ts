import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractSvg, svgCandidates } from '../../src/svg/extract.ts';
import { svgFromModelText } from '../../src/svg/model-output.ts';

const NS = 'xmlns="http://www.w3.org/2000/svg"';
const FINAL = `<svg ${NS} viewBox="0 0 4 4"><rect width="4" height="4" fill="teal"/></svg>`;
const deliver = (answer: string) => svgFromModelText(answer, { truncated: false, fallbackViewBox: '0 0 512 512' }).svg;

describe('which SVG in an answer is the answer', () => {
  describe('a later complete document wins over an earlier one that never closed', () => {
    const rewrites: Record<string, string> = {
      'cut inside path data, then prose and a fenced rewrite': `<svg ${NS} viewBox="0 0 9 9"><path d="M0 0 L5 5 C1 2 Sorry, let me rewrite that.\n\`\`\`svg\n${FINAL}\n\`\`\``,
      'cut inside path data, rewritten with no fence': `<svg ${NS} viewBox="0 0 9 9"><path d="M0 0 L5 Oops. ${FINAL}`,
      'cut inside a colour': `<svg viewBox="0 0 9 9"><rect fill="#ff Let me start over: <svg viewBox="0 0 4 4"><rect width="4" height="4" fill="teal"/></svg>`,
      'cut inside a single-quoted value': `<svg viewBox='0 0 9 9'><circle r='4 again: <svg viewBox="0 0 4 4"><rect width="4" height="4" fill="teal"/></svg>`,
      'cut inside a start tag, between attributes': `<svg ${NS} viewBox="0 0 9 9"><circle cx="4" \n\nSorry! ${FINAL}`,
      'cut between elements, rewrite with xmlns': `<svg ${NS} viewBox="0 0 9 9"><circle r="4"/>\nHmm, that is wrong. Here is a better one:\n${FINAL}`,
      'cut between elements, fenced rewrite without xmlns': `\`\`\`svg\n<svg viewBox="0 0 9 9"><circle r="4"/>\n\`\`\`\nLet me fix that:\n\`\`\`svg\n<svg viewBox="0 0 4 4"><rect width="4" height="4" fill="teal"/></svg>\n\`\`\``,
      'cut inside a value, and a stray </svg> after the rewrite': `<svg ${NS}><path d="M0 0 L1 Sorry. ${FINAL}\n</svg>`,
    };
    for (const [name, answer] of Object.entries(rewrites)) {
      it(name, () => {
        const candidate = extractSvg(answer);
        assert.equal(candidate?.complete, true);
        assert.match(candidate.markup, /^<svg [^>]*viewBox="0 0 4 4"><rect width="4" height="4" fill="teal"\/><\/svg>$/);
        const delivered = deliver(answer);
        assert.match(delivered, /^<svg [^>]*><rect width="4" height="4" fill="teal"\/><\/svg>$/);
        assert.match(delivered, /viewBox="0 0 4 4"/);
      });
    }

    it('each abandoned draft stays a candidate of its own, in order', () => {
      const answer = `<svg ${NS}><path d="M0 0 L1 no. <svg ${NS}><rect x="1 no. ${FINAL}`;
      assert.deepEqual(svgCandidates(answer).map((c) => c.complete), [false, false, true]);
      assert.equal(svgCandidates(answer)[1]!.markup, `<svg ${NS}><rect x="1 no. `);
    });
  });

  describe('nested <svg> elements stay inside their document', () => {
    it('a truncated document keeps the complete nested <svg x=…> it holds', () => {
      const answer = `<svg ${NS} viewBox="0 0 9 9"><svg x="1" y="1" width="4" height="4" viewBox="0 0 2 2"><rect width="2" height="2"/></svg><circle cx="6" cy="6" r="2"/><circle r="`;
      assert.deepEqual(extractSvg(answer), { markup: answer, complete: false });
    });

    it('a complete document keeps a nested <svg> even with its own xmlns', () => {
      const answer = `Here: <svg ${NS} viewBox="0 0 9 9"><svg ${NS} x="1" width="4" height="4"><rect width="2" height="2"/></svg><circle r="2"/></svg> Done.`;
      assert.equal(extractSvg(answer)?.markup, answer.slice(6, -6));
    });

    it('a nested <svg> that closes itself, and comments and CDATA that mention <svg, change nothing', () => {
      const svg = `<svg ${NS} viewBox="0 0 9 9"><!-- an <svg> in a comment --><style><![CDATA[ .a{fill:red} /* <svg */ ]]></style><svg x="1"/><rect class="a" width="9" height="9"/></svg>`;
      assert.deepEqual(svgCandidates(`Sure: ${svg}`), [{ markup: svg, complete: true }]);
    });
  });

  it('the last complete document wins, else the last one started', () => {
    const one = '<svg viewBox="0 0 1 1"><rect width="1" height="1"/></svg>';
    assert.equal(extractSvg(`Draft: ${one}\nFinal: ${FINAL}\nDone.`)?.markup, FINAL);
    assert.deepEqual(extractSvg(`Final: ${one} then <svg viewBox="0 0 3 3"><rect`), { markup: one, complete: true });
    assert.deepEqual(extractSvg('Only <svg viewBox="0 0 3 3"><rect\n```\nCut.'), { markup: '<svg viewBox="0 0 3 3"><rect\n', complete: false });
  });

  it('documents in JSON strings and in the raw text keep their order', () => {
    const first = `<svg ${NS} viewBox="0 0 1 1"><rect width="1" height="1"/></svg>`;
    const answer = `${first}\n${JSON.stringify({ svg: FINAL })}`;
    assert.deepEqual(svgCandidates(answer).map((c) => c.markup), [first, FINAL]);
    assert.equal(extractSvg(`${JSON.stringify({ svg: first })}\n${FINAL}`)?.markup, FINAL);
  });
});
