import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { prefixFor } from '../accounts/keys.ts';
import type { Operation } from '../contract/models.ts';
import type { OperationNotes } from '../operations/context.ts';
import { CLIENT_CLOSED_STATUS } from './request-metrics.ts';
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

/** How a request ended, as its completion line says. */
export type Outcome = 'ok' | 'error' | 'client_closed';

/** What the operation a request ran told it: the model, the operation, its billing and how its answer ended. */
export class RequestOperation implements OperationNotes {
  model?: string;
  operation?: Operation;
  /** Resolves with the millicents settlement charged (undefined: handed to the lease's sweep). */
  closed?: Promise<number | undefined>;
  /** The error the answer ended with after it began, or the error response's code. */
  errorCode?: string;
  /** The entries that could not serve before the one in `model` did (fallbacks taken). */
  fellBackFrom?: string[];
  /** The completion line was written (a request gets one, however it ends). */
  logged = false;

  ran(model: string, operation: Operation): void {
    this.model = model;
    this.operation = operation;
  }

  billing(closed: Promise<number | undefined>): void {
    this.closed = closed;
  }

  failed(code: string): void {
    this.errorCode ??= code;
  }

  fellBack(from: string): void {
    (this.fellBackFrom ??= []).push(from);
  }
}

/** The notes an operation fills for this request's completion line. */
export function operationNotesOf(request: FastifyRequest): RequestOperation {
  return (request.operationNotes ??= new RequestOperation());
}

/**
 * The fields of a request's completion line: who called (organization, key id and prefix — the
 * key itself never), what ran (model, operation), how it ended (outcome, error code, credits
 * charged, 0 included), and the W3C trace it belongs to. Never a header value or a body: those
 * may hold secrets or base64 payloads.
 */
function completionFields(request: FastifyRequest, reply: FastifyReply, outcome: Outcome, chargedMillicents: number | undefined, millicentsPerCredit: number) {
  const principal = request.principal;
  const notes = request.operationNotes;
  return {
    route: request.routeOptions.url,
    // A client that left before any status was sent is logged as nginx does: 499.
    status: outcome === 'client_closed' && !reply.raw.headersSent ? CLIENT_CLOSED_STATUS : reply.statusCode,
    outcome,
    ...(notes?.errorCode ? { error_code: notes.errorCode } : {}),
    duration_ms: Math.round(reply.elapsedTime * 10) / 10,
    trace_id: traceIdOf(request.headers.traceparent),
    organization_id: principal?.organizationId,
    key_id: principal?.keyId,
    key_prefix: principal ? prefixFor(principal.kind, principal.environment) : undefined,
    model: notes?.model,
    ...(notes?.fellBackFrom ? { fell_back_from: notes.fellBackFrom } : {}),
    operation: notes?.operation,
    // undefined only while a failed settlement waits for the lease's sweep.
    credits: chargedMillicents === undefined ? undefined : chargedMillicents / millicentsPerCredit,
  };
}

const isProbe = (request: FastifyRequest) => request.routeOptions.config?.probe === true;

/**
 * Fastify's request logging with one completion line per request that says what the request
 * did. Fastify writes it when the response finishes; a client that leaves first gets one too
 * (outcome `client_closed`). The line waits for the request's billing to close, so it carries
 * what was charged. Probe routes log neither line (a route's `logLevel` would not do: it
 * overrides a quieter configured level).
 */
export class RequestLog extends LogController {
  constructor(
    options: ConstructorParameters<typeof LogController>[0],
    private readonly millicentsPerCredit: number,
  ) {
    super(options);
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (isProbe(request)) return;
    super.incomingRequest(request, reply);
    // A response whose client left never finishes: Fastify would log nothing.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) this.complete(null, request, reply, 'client_closed');
    });
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (!error && isProbe(request)) return;
    const failed = error || reply.statusCode >= 400 || request.operationNotes?.errorCode !== undefined;
    this.complete(error, request, reply, failed ? 'error' : 'ok');
  }

  private complete(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply, outcome: Outcome): void {
    if (this.isLogDisabled(request)) return;
    const notes = operationNotesOf(request);
    if (notes.logged) return;
    notes.logged = true;
    const write = (charged: number | undefined) => {
      const fields = completionFields(request, reply, outcome, charged, this.millicentsPerCredit);
      if (error) reply.log.error({ ...fields, err: error }, 'request errored');
      else reply.log.info(fields, 'request completed');
    };
    if (!notes.closed) return write(0);
    notes.closed.then(write, () => write(undefined));
  }
}
