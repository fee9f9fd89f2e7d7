import { ApiError } from '../../contract/errors.ts';
import type { MediaInputs } from '../../media/inputs.ts';
import type { Engine, EngineEvent, SvgJob } from '../engine.ts';
import type { TraceTask } from './job.ts';
import type { TracePool } from './pool.ts';

export interface TraceEngineServices {
  media: MediaInputs;
  tracePool: TracePool;
}

/**
 * The built-in tracer: vectorizes raster images in the tracer processes and normalizes SVG
 * inputs. The input is loaded (fetched and checked) before the first event, so a bad URL or
 * image answers as a plain 400/413 even when streaming.
 */
export function createTraceEngine({ media, tracePool }: TraceEngineServices): Engine {
  return {
    async *runSvg(job: SvgJob): AsyncGenerator<EngineEvent> {
      if (job.operation !== 'svg_vectorize') {
        throw new ApiError('invalid_request', { param: 'model', message: 'The built-in tracer only vectorizes images.' });
      }
      tracePool.assertCapacity(); // before fetching a URL input, not after
      const image = await media.loadImage(job.image, job.signal);
      const task: TraceTask = {
        input: image.format === 'svg' ? { kind: 'svg', markup: image.markup } : { kind: 'raster', bytes: image.bytes },
        autoCrop: job.autoCrop,
        targetSize: job.targetSize,
        effort: job.reasoningEffort ?? 'medium',
      };
      // `generating` waits until the worker has decoded the image, so undecodable data is
      // still a plain 400 (not an error event in a 200 stream).
      let markAccepted!: () => void;
      const accepted = new Promise<undefined>((resolve) => (markAccepted = () => resolve(undefined)));
      const running = tracePool.run(task, job.signal, markAccepted);
      const early = await Promise.race([accepted, running]);
      const announced = early === undefined;
      if (announced) yield { type: 'generating', index: 0 };
      const outcome = early ?? (await running);
      if (!outcome.ok) {
        const detail =
          outcome.reason === 'undecodable'
            ? 'the image data could not be decoded'
            : `auto_crop could not render the SVG to find its subject: ${outcome.detail}`;
        throw new ApiError('invalid_request', { param: job.image.param, message: `Invalid image in '${job.image.param}': ${detail}.` });
      }
      if (!announced) yield { type: 'generating', index: 0 };
      yield { type: 'content', index: 0, markup: outcome.svg };
    },
  };
}
