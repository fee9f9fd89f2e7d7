import { maxHeaderSize } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, toEnvelope } from '../contract/errors.ts';
import { operationNotesOf } from './request-log.ts';

/**
 * Maps anything thrown while serving a request to the spec's envelope. Client mistakes caught
 * by Fastify itself (bad JSON, wrong content type, oversize body) or by Node's HTTP parser keep
 * their meaning; anything unexpected is a logged server_error whose message reveals nothing.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as Partial<FastifyError> & { status?: number; reason?: unknown };
  const status = fastifyError.statusCode ?? fastifyError.status;
  // A DOMException (an AbortError) has a numeric code: only Node's and Fastify's string codes mean anything here.
  const code = typeof fastifyError.code === 'string' ? fastifyError.code : undefined;
  const fromNode = nodeHttpError(code, fastifyError.reason);
  if (fromNode) return fromNode;
  switch (code) {
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
  if (error instanceof SyntaxError || code === 'FST_ERR_CTP_INVALID_TYPE') {
    return new ApiError('invalid_request', { message: 'The request body is not valid JSON.' });
  }
  if (status === 413) return new ApiError('payload_too_large');
  if (status === 408) return new ApiError('request_timeout', { status: 408 });
  if (status !== undefined && status >= 400 && status < 500) {
    return new ApiError('invalid_request', { message: 'The request could not be read.', cause: error });
  }
  return new ApiError('server_error', { cause: error });
}

const invalid = (message: string) => new ApiError('invalid_request', { message });

/** Node's HTTP parser (llhttp) refusals and its request deadline, which reach us as 'clientError'. */
function nodeHttpError(code: string | undefined, reason: unknown): ApiError | undefined {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout', {
        status: 408,
        message: "The request was not received in full before the server's deadline; send the whole request without pausing.",
      });
    // 431 is not in the spec's table; the client must send less, which is what 413 says.
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('payload_too_large', {
        message: `The request line and headers exceed the server's limit of ${maxHeaderSize} bytes; send fewer or shorter headers.`,
      });
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError('payload_too_large', { message: 'The chunk extensions of the request body are too large.' });
    case 'HPE_INVALID_CONTENT_LENGTH':
      return invalid('The Content-Length header is not a valid non-negative integer.');
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return invalid('The Content-Length header is repeated or not allowed with this request.');
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return invalid("The Transfer-Encoding header is invalid: send either Content-Length or 'Transfer-Encoding: chunked', never both.");
    case 'HPE_INVALID_CHUNK_SIZE':
      return invalid('The chunked request body is malformed: a chunk size is not hexadecimal.');
    case 'HPE_INVALID_HEADER_TOKEN':
      return invalid('A header name or value contains a character that is not allowed (a control character, or a separator in a name).');
    case 'HPE_INVALID_METHOD':
    case 'HPE_INVALID_CONSTANT':
      return invalid("The request line is malformed: expected 'METHOD /path HTTP/1.1'.");
    case 'HPE_INVALID_URL':
      return invalid('The request line is malformed: the request target contains a character that is not allowed.');
    case 'HPE_INVALID_VERSION':
      return invalid('The request line is malformed: only HTTP/1.0 and HTTP/1.1 with CRLF line endings are accepted.');
    case 'HPE_INVALID_EOF_STATE':
      return invalid('The request ended early: the client closed its sending side before the request was complete.');
    case 'HPE_PAUSED_H2_UPGRADE':
      return invalid('HTTP/2 without TLS is not supported; use HTTP/1.1.');
  }
  if (!code?.startsWith('HPE_')) return undefined;
  // llhttp's reason is fixed text ("Expected LF after chunk data"), never request bytes; checked anyway.
  const detail = typeof reason === 'string' && /^[\w .,'`/-]{1,100}$/.test(reason) ? ` (${reason})` : '';
  return invalid(`The request is not valid HTTP/1.1${detail}.`);
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  operationNotesOf(request).failed(error.code);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.retryAfter !== undefined) reply.header('Retry-After', String(error.retryAfter));
  return reply.code(error.status).type('application/json; charset=utf-8').send(toEnvelope(error, request.id));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    // A client that left ended its own request (an operation stops with the abort): nobody is
    // there to answer, and it is no failure of ours. Its completion line says client_closed.
    if (clientLeft(reply)) {
      reply.hijack();
      return reply;
    }
    const apiError = toApiError(error);
    if (apiError.code === 'server_error') request.log.error({ err: error }, 'unexpected failure');
    // A model server that is down is logged by its engine once per change (upstream-log.ts), not
    // once per request; the completion line still records each request's 503.
    else if (apiError.status >= 500 && apiError.code !== 'model_unavailable') request.log.warn({ err: apiError.cause ?? apiError, code: apiError.code }, apiError.message);
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

/** The client closed the connection before its response was written. */
export function clientLeft(reply: FastifyReply): boolean {
  return reply.raw.destroyed && !reply.raw.writableFinished;
}

/** Errors Fastify raises before routing (an unparsable URL, say) get the same envelope. */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-ID', request.id);
  const apiError = error.code === 'FST_ERR_BAD_URL'
    ? new ApiError('invalid_request', { status: 404, message: 'The request URL is malformed.' })
    : toApiError(error);
  void sendError(request, reply, apiError);
}
