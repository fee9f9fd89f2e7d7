import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DRAFT_MAX_CHARS, DraftMaker, type DraftOptions } from '../../src/engines/openai-compatible/drafts.ts';
import { StreamedText } from '../../src/engines/openai-compatible/streamed-text.ts';
import { ThinkSplitter } from '../../src/engines/openai-compatible/think-splitter.ts';
import { hasDrawing } from '../../src/svg/model-output.ts';
import { parseSvg } from '../../src/svg/parse.ts';
import { MODEL_OUTPUT_CORPUS } from '../fixtures/model-outputs.ts';
import { browserImagesLoad, SKIP_BROWSER } from '../helpers/browser.ts';

// Drafts as a client receives them: every one a whole document that renders as sent.

/** Splits text as a model server streams it: a token of 1 to 4 characters per chunk (seeded, so runs repeat). */
function tokens(text: string, seed = 7): string[] {
  const out: string[] = [];
  let state = seed;
  for (let at = 0; at < text.length; ) {
    state = (state * 1103515245 + 12345) >>> 0;
    const size = 1 + (state % 4);
    out.push(text.slice(at, at + size));
    at += size;
  }
  return out;
}

/** Every draft an answer yields when streamed token by token, as the engine makes them. */
function draftsOf(answer: string, options: Partial<DraftOptions> = {}): string[] {
  const text = new StreamedText();
  const maker = new DraftMaker({ fallbackViewBox: '0 0 512 512', intervalMs: 0, ...options }, text);
  const splitter = new ThinkSplitter();
  const drafts: string[] = [];
  for (const token of tokens(answer)) {
    const { content } = splitter.push(token);
    if (content) text.push(content);
    const draft = content ? maker.push(content) : undefined;
    if (draft !== undefined) drafts.push(draft);
  }
  return drafts;
}

const corpusDrafts = MODEL_OUTPUT_CORPUS.map((c) => ({ name: c.name, drafts: draftsOf(c.answer) }));

describe('drafts of streamed model answers', () => {
  it('are complete, well-formed, sanitized documents with something to draw, for every answer of the corpus', () => {
    let total = 0;
    for (const { name, drafts } of corpusDrafts) {
      for (const draft of drafts) {
        total++;
        const root = parseSvg(draft); // strict XML: throws on a root left open or a cut element
        assert.ok(hasDrawing(root), `${name}: a draft with nothing to draw`);
        assert.doesNotMatch(draft, /<script|onload=|javascript:/i, `${name}: an unsanitized draft`);
        assert.match(draft, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/, `${name}: no SVG namespace`);
      }
    }
    const withDrafts = corpusDrafts.filter((c) => c.drafts.length > 0).length;
    assert.ok(withDrafts >= MODEL_OUTPUT_CORPUS.length / 2, `only ${withDrafts} of ${MODEL_OUTPUT_CORPUS.length} answers drafted`);
    assert.ok(total > MODEL_OUTPUT_CORPUS.length, `${total} drafts in all`);
  });

  it('render in a browser <img> exactly as sent', { skip: SKIP_BROWSER, timeout: 60_000 }, async () => {
    const all = corpusDrafts.flatMap(({ name, drafts }) => drafts.map((svg) => ({ name, svg })));
    const loaded = await browserImagesLoad(all.map((d) => d.svg));
    const failed = all.filter((_, i) => !loaded[i]).map((d) => `${d.name}: ${d.svg.slice(0, 120)}`);
    assert.deepEqual(failed, []);
  });

  it('carry the requested viewBox, like the content', () => {
    const drafts = draftsOf('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="5" height="5"/><circle r="2"/></svg>', {
      viewBox: { minX: 0, minY: 0, width: 64, height: 32 },
    });
    assert.ok(drafts.length > 0);
    for (const draft of drafts) assert.match(draft, /^<svg [^>]*viewBox="0 0 64 32"/);
  });

  it('follow the document a model starts over with, not the one it abandoned', () => {
    const answer =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="5" height="5" fill="red"/><path d="M1 1 L2' +
      ' Sorry, let me start again.\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20"><circle r="3" fill="blue"/><circle r="4"/></svg>';
    const drafts = draftsOf(answer);
    assert.match(drafts.at(-1)!, /viewBox="0 0 20 20"/);
    assert.doesNotMatch(drafts.at(-1)!, /fill="red"/);
  });

  it('stop once the SVG passes the draft size, so an answer of any size costs a bounded number of drafts', () => {
    const shapes = Array.from({ length: 20_000 }, (_, i) => `<rect x="${i % 500}" y="${(i * 7) % 500}" width="4" height="4" fill="#${(i * 2654435761 % 0xffffff).toString(16).padStart(6, '0')}"/>`);
    const answer = `Here it is:\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">${shapes.join('')}</svg>`;
    assert.ok(answer.length > 10 * DRAFT_MAX_CHARS);
    const drafts = draftsOf(answer);
    const bytes = drafts.reduce((sum, d) => sum + d.length, 0);
    assert.ok(drafts.length > 5 && drafts.length <= 60, `${drafts.length} drafts`);
    assert.ok(drafts.every((d) => d.length <= DRAFT_MAX_CHARS + 200), 'no draft larger than the draft size');
    assert.ok(bytes <= 12 * DRAFT_MAX_CHARS, `${bytes} bytes of drafts for a ${answer.length}-character answer`);
  });

  it('are not sent again when the document shows nothing new (a comment, an unknown element closing)', () => {
    const circle = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/>';
    const drafts = draftsOf(`${circle}<!-- the eyes next --><foo:bar xmlns:foo="urn:x"/><!-- and the mouth --><rect width="2" height="2"/></svg>`);
    assert.equal(new Set(drafts).size, drafts.length, 'no draft twice in a row');
    assert.equal(drafts.length, 2, drafts.join('\n'));
    assert.doesNotMatch(drafts[0]!, /<rect/);
    assert.match(drafts[1]!, /<rect/);
  });

  it('show everything so far of an answer in thousands of small tokens, in order', () => {
    const shapes = Array.from({ length: 200 }, (_, i) => `<rect x="${i}" y="${i}" width="3" height="3"/>`);
    const answer = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 256 256">${shapes.join('')}</svg>`;
    assert.ok(tokens(answer).length > 2_000);
    const last = draftsOf(answer).at(-1)!;
    const drawn = [...last.matchAll(/<rect x="(\d+)"/g)].map((match) => Number(match[1]));
    assert.ok(drawn.length >= 175, `${drawn.length} of 200 shapes in the last draft`);
    assert.deepEqual(drawn, drawn.map((_, i) => i), 'every shape so far, in order');
  });

  it('do not come from reasoning: an SVG inside <think> is not drafted', () => {
    assert.deepEqual(draftsOf('<think>maybe <svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg></think>'), []);
  });
});

describe('drafts of a document holding a nested <svg>', () => {
  it('keep showing the whole document, not the nested part', () => {
    const answer = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="#def"/><svg x="10" y="10" width="50" height="50" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg><rect x="70" y="70" width="20" height="20" fill="#f80"/></svg>`;
    const drafts = draftsOf(answer);
    assert.ok(drafts.length > 1);
    for (const draft of drafts) assert.match(draft, /^<svg [^>]*viewBox="0 0 100 100"/);
    assert.match(drafts.at(-1)!, /fill="#f80"/);
  });
});
