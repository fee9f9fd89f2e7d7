import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage } from '../../../src/engines/openai-compatible/completion.ts';
import { EDIT_SYSTEM_PROMPT, REVIEW_SYSTEM_PROMPT } from '../../../src/engines/openai-compatible/prompts.ts';
import type { SvgRenderer } from '../../../src/engines/openai-compatible/renderer.ts';
import { parseVerdict, REVIEW_RENDER_SIDE, reviewEdit } from '../../../src/engines/openai-compatible/review.ts';
import { finishSvg } from '../../../src/svg/pipeline.ts';

// The review loop of an edit with max_review_steps: which version the client is given, what the
// reviewer and the redo calls are sent, and the `generating` progress lines.

/** Version n of the drawing, through the pipeline as every delivered SVG is. */
const version = (n: number) => finishSvg(`<svg xmlns="http://www.w3.org/2000/svg"><rect width="${n}" height="${n}"/></svg>`);
const verdict = (score: number, faults: string[] = []) => `Here is my review:\n\`\`\`json\n${JSON.stringify({ score, done: false, faults })}\n\`\`\``;

/** A loop whose reviewer answers in turn from `answers`, and whose redos return version 1, 2, … */
function scriptedLoop(steps: number, answers: string[]) {
  const reviews: ChatMessage[][] = [];
  const redos: ChatMessage[][] = [];
  const statuses: string[] = [];
  const renders: { svg: string; side: number }[] = [];
  const renderer = {
    png: async (svg: string, side: number) => {
      renders.push({ svg, side });
      return Buffer.from(`png of ${svg}`);
    },
  } as unknown as SvgRenderer; // the loop only renders PNGs
  const loop = {
    instruction: 'make it blue',
    svg: version(0),
    steps,
    renderer,
    signal: new AbortController().signal,
    review: async (messages: ChatMessage[]) => {
      reviews.push(messages);
      return answers[reviews.length - 1] ?? 'no more answers';
    },
    redo: async (messages: ChatMessage[]) => {
      redos.push(messages);
      return version(redos.length);
    },
    status: (text: string) => statuses.push(text),
  };
  return { loop, reviews, redos, statuses, renders };
}

describe('reviewEdit', () => {
  it('reviews every version, the last one too, and delivers the earliest of the best', async () => {
    const { loop, reviews, redos } = scriptedLoop(2, [verdict(5, ['too red']), verdict(8, ['a gap']), verdict(8, ['still a gap'])]);
    assert.equal(await reviewEdit(loop), version(1));
    assert.equal(reviews.length, 3);
    assert.equal(redos.length, 2);
  });

  it('delivers the first edit when a revision made it worse', async () => {
    const { loop } = scriptedLoop(1, [verdict(7, ['a gap']), verdict(3, ['broken'])]);
    assert.equal(await reviewEdit(loop), version(0));
  });

  it('stops at a verdict with no faults', async () => {
    const { loop, reviews, redos, statuses } = scriptedLoop(3, [verdict(9)]);
    assert.equal(await reviewEdit(loop), version(0));
    assert.deepEqual([reviews.length, redos.length], [1, 0]);
    assert.deepEqual(statuses, ['Review 1: 9/10, done']);
  });

  it('ends the rounds at an answer that is not a verdict, delivering the best seen', async () => {
    const { loop, redos } = scriptedLoop(3, [verdict(6, ['a gap']), 'I cannot review this image.']);
    assert.equal(await reviewEdit(loop), version(0));
    assert.equal(redos.length, 1);
    // With no verdict at all, the first edit is delivered as it was.
    assert.equal(await reviewEdit(scriptedLoop(3, ['no idea']).loop), version(0));
  });

  it('sends the reviewer the drawing rendered as a PNG, and the redo the faults and the current SVG', async () => {
    const { loop, reviews, redos, statuses, renders } = scriptedLoop(1, [verdict(4, ['the sky is red', 'no sun']), verdict(9)]);
    await reviewEdit(loop);
    assert.deepEqual(renders[0], { svg: version(0), side: REVIEW_RENDER_SIDE });
    const [system, user] = reviews[0]!;
    assert.deepEqual(system, { role: 'system', content: REVIEW_SYSTEM_PROMPT });
    assert.deepEqual(user!.content, [
      { type: 'text', text: 'Instruction: make it blue\n\nThe attached image is the edited drawing. Review it.' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.from(`png of ${version(0)}`).toString('base64')}` } },
    ]);
    assert.equal(redos[0]![0]!.content, EDIT_SYSTEM_PROMPT);
    const redo = redos[0]![1]!.content as string;
    assert.ok(redo.includes('- the sky is red\n- no sun'), redo);
    assert.ok(redo.endsWith(`Current SVG document:\n${version(0)}`), redo);
    assert.deepEqual(statuses, ['Review 1: 4/10; fixing: the sky is red; no sun', 'Review 2: 9/10, done']);
  });

  it('with no review steps, judges the first edit once and redoes nothing', async () => {
    const { loop, reviews, redos } = scriptedLoop(0, [verdict(2, ['wrong colour'])]);
    assert.equal(await reviewEdit(loop), version(0));
    assert.deepEqual([reviews.length, redos.length], [1, 0]);
  });
});

describe('parseVerdict', () => {
  it('reads the JSON in a fenced answer with prose around it', () => {
    assert.deepEqual(parseVerdict(verdict(6, ['a gap'])), { score: 6, done: false, faults: ['a gap'] });
  });

  it('clamps the score to 0–10 and keeps only faults that say something', () => {
    assert.deepEqual(parseVerdict('{"score": 14, "faults": ["", "  ", 3, "off-centre"]}'), { score: 10, done: false, faults: ['off-centre'] });
    assert.deepEqual(parseVerdict('{"score": -2, "done": true, "faults": ["x"]}'), { score: 0, done: true, faults: ['x'] });
  });

  it('takes a verdict without faults as done, whatever `done` says', () => {
    assert.deepEqual(parseVerdict('{"score": 7, "done": false, "faults": []}'), { score: 7, done: true, faults: [] });
  });

  it('reads the first object with a score, whatever braces the prose around it holds', () => {
    const expected = { score: 7, done: true, faults: [] };
    assert.deepEqual(parseVerdict('{"score": 7, "faults": []} and then the {stroke} is fine'), expected);
    assert.deepEqual(parseVerdict('The {stroke} looks off. { {"score": 7, "faults": []}'), expected);
    assert.deepEqual(parseVerdict('{"score": 7, "faults": [], "note": "a } in a string"} {x}'), expected);
  });

  it('refuses answers that are no verdict', () => {
    for (const answer of ['Looks good to me.', '{"score": "8"}', '{"done": true}', '{"score": 8,', '{"score": 1e999}', '} {']) {
      assert.equal(parseVerdict(answer), undefined, answer);
    }
  });
});
