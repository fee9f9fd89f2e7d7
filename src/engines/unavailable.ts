import { ApiError } from '../contract/errors.ts';
import type { Engine } from './engine.ts';

/**
 * Stands in for an engine whose implementation has not shipped yet: every live request is
 * 503 model_unavailable, which is the truth for the caller. Test keys never reach it.
 */
export function unavailableEngine(reason: string): Engine {
  return {
    // eslint-disable-next-line require-yield
    async *runSvg() {
      throw new ApiError('model_unavailable', { message: `The model is not available: ${reason}` });
    },
  };
}
