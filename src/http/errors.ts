import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, toEnvelope } from '../contract/errors.ts';

/**
 * Maps anything thrown while serving a request to the spec's envelope. Client mistakes caught
 * by Fastify itself (bad JSON, wrong content type, oversize body) keep their meaning; anything
 * unexpected is a logged server_error whose message reveals nothing.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as Partial<FastifyError> & { status?: number };
  const status = fastifyError.statusCode ?? fastifyError.status;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', { message: 'The request body is larger than this endpoint accepts.' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('invalid_request', { message: 'Content-Type must be application/json.' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', { message: 'The request body is empty; send a JSON object.' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', { message: 'The Content-Length header does not match the body.' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_request', { message: 'The request body is not valid JSON.' });
  }
  if (error instanceof SyntaxError || fastifyError.code === 'FST_ERR_CTP_INVALID_TYPE') {
    return new ApiError('invalid_request', { message: 'The request body is not valid JSON.' });
  }
  if (status === 413) return new ApiError('payload_too_large');
  if (status === 408) return new ApiError('request_timeout', { status: 408 });
  if (status !== undefined && status >= 400 && status < 500) {
    return new ApiError('invalid_request', { message: 'The request could not be read.', cause: error });
  }
  return new ApiError('server_error', { cause: error });
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.retryAfter !== undefined) reply.header('Retry-After', String(error.retryAfter));
  return reply.code(error.status).type('application/json; charset=utf-8').send(toEnvelope(error, request.id));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.code === 'server_error') request.log.error({ err: error }, 'unexpected failure');
    else if (apiError.status >= 500) request.log.warn({ err: apiError.cause ?? apiError, code: apiError.code }, apiError.message);
    return sendError(request, reply, apiError);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!.slice(0, 200);
    reply.header('X-Request-ID', request.id);
    return sendError(
      request,
      reply,
      new ApiError('invalid_request', { status: 404, message: `Unknown endpoint: ${request.method} ${path}` }),
    );
  });
}

/** Errors Fastify raises before routing (an unparsable URL, say) get the same envelope. */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-ID', request.id);
  const apiError = error.code === 'FST_ERR_BAD_URL'
    ? new ApiError('invalid_request', { status: 404, message: 'The request URL is malformed.' })
    : toApiError(error);
  void sendError(request, reply, apiError);
}
