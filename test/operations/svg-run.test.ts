import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Catalog } from '../../src/config/catalog.ts';
import type { CatalogEntry } from '../../src/config/schema.ts';
import type { SvgStreamEvent } from '../../src/contract/svgs.ts';
import type { Engine, EngineEvent, SvgJob } from '../../src/engines/engine.ts';
import { collectSvgResponse, runSvgJob } from '../../src/operations/svg-run.ts';
import { EventChannel } from '../../src/engines/event-channel.ts';

const ENTRY = {
  id: 'scripted',
  engine: 'sandbox',
  owned_by: 'test',
  created: 0,
  operations: ['svg_generate'],
  billing: { kind: 'fixed_credit', credits: { svg_generate: 2, svg_vectorize: 0 } },
  max_references: 0,
  options: {},
} as unknown as CatalogEntry;
const MODEL = new Catalog([ENTRY], 1000).all()[0]!;

function job(outputs = 1): SvgJob {
  return {
    operation: 'svg_generate',
    requestId: 'req_test',
    model: MODEL,
    seed: 'seed',
    viewBox: null,
    prompt: 'p',
    references: [],
    outputs,
    streaming: true,
    signal: new AbortController().signal,
  };
}

/** An engine that plays back a script, as a model server would stream it. */
function scripted(events: EngineEvent[]): Engine {
  return {
    async *runSvg() {
      yield* events;
    },
  };
}

async function run(events: EngineEvent[], outputs = 1): Promise<SvgStreamEvent[]> {
  const out: SvgStreamEvent[] = [];
  for await (const event of runSvgJob(job(outputs), scripted(events))) out.push(event);
  return out;
}

const OPEN = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">';
const LEVEL = (n: number) => `<g id="l${n}">${`<use href="#l${n - 1}"/>`.repeat(10)}</g>`;

