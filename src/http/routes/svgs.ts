import type { FastifyInstance, FastifyReply } from 'fastify';
import { toEnvelope } from '../../contract/errors.ts';
import { ENDPOINTS, routePath, type Endpoint } from '../../contract/endpoints.ts';
import type { SvgStreamEvent } from '../../contract/svgs.ts';
import { animateSvg } from '../../operations/animate.ts';
import type { OperationContext, OperationDeps } from '../../operations/context.ts';
import { editSvg } from '../../operations/edit.ts';
import { generateSvgs } from '../../operations/generate.ts';
import { collectSvgResponse } from '../../operations/svg-run.ts';
import { vectorizeImage } from '../../operations/vectorize.ts';
import type { RequestRuleName } from '../../limits/rules.ts';
import type { HttpDeps } from '../deps.ts';
import { toApiError } from '../errors.ts';
import { operationContext } from '../operation-context.ts';
import { writeEventStream, type SseFrame, type StreamObserver } from '../sse.ts';

type SvgOperation<B> = (deps: OperationDeps, ctx: OperationContext, body: B) => Promise<AsyncIterableIterator<SvgStreamEvent>>;

const frame = (event: SvgStreamEvent): SseFrame => ({ event: event.type, data: event });

/** Sends an SVG operation's events as SSE, or answers with a JSON error if it fails before the first one. */
async function streamSvgEvents(
  reply: FastifyReply,
  events: AsyncIterableIterator<SvgStreamEvent>,
  requestId: string,
  observer: StreamObserver | undefined,
): Promise<void> {
  const first = await events.next();
  if (first.done) throw new Error('an SVG operation ended without any event');
  await writeEventStream(reply, first.value, events, frame, (error) => {
    const envelope = toEnvelope(toApiError(error), requestId);
    return { event: 'error', data: { type: 'error', ...envelope } };
  }, observer);
}

function svgRoute<B extends { stream?: boolean }>(
  app: FastifyInstance,
  deps: HttpDeps,
  endpoint: Endpoint,
  rule: RequestRuleName,
  bodyLimit: number,
  operation: SvgOperation<B>,
): void {
  const withScore = endpoint.operationId === 'createAnimation';
  app.post<{ Body: B }>(
    routePath(endpoint.path),
    { onRequest: [deps.auth(endpoint.auth), deps.limit(rule)], bodyLimit, schema: { body: endpoint.body, response: { 200: endpoint.response } } },
    async (request, reply) => {
      const body = request.body as B;
      const events = await operation(deps.operations, operationContext(request, reply), body);
      if (!body.stream) return collectSvgResponse(events, withScore);
      await streamSvgEvents(reply, events, request.id, deps.streams);
      return reply;
    },
  );
}

export function registerSvgRoutes(app: FastifyInstance, deps: HttpDeps): void {
  svgRoute(app, deps, ENDPOINTS.createGeneration, 'requests.svg', deps.maxBodyBytes.generation, generateSvgs);
  svgRoute(app, deps, ENDPOINTS.createVectorization, 'requests.svg', deps.maxBodyBytes.vectorization, vectorizeImage);
  svgRoute(app, deps, ENDPOINTS.createEdit, 'requests.edits', deps.maxBodyBytes.edit, editSvg);
  svgRoute(app, deps, ENDPOINTS.createAnimation, 'requests.animations', deps.maxBodyBytes.animation, animateSvg);
}
