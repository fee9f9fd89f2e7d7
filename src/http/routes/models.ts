import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../contract/errors.ts';
import { ENDPOINTS, routePath } from '../../contract/endpoints.ts';
import type { ModelList } from '../../contract/models.ts';
import { modelNotFound } from '../../operations/resolve-model.ts';
import type { HttpDeps } from '../deps.ts';
import { principalOf } from '../auth.ts';

export function registerModelRoutes(app: FastifyInstance, deps: HttpDeps): void {
  const list = ENDPOINTS.listModels;
  app.get(
    routePath(list.path),
    { onRequest: [deps.auth(list.auth), deps.limit('requests.catalog')], schema: { response: { 200: list.response } } },
    async (request): Promise<ModelList> => ({
      object: 'list',
      data: deps.catalog.list(principalOf(request).organizationId).map((model) => model.model),
    }),
  );

  const get = ENDPOINTS.getModel;
  app.get<{ Params: { model: string } }>(
    routePath(get.path),
    {
      onRequest: [
        // `/v1/models/` (an empty id) is no endpoint at all, with or without a key.
        async (request) => {
          if ((request.params as { model: string }).model === '') {
            throw new ApiError('invalid_request', { status: 404, message: 'Unknown endpoint: GET /v1/models/' });
          }
        },
        deps.auth(get.auth),
        deps.limit('requests.catalog'),
      ],
      schema: { response: { 200: get.response } },
    },
    async (request) => {
      const id = request.params.model;
      const model = deps.catalog.find(id, principalOf(request).organizationId);
      if (!model) throw modelNotFound(id);
      return model.model;
    },
  );
}
