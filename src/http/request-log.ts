import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { prefixFor } from '../accounts/keys.ts';
import type { Operation } from '../contract/models.ts';
import type { OperationNotes } from '../operations/context.ts';
import { traceIdOf } from './traceparent.ts';

declare module 'fastify' {
  interface FastifyRequest {
    operationNotes: RequestOperation | null;
  }
  interface FastifyContextConfig {
    /** A health probe: requests arrive every few seconds, so they are not logged unless they fail. */
    probe?: boolean;
  }
}

/** What the operation a request ran told it: the model, the operation and what settlement charged. */
export class RequestOperation implements OperationNotes {
  model?: string;
  operation?: Operation;
  chargedMillicents?: number;

  ran(model: string, operation: Operation): void {
    this.model = model;
    this.operation = operation;
  }

  charged(millicents: number): void {
    this.chargedMillicents = millicents;
  }
}

/** The notes an operation fills for this request's completion line. */
export function operationNotesOf(request: FastifyRequest): RequestOperation {
  return (request.operationNotes ??= new RequestOperation());
}

/**
 * The fields of a request's completion line: who called (organization, key id and prefix — the
 * key itself never), what ran (model, operation, credits charged), how it ended, and the W3C
 * trace it belongs to. Never a header value or a body: those may hold secrets or base64 payloads.
 */
function completionFields(request: FastifyRequest, reply: FastifyReply, millicentsPerCredit: number) {
  const principal = request.principal;
  const notes = request.operationNotes;
  return {
    route: request.routeOptions.url,
    status: reply.statusCode,
    duration_ms: Math.round(reply.elapsedTime * 10) / 10,
    trace_id: traceIdOf(request.headers.traceparent),
    organization_id: principal?.organizationId,
    key_id: principal?.keyId,
    key_prefix: principal ? prefixFor(principal.kind, principal.environment) : undefined,
    model: notes?.model,
    operation: notes?.operation,
    credits: notes?.chargedMillicents === undefined ? undefined : notes.chargedMillicents / millicentsPerCredit,
  };
}

const isProbe = (request: FastifyRequest) => request.routeOptions.config?.probe === true;

/**
 * Fastify's request logging with a completion line that says what the request did. Probe routes
 * log neither line (a route's `logLevel` would not do: it overrides a quieter configured level).
 */
export class RequestLog extends LogController {
  constructor(
    options: ConstructorParameters<typeof LogController>[0],
    private readonly millicentsPerCredit: number,
  ) {
    super(options);
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (!isProbe(request)) super.incomingRequest(request, reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request) || (!error && isProbe(request))) return;
    if (error) {
      reply.log.error({ ...completionFields(request, reply, this.millicentsPerCredit), err: error }, 'request errored');
    } else {
      reply.log.info(completionFields(request, reply, this.millicentsPerCredit), 'request completed');
    }
  }
}
