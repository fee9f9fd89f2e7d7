import type { FastifyInstance } from 'fastify';
import { ENDPOINTS, routePath } from '../../contract/endpoints.ts';
import { normalizeResponsesBody, type ResponsesRequest, type ResponsesStreamEvent } from '../../contract/responses.ts';
import { collectResponse, createResponse, responsesErrorEvent } from '../../operations/respond.ts';
import { RESPONSES_JSON_SHAPE } from '../body-size.ts';
import type { HttpDeps } from '../deps.ts';
import { toApiError } from '../errors.ts';
import { operationContext } from '../operation-context.ts';
import { writeEventStream, type SseFrame } from '../sse.ts';

const frame = (event: ResponsesStreamEvent): SseFrame => ({ event: event.type, data: event });

export function registerResponsesRoutes(app: FastifyInstance, deps: HttpDeps): void {
  const endpoint = ENDPOINTS.createResponse;
  app.post<{ Body: ResponsesRequest }>(
    routePath(endpoint.path),
    {
      onRequest: [deps.auth(endpoint.auth), deps.limit('requests.responses')],
      preValidation: async (request) => normalizeResponsesBody(request.body),
      bodyLimit: deps.maxBodyBytes.responses,
      config: { jsonShape: RESPONSES_JSON_SHAPE },
      schema: { body: endpoint.body },
    },
    async (request, reply) => {
      const events = await createResponse(deps.operations, operationContext(request, reply), request.body);
      if (!request.body.stream) return collectResponse(events);
      // A failure before the first event is a plain JSON error; after it, an `error` event.
      const first = await events.next();
      if (first.done) throw new Error('a Responses run ended without any event');
      let last = first.value.sequence_number;
      await writeEventStream(
        reply,
        first.value,
        events,
        (event) => {
          last = event.sequence_number;
          return frame(event);
        },
        (error) => frame(responsesErrorEvent(toApiError(error), last + 1, request.id)),
        deps.streams,
      );
      return reply;
    },
  );
}
