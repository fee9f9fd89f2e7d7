import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '../../contract/openapi.ts';

/** GET /v1/openapi.json: public, generated once at start from the same schemas that validate requests. */
export function registerOpenApiRoute(app: FastifyInstance): void {
  const document = JSON.stringify(buildOpenApiDocument());
  app.get('/v1/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(document));
}
