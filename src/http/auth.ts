import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { authenticate, authorize, type Principal } from '../accounts/principal.ts';
import type { AuthRequirement } from '../contract/auth.ts';
import type { Config } from '../config/schema.ts';
import type { Store } from '../store/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/**
 * Response headers that state what the service does with live data, and only what is true: it
 * never stores prompts, inputs or outputs. Whether the upstream model server retains data is the
 * operator's declaration, sent only when the operator made it. No metadata-retention header: the
 * service keeps request metadata until it is deleted, and claims no period it does not enforce.
 */
export function dataPostureHeaders(config: Config): Record<string, string> {
  const posture = config.data_posture;
  return {
    'X-Inkwell-Data-Policy': posture.policy,
    'X-Inkwell-Payload-Capture': 'none',
    ...(posture.upstream_zero_data_retention === undefined ? {} : { 'X-Inkwell-Zero-Data-Retention': String(posture.upstream_zero_data_retention) }),
  };
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is missing its auth hook');
  return request.principal;
}

/** The onRequest hook of an endpoint: authenticate the key, then apply the endpoint's rule. */
export function authHook(store: Store, requirement: AuthRequirement, posture: Record<string, string>): onRequestAsyncHookHandler {
  return async function auth(request: FastifyRequest, reply: FastifyReply) {
    if (requirement.kind === 'public') return;
    const principal = await authenticate(store, request.headers.authorization);
    request.principal = principal;
    reply.header('X-Inkwell-Environment', principal.environment ?? 'live');
    if (principal.environment === 'live') reply.headers(posture);
    authorize(principal, requirement);
  };
}
