// The runner's part in animations, whatever the engine: timing measured from the delivered
// document, svg_score from the engine or from rendered checks, and refusal of what does not move.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Catalog } from '../../src/config/catalog.ts';
import type { CatalogEntry } from '../../src/config/schema.ts';
import { ApiError } from '../../src/contract/errors.ts';
import type { SvgStreamEvent } from '../../src/contract/svgs.ts';
import type { Engine, EngineEvent, SvgJob } from '../../src/engines/engine.ts';
import { measureAnimation, type AnimationReport } from '../../src/svg/animation/measure.ts';
import { collectSvgResponse, runSvgJob } from '../../src/operations/svg-run.ts';

const ENTRY = {
  id: 'scripted',
  engine: 'sandbox',
  owned_by: 'test',
  created: 0,
  operations: ['svg_animate'],
  billing: { kind: 'fixed_credit', credits: { svg_generate: 0, svg_vectorize: 0, svg_animate: 3 } },
  max_references: 0,
  options: {},
} as unknown as CatalogEntry;
const MODEL = new Catalog([ENTRY], 1000).all()[0]!;
const JOB: SvgJob = { operation: 'svg_animate', requestId: 'req_test', model: MODEL, seed: 's', viewBox: null, source: { markup: '<svg/>', param: 'svg_source' } as never, streaming: true, signal: new AbortController().signal };

const OPEN = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">';
const MOVING = `${OPEN}<rect width="40" height="40"><animate attributeName="x" values="0;40;0" dur="1.5s" repeatCount="indefinite"/></rect><circle cx="70" cy="70" r="5"><animate attributeName="r" from="5" to="9" begin="0.25s" dur="0.5s" fill="freeze"/></circle></svg>`;
const STATIC = `${OPEN}<rect width="40" height="40"/></svg>`;

function scripted(events: EngineEvent[]): Engine {
  return {
    async *runSvg() {
      yield* events;
    },
  };
}

async function run(events: EngineEvent[], measure: (svg: string, render: boolean) => Promise<AnimationReport>) {
  const calls: boolean[] = [];
  const out: SvgStreamEvent[] = [];
  const hooks = {
    measureAnimation: (svg: string, render: boolean) => {
      calls.push(render);
      return measure(svg, render);
    },
  };
  try {
    for await (const event of runSvgJob(JOB, scripted(events), hooks)) out.push(event);
  } catch (error) {
    return { out, calls, error: error as ApiError };
  }
  return { out, calls, error: undefined };
}

const inProcess = async (svg: string, render: boolean) => measureAnimation(svg, { render });

describe('animations in the runner', () => {
  it('measures timing from the delivered document and scores it by rendering when the engine gives no score', async () => {
    const { out, calls } = await run([{ type: 'generating', index: 0 }, { type: 'content', index: 0, markup: MOVING, loopPeriodMs: 99, openingAnimationMs: 99 }], inProcess);
    assert.deepEqual(calls, [true]);
    const content = out.at(-1) as Extract<SvgStreamEvent, { type: 'content' }>;
    assert.equal(content.type, 'content');
    assert.equal(content.loop_period_ms, 1500, 'measured, not the engine’s claim');
    assert.equal(content.opening_animation_ms, 750);
    assert.equal(content.svg_score, 1);
    assert.equal(content.credits, 3);
  });

  it("an engine's own score is used and nothing is rendered", async () => {
    const { out, calls } = await run([{ type: 'score', svgScore: 0.93 }, { type: 'content', index: 0, markup: MOVING }], inProcess);
    assert.deepEqual(calls, [false]);
    const response = await collectSvgResponse((async function* () { yield* out; })(), true);
    assert.equal(response.svg_score, 0.93);
    assert.equal(response.data[0]!.loop_period_ms, 1500);
  });

  it('an output with no animation fails with model_error, even from an engine that scores itself', async () => {
    for (const events of [[{ type: 'content', index: 0, markup: STATIC }], [{ type: 'score', svgScore: 1 }, { type: 'content', index: 0, markup: STATIC }]] as EngineEvent[][]) {
      const { out, error } = await run(events, inProcess);
      assert.equal(out.length, 0);
      assert.equal(error?.code, 'model_error');
      assert.match(error!.message, /does not move/);
    }
  });

  it('after the first event, the refusal is an error event; nothing counts as delivered', async () => {
    const delivered: unknown[] = [];
    const out: SvgStreamEvent[] = [];
    for await (const event of runSvgJob(JOB, scripted([{ type: 'generating', index: 0 }, { type: 'content', index: 0, markup: STATIC }]), {
      delivered: async (usage) => void delivered.push(usage),
      measureAnimation: inProcess,
    })) out.push(event);
    assert.deepEqual(out.map((e) => e.type), ['generating', 'error']);
    assert.equal(delivered.length, 0, 'not charged');
  });

  it('a renderer at capacity fails the output with its own error', async () => {
    const busy = async () => {
      throw new ApiError('model_unavailable', { message: 'busy', retryAfter: 2 });
    };
    const { error } = await run([{ type: 'content', index: 0, markup: MOVING }], busy);
    assert.equal(error?.code, 'model_unavailable');
  });
});
