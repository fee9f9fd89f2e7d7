import type { FastifyInstance } from 'fastify';
import { ApiError } from '../contract/errors.ts';

export const TRACE_ID_MAX_LENGTH = 256;

/**
 * Every response carries X-Request-ID (the id Fastify minted for the request); a valid
 * x-trace-id is echoed as X-Trace-ID, an invalid one is refused before anything else happens.
 */
export function registerRequestContext(app: FastifyInstance): void {
  // A callback hook: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-ID', request.id);
    const trace = request.headers['x-trace-id'];
    if (trace === undefined) return done();
    if (typeof trace !== 'string' || trace.length < 1 || trace.length > TRACE_ID_MAX_LENGTH) {
      return done(
        new ApiError('invalid_request', {
          message: `The x-trace-id header must be 1 to ${TRACE_ID_MAX_LENGTH} characters.`,
        }),
      );
    }
    reply.header('X-Trace-ID', trace);
    done();
  });
}
