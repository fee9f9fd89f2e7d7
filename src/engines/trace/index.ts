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
 * The built-in tracer: vectorizes raster images in the tracer threads and normalizes SVG
 * inputs. The input is loaded (fetched and checked) before the first event, so a bad URL or
 * image answers as a plain 400/413 even when streaming.
 */
export function createTraceEngine({ media, tracePool }: TraceEngineServices): Engine {
  return {
    async *runSvg(job: SvgJob): AsyncGenerator<EngineEvent> {
      if (job.operation !== 'svg_vectorize') {
        throw new ApiError('invalid_request', { param: 'model', message: 'The built-in tracer only vectorizes images.' });
      }
      const image = await media.loadImage(job.image, job.signal);
      yield { type: 'generating', index: 0 };
      const task: TraceTask = {
        input: image.format === 'svg' ? { kind: 'svg', markup: image.markup } : { kind: 'raster', bytes: image.bytes },
        autoCrop: job.autoCrop,
        targetSize: job.targetSize,
        effort: job.reasoningEffort ?? 'medium',
      };
      const outcome = await tracePool.run(task, job.signal);
      if (!outcome.ok) {
        throw new ApiError('invalid_request', {
          param: job.image.param,
          message: `Invalid image in '${job.image.param}': the image data could not be decoded.`,
        });
      }
      yield { type: 'content', index: 0, svg: outcome.svg };
    },
  };
}
