import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/contract/errors.ts';
import type { EngineEvent, SvgJob } from '../../../src/engines/engine.ts';
import type { TraceOutcome, TraceTask } from '../../../src/engines/trace/job.ts';
import { createTraceEngine, type TraceEngineServices } from '../../../src/engines/trace/index.ts';
import type { TraceProgress } from '../../../src/engines/trace/pool.ts';
import type { CheckedImage } from '../../../src/media/image.ts';

const PNG: CheckedImage = { format: 'png', bytes: Buffer.from('png bytes'), width: 4, height: 4, frames: 1 };

/** The engine over a pool that answers `outcome`, after reporting the image accepted when `accept`; what happened, in order. */
function engine(outcome: TraceOutcome, accept: boolean, capacity = true) {
  const log: string[] = [];
  const tasks: TraceTask[] = [];
  const services = {
    media: {
      loadImage: async (ref: { image: CheckedImage }) => (log.push('load'), ref.image),
    },
    tracePool: {
      assertCapacity: () => {
        log.push('capacity');
        if (!capacity) throw new ApiError('model_unavailable', { retryAfter: 1 });
      },
      run: async (task: TraceTask, _signal: AbortSignal, onProgress?: (progress: TraceProgress) => void) => {
        tasks.push(task);
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (accept) onProgress?.('accepted');
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.push('traced');
        return outcome;
      },
    },
  } as unknown as TraceEngineServices;
  return { engine: createTraceEngine(services), log, tasks };
}

const job = (fields: Partial<SvgJob> = {}) =>
  ({ operation: 'svg_vectorize', image: { image: PNG, param: 'image' }, autoCrop: true, targetSize: 64, signal: new AbortController().signal, ...fields }) as SvgJob;

async function events(run: AsyncIterable<EngineEvent>, log?: string[]): Promise<EngineEvent[]> {
  const out: EngineEvent[] = [];
  for await (const event of run) (out.push(event), log?.push(event.type));
  return out;
}

describe('the trace engine', () => {
  it('sends the checked image and the options to a tracer, announces generating once the image decoded, then the SVG as markup for the pipeline', async () => {
    const { engine: trace, log, tasks } = engine({ ok: true, svg: '<svg/>' }, true);
    const out = await events(trace.runSvg(job({ reasoningEffort: 'high' })), log);
    assert.deepEqual(out, [{ type: 'generating', index: 0 }, { type: 'content', index: 0, markup: '<svg/>' }]);
    assert.deepEqual(log, ['capacity', 'load', 'generating', 'traced', 'content']);
    assert.deepEqual(tasks, [{ input: { kind: 'raster', bytes: PNG.bytes }, autoCrop: true, targetSize: 64, effort: 'high' }]);
  });

  it('answers undecodable image data as a plain 400 on the image field, before any event', async () => {
    const { engine: trace } = engine({ ok: false, reason: 'undecodable', detail: 'bad' }, false);
    const seen: EngineEvent[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of trace.runSvg(job())) seen.push(event);
      })(),
      (error: unknown) => error instanceof ApiError && error.code === 'invalid_request' && error.param === 'image' && /could not be decoded/.test(error.message),
    );
    assert.deepEqual(seen, []);
  });

  it('checks the tracers’ capacity before it loads the input', async () => {
    const { engine: trace, log } = engine({ ok: true, svg: '<svg/>' }, true, false);
    await assert.rejects(events(trace.runSvg(job())), (error: unknown) => error instanceof ApiError && error.code === 'model_unavailable');
    assert.deepEqual(log, ['capacity']);
  });

  it('refuses any operation but vectorizing, on the model', async () => {
    const { engine: trace, log } = engine({ ok: true, svg: '<svg/>' }, true);
    await assert.rejects(events(trace.runSvg(job({ operation: 'svg_generate' } as Partial<SvgJob>))), (error: unknown) => error instanceof ApiError && error.param === 'model');
    assert.deepEqual(log, []);
  });
});
