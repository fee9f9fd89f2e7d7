import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../contract/errors.ts';
import { ENDPOINTS, routePath } from '../../contract/endpoints.ts';
import type { ModelList } from '../../contract/models.ts';
import { modelNotFound } from '../../operations/resolve-model.ts';
import type { HttpDeps } from '../deps.ts';
import { principalOf } from '../auth.ts';

/** Organizations whose serialized listing is kept; the catalog is fixed for the life of the process. */
const LISTINGS_KEPT = 10_000;

export function registerModelRoutes(app: FastifyInstance, deps: HttpDeps): void {
  const list = ENDPOINTS.listModels;
  // The listing an organization sees never changes while the process runs: serialize it once.
  const listings = new Map<string, string>();
  const listingFor = (organizationId: string): string => {
    let json = listings.get(organizationId);
    if (json === undefined) {
      const body: ModelList = { object: 'list', data: deps.catalog.list(organizationId).map((model) => model.model) };
      json = JSON.stringify(body);
      if (listings.size >= LISTINGS_KEPT) listings.delete(listings.keys().next().value!);
      listings.set(organizationId, json);
    }
    return json;
  };
  app.get(
    routePath(list.path),
    { onRequest: [deps.auth(list.auth), deps.limit('requests.catalog')], schema: { response: { 200: list.response } } },
    async (request, reply) => reply.type('application/json; charset=utf-8').send(listingFor(principalOf(request).organizationId)),
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
