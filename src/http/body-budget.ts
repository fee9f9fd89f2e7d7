import { Transform } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../contract/errors.ts';

/**
 * A cap on request-body bytes being received and parsed at once, across all requests, so a
 * burst of large uploads cannot exhaust memory. A request whose body does not fit is refused
 * with 429 rate_limit_exceeded before (or while) it is read; its bytes are returned when its
 * response ends.
 */
export class ByteBudget {
  private used = 0;
  constructor(readonly capacity: number) {}

  take(bytes: number): boolean {
    if (this.used + bytes > this.capacity) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  get inUse(): number {
    return this.used;
  }
}

const RETRY_AFTER_SECONDS = 1;

function busy(): ApiError {
  return new ApiError('rate_limit_exceeded', {
    message: 'The server is receiving too much request data at once; retry shortly.',
    retryAfter: RETRY_AFTER_SECONDS,
    headers: { 'X-RateLimit-Scope': 'server', 'X-RateLimit-Dimension': 'request' },
  });
}

export function registerBodyBudget(app: FastifyInstance, budget: ByteBudget): void {
  // A callback hook: no promise per request.
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (request.method === 'GET' || request.method === 'HEAD') return done(null, payload);
    let held = 0;
    reply.raw.once('close', () => budget.give(held));
    const declared = Number(request.headers['content-length']);
    if (Number.isSafeInteger(declared) && declared >= 0) {
      if (!budget.take(declared)) return done(busy());
      held = declared;
      return done(null, payload);
    }
    // No Content-Length (chunked): take the budget as the bytes arrive.
    const metered = payload.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          if (!budget.take(chunk.length)) return callback(busy());
          held += chunk.length;
          callback(null, chunk);
        },
      }),
    );
    done(null, metered);
  });
}
