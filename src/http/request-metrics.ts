import type { FastifyInstance } from 'fastify';

/** Told of every answered request (metrics), by its route pattern: a raw URL never becomes a label. */
export interface RequestObserver {
  requestCompleted(method: string, route: string | undefined, status: number, seconds: number): void;
}

/** The status counted for a request whose client closed the connection first (nginx's convention). */
export const CLIENT_CLOSED_STATUS = 499;

export function registerRequestMetrics(app: FastifyInstance, observer: RequestObserver): void {
  // Callback hooks: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    // A response whose client left never finishes, so onResponse never runs for it.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) observer.requestCompleted(request.method, request.routeOptions.url, CLIENT_CLOSED_STATUS, reply.elapsedTime / 1000);
    });
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    observer.requestCompleted(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
