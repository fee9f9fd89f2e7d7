import type { FastifyInstance } from 'fastify';
import { ENDPOINTS, routePath } from '../../contract/endpoints.ts';
import { normalizeResponsesBody, type ResponsesRequest } from '../../contract/responses.ts';
import { createResponse } from '../../operations/respond.ts';
import type { HttpDeps } from '../deps.ts';
import { operationContext } from '../operation-context.ts';

export function registerResponsesRoutes(app: FastifyInstance, deps: HttpDeps): void {
  const endpoint = ENDPOINTS.createResponse;
  app.post<{ Body: ResponsesRequest }>(
    routePath(endpoint.path),
    {
      onRequest: [deps.auth(endpoint.auth), deps.limit('requests.responses')],
      preValidation: async (request) => normalizeResponsesBody(request.body),
      bodyLimit: deps.bodyLimits.responses,
      schema: { body: endpoint.body },
    },
    async (request, reply) => createResponse(deps.operations, operationContext(request, reply), request.body),
  );
}
