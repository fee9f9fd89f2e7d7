import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OperationContext } from '../operations/context.ts';
import { principalOf } from './auth.ts';
import { reportLimits } from './rate-limit-hook.ts';
import { operationNotesOf } from './request-log.ts';

/** The operation's view of a request; its signal aborts when the client disconnects early. */
export function operationContext(request: FastifyRequest, reply: FastifyReply): OperationContext {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  const mock = request.headers['inkwell-mock'];
  return {
    requestId: request.id,
    principal: principalOf(request),
    signal: controller.signal,
    mockHeader: typeof mock === 'string' ? mock : undefined,
    reportLimits: (outcomes) => reportLimits(request, reply, outcomes),
    notes: operationNotesOf(request),
    served: (modelId) => void reply.header('X-Inkwell-Model', modelId),
  };
}