describe('model output passes the same sanitizer as inputs', () => {
  it('never emits a content document that expands past the budget: the output fails with model_error', async () => {
    const bomb = `${OPEN}<defs><rect id="l0"/>${Array.from({ length: 10 }, (_, i) => LEVEL(i + 1)).join('')}</defs><use href="#l10"/></svg>`;
    const events = await run([
      { type: 'content', index: 0, markup: bomb },
      { type: 'content', index: 1, markup: `${OPEN}<rect width="1" height="1"/></svg>` },
    ], 2);
    const contents = events.filter((e) => e.type === 'content');
    assert.equal(contents.length, 1);
    assert.equal(contents[0]!.index, 1);
    const error = events.at(-1)!;
    assert.equal(error.type, 'error');
    assert.equal((error as { code: string }).code, 'model_error');
    assert.match((error as { message: string }).message, /more than 250000/);
  });

  it('sends every draft as a whole sanitized document, and skips a draft that would expand past the budget', async () => {
    const levels = Array.from({ length: 10 }, (_, i) => LEVEL(i + 1));
    // The document as an engine might preview it while it grows: each draft a whole document.
    const growing = [5, 6].map((depth) => `${OPEN}<rect id="l0"/>${levels.slice(0, depth).join('')}<script>alert(1)</script></svg>`);
    const events = await run([
      { type: 'draft', index: 0, markup: growing[0]! },
      { type: 'draft', index: 0, markup: growing[1]! },
      { type: 'draft', index: 0, markup: `${OPEN}<circle r="1"/></svg>` },
    ]);
    const drafts = events.filter((e) => e.type === 'draft') as { svg: string; update_type?: string }[];
    // Level 5 draws 10^5 elements (within the budget), level 6 10^6 (past it).
    assert.equal(drafts.length, 2, 'the draft past the budget is skipped; the next safe one is sent');
    assert.ok(drafts[0]!.svg.includes('<g id="l5">') && !drafts[0]!.svg.includes('<script'));
    assert.ok(drafts[1]!.svg.includes('<circle'));
    for (const draft of drafts) {
      assert.equal(draft.update_type, 'snapshot');
      assert.match(draft.svg, /^<svg [^>]*>.*<\/svg>$/s, 'a complete document, its root closed');
    }
  });

  it('collects a partly refused batch into fewer documents, billed per delivered output', async () => {
    const bomb = `${OPEN}<g id="a"><use href="#a"/></g></svg>`;
    const response = await collectSvgResponse(
      runSvgJob(job(2), scripted([
        { type: 'content', index: 0, markup: bomb },
        { type: 'content', index: 1, markup: `${OPEN}<rect/></svg>` },
      ])),
      false,
    );
    assert.equal(response.data.length, 1);
    assert.equal(response.credits, 2);
  });

  it('takes each event out of the result that brought it, once it is turned into its wire event', async () => {
    // The results an engine's iterator hands over, kept here as the promise that carried one
    // keeps it: a result still holding its event would keep a draft's whole document alive.
    const script: EngineEvent[] = [
      { type: 'generating', index: 0 },
      { type: 'draft', index: 0, markup: `${OPEN}<rect width="1" height="1"/></svg>` },
      { type: 'content', index: 0, markup: `${OPEN}<circle r="1"/></svg>` },
    ];
    const handed: IteratorResult<EngineEvent>[] = [];
    const engine: Engine = {
      runSvg: () => ({
        [Symbol.asyncIterator]: () => ({
          next: async () => {
            const result: IteratorResult<EngineEvent> = script.length > 0 ? { value: script.shift()!, done: false } : { value: undefined, done: true };
            handed.push(result);
            return result;
          },
        }),
      }),
    };
    const out: SvgStreamEvent[] = [];
    for await (const event of runSvgJob(job(), engine)) out.push(event);
    assert.deepEqual(out.map((event) => event.type), ['generating', 'draft', 'content']);
    assert.equal(handed.length, 4);
    for (const result of handed) assert.equal(result.value, undefined, 'no result still holds its event');
  });

  it('pushes a pushing engine\'s events through as they come, a content event counted before what follows it, billing settled before the end', async () => {
    const channel = new EventChannel<EngineEvent>(1);
    const engine: Engine = { runSvg: () => channel.events(async () => channel.push({ type: 'generating', index: 0 })) };
    const calls: string[] = [];
    let counted: (() => void) | undefined;
    const events = runSvgJob(job(), engine, {
      delivered: () => {
        calls.push('delivered');
        return new Promise<void>((resolve) => (counted = resolve));
      },
      ended: async () => void calls.push('ended'),
    });
    const first = await events.next();
    assert.equal(first.value?.type, 'generating');
    const seen: string[] = [];
    let end: unknown = 'open';
    events.listen({ event: (event) => seen.push(event.type), end: (error) => (end = error) });

    channel.push({ type: 'draft', index: 0, markup: `${OPEN}<rect width="1" height="1"/></svg>` });
    assert.deepEqual(seen, ['draft'], 'the draft reached the consumer in the tick the engine pushed it');
    channel.push({ type: 'content', index: 0, markup: `${OPEN}<circle r="1"/></svg>` });
    channel.push({ type: 'reasoning', index: 0, text: 'after the content' });
    channel.done();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seen, ['draft'], 'nothing passes a content event still being counted');
    assert.deepEqual(calls, ['delivered']);
    counted!();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seen, ['draft', 'content', 'reasoning']);
    assert.deepEqual(calls, ['delivered', 'ended']);
    assert.equal(end, undefined, 'the stream ended without an error, after billing settled');
  });

  it('stops a pushing engine and settles billing once when the consumer leaves', async () => {
    let stopped = 0;
    let ended = 0;
    const channel = new EventChannel<EngineEvent>(1);
    const engine: Engine = { runSvg: () => channel.events(async () => channel.push({ type: 'generating', index: 0 }), () => stopped++) };
    const events = runSvgJob(job(), engine, { ended: async () => void ended++ });
    await events.next();
    events.listen({ event: () => undefined, end: () => undefined });
    await events.return();
    await events.return();
    assert.equal(stopped, 1);
    assert.equal(ended, 1);
  });
});

