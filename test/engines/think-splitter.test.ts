import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ThinkSplitter } from '../../src/engines/openai-compatible/think-splitter.ts';
import { svgFromModelText } from '../../src/svg/model-output.ts';
import { SvgParseError } from '../../src/svg/parse.ts';

/** The answer and reasoning of a stream split into the given chunks. */
function split(chunks: string[]): { content: string; reasoning: string } {
  const splitter = new ThinkSplitter();
  let content = '';
  let reasoning = '';
  for (const chunk of [...chunks.map((c) => splitter.push(c)), splitter.flush()]) {
    content += chunk.content;
    reasoning += chunk.reasoning;
  }
  return { content, reasoning };
}

/** The text cut at every position into two chunks, and into one-character chunks. */
function everySplit(text: string): string[][] {
  const ways = [[text], [...text]];
  for (let at = 1; at < text.length; at++) ways.push([text.slice(0, at), text.slice(at)]);
  return ways;
}

const NS = 'xmlns="http://www.w3.org/2000/svg"';
const ANSWER = `<svg ${NS} viewBox="0 0 4 4"><rect width="4" height="4" fill="teal"/></svg>`;
const DRAFT = `<svg ${NS} viewBox="0 0 9 9"><circle r="3"/></svg>`;

describe('inline reasoning', () => {
  for (const name of ['think', 'thinking', 'reasoning', 'reflection']) {
    it(`a <${name}> block is reasoning and the rest is the answer, however the stream is cut`, () => {
      const text = `<${name}>Plan: a square. Draft: ${DRAFT}</${name}>\n${ANSWER}`;
      for (const chunks of everySplit(text)) {
        assert.deepEqual(split(chunks), { content: `\n${ANSWER}`, reasoning: `Plan: a square. Draft: ${DRAFT}` }, JSON.stringify(chunks));
      }
    });
  }

  it('the tags are read whatever their case, and each block ends only at its own end tag', () => {
    const text = `<Thinking>a </think> b </THINKING>answer<REFLECTION>c</reflection> done`;
    for (const chunks of everySplit(text)) {
      assert.deepEqual(split(chunks), { content: 'answer done', reasoning: 'a </think> b c' }, JSON.stringify(chunks));
    }
  });

  it('a partial tag that turns out to be text stays in the answer', () => {
    for (const chunks of everySplit('a <thin b <reasoningx> c <')) {
      assert.deepEqual(split(chunks), { content: 'a <thin b <reasoningx> c <', reasoning: '' }, JSON.stringify(chunks));
    }
  });

  it('a block never closed keeps everything after it as reasoning', () => {
    assert.deepEqual(split(['Sure. <reasoning>still ', 'thinking <svg/>']), { content: 'Sure. ', reasoning: 'still thinking <svg/>' });
  });

  it('an SVG drafted while thinking, with no answer after it, leaves no SVG to deliver', () => {
    const { content } = split([`<thinking>Maybe this: ${DRAFT}`, '</thinking>\nI could not finish the drawing.']);
    assert.throws(() => svgFromModelText(content, { truncated: false, fallbackViewBox: '0 0 512 512' }), (error: unknown) => error instanceof SvgParseError && /contains no SVG/.test(error.message));
  });

  it('a large chunk full of tags is split in one pass', () => {
    const block = '<think>x</think>y';
    const text = block.repeat(50_000);
    const { content, reasoning } = split([text]);
    assert.equal(content, 'y'.repeat(50_000));
    assert.equal(reasoning, 'x'.repeat(50_000));
  });
});
