import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { bindingOutcome, rateLimitHeaders, type LimitOutcome, type Limits } from '../limits/limits.ts';
import type { RequestRuleName } from '../limits/rules.ts';
import { principalOf } from './auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    limitOutcomes: LimitOutcome[] | null;
  }
}

/** Sets the X-RateLimit-* headers of the most binding count this request drew on so far. */
export function reportLimits(request: FastifyRequest, reply: FastifyReply, outcomes: LimitOutcome[]): void {
  request.limitOutcomes ??= [];
  request.limitOutcomes.push(...outcomes);
  const binding = bindingOutcome(request.limitOutcomes);
  if (binding) reply.headers(rateLimitHeaders(binding));
}

/**
 * The request rule of a route family, checked right after authentication: every authorized
 * attempt counts, before its body is parsed, and every answer carries the headers.
 */
export function limitHook(limits: Limits, rule: RequestRuleName): onRequestAsyncHookHandler {
  return async function limit(request: FastifyRequest, reply: FastifyReply) {
    const principal = principalOf(request);
    const outcome = await limits.checkRequest({ organizationId: principal.organizationId, environment: principal.environment }, rule);
    if (outcome) reportLimits(request, reply, [outcome]);
  };
}
