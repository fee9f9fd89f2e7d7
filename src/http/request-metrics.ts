import type { FastifyInstance } from 'fastify';

/** Told of every answered request (metrics), by its route pattern: a raw URL never becomes a label. */
export interface RequestObserver {
  requestCompleted(method: string, route: string | undefined, status: number, seconds: number): void;
}

export function registerRequestMetrics(app: FastifyInstance, observer: RequestObserver): void {
  // A callback hook: no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    observer.requestCompleted(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
