import { ApiError } from '../../contract/errors.ts';
import type { MediaInputs } from '../../media/inputs.ts';
import { SvgParseError } from '../../svg/parse.ts';
import type { Engine, EngineEvent, SvgJob } from '../engine.ts';
import { NothingToAnimateError, animate } from './animator.ts';

export interface MotionEngineServices {
  media: MediaInputs;
}

/**
 * The built-in animator: animates the supplied SVG on the server with CSS keyframes, no model
 * server needed. The work is a few milliseconds of arithmetic on the parsed drawing (no
 * rendering), so it runs in the request. The source is loaded (fetched and checked) before the
 * first event, so a bad URL or SVG answers as a plain 400 even when streaming.
 */
export function createMotionEngine({ media }: MotionEngineServices): Engine {
  return {
    async *runSvg(job: SvgJob): AsyncGenerator<EngineEvent> {
      if (job.operation !== 'svg_animate') {
        throw new ApiError('invalid_request', { param: 'model', message: 'The built-in animator only animates SVGs.' });
      }
      const source = await media.loadSvg(job.source, job.signal);
      // Animations take their SVG as svg_source only: inline markup came from its base64.
      const param = 'param' in job.source ? job.source.param : 'svg_source.base64';
      let animation;
      try {
        animation = animate(source, job.prompt);
      } catch (error) {
        if (error instanceof NothingToAnimateError) {
          throw new ApiError('invalid_request', { param, message: `The SVG in '${param}' draws nothing to animate.` });
        }
        if (error instanceof SvgParseError) {
          throw new ApiError('invalid_request', { param, message: `Invalid SVG in '${param}': ${error.message}` });
        }
        throw error;
      }
      job.signal.throwIfAborted();
      const names = animation.motions.map((m) => m.motion).join(', ');
      yield { type: 'generating', index: 0, text: `Animating: ${names}.` };
      yield {
        type: 'content',
        index: 0,
        markup: animation.svg,
        loopPeriodMs: animation.loopPeriodMs,
        openingAnimationMs: animation.openingAnimationMs,
      };
    },
  };
}
