import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, toEnvelope } from '../contract/errors.ts';
import { newId } from '../contract/ids.ts';
import { toApiError } from './errors.ts';

// Answers for what Node refuses before Fastify routes a request: unparsable HTTP (Node's
// 'clientError' event), a request that outstays its deadline, a missing Host header and an
// unsupported Expect header. Each gets the spec's envelope with its own X-Request-ID, then the
// connection is closed: after a framing error the rest of the byte stream cannot be trusted.

/** The id Fastify minted for each request (our genReqId), so a late 408 names the request the logs name. */
const requestIds = new WeakMap<IncomingMessage, string>();
/** The response of the last request routed on each connection. */
const lastResponse = new WeakMap<Socket, ServerResponse>();
/** Connections already answered: a parser error can be reported twice for one connection. */
const answered = new WeakSet<Socket>();

export function mintRequestId(request: IncomingMessage): string {
  const id = newId('request');
  requestIds.set(request, id);
  return id;
}

function invalid(message: string): ApiError {
  return new ApiError('invalid_request', { message });
}

/** Errors about a request: the parser's and the deadline's. Others (ECONNRESET, EPIPE…) are transport failures. */
function concernsRequest(error: NodeJS.ErrnoException): boolean {
  return error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code?.startsWith('HPE_') === true;
}

function rawResponse(apiError: ApiError, requestId: string): string {
  const body = JSON.stringify(toEnvelope(apiError, requestId));
  // Written on the socket itself: no ServerResponse exists for a request Node could not parse.
  return (
    `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\n` +
    `Date: ${new Date().toUTCString()}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-ID: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * Fastify's clientErrorHandler (`this` is the instance). Exactly one response per request: the
 * error is answered only when no response to the request it concerns has begun.
 */
export function answerClientError(this: { log: FastifyBaseLogger }, error: NodeJS.ErrnoException, socket: Socket): void {
  if (socket.destroyed || answered.has(socket)) return;
  if (!concernsRequest(error) || !socket.writable) {
    socket.destroy();
    return;
  }
  const apiError = toApiError(error);
  answered.add(socket);
  const routed = lastResponse.get(socket);
  // The body of a routed request stopped short: the error is about that request.
  const aboutRouted = routed !== undefined && !routed.req.complete;
  if (aboutRouted && routed.headersSent) {
    // It was already answered (a 401 before its body arrived, say): a second response would be
    // read as the answer to the client's next request.
    socket.destroy();
    return;
  }
  const requestId = (aboutRouted && requestIds.get(routed.req)) || newId('request');
  const answer = () => {
    if (socket.destroyed || !socket.writable) return;
    // Not the error itself: a parse error carries the raw request bytes, Authorization included.
    this.log.info({ request_id: requestId, status: apiError.status, code: apiError.code, reason: error.code }, 'malformed or incomplete request refused');
    // Everything is written, then the connection closes; the routed request (if any) then
    // aborts, so Fastify releases what it holds and its own late reply finds a closed socket.
    socket.end(rawResponse(apiError, requestId), () => socket.destroy());
  };
  // A pipelined earlier response still being written goes first, or ours would be read as its answer.
  if (routed && !aboutRouted && !routed.writableFinished) {
    routed.once('finish', answer);
    routed.once('close', () => {
      if (!routed.writableFinished) socket.destroy();
    });
  } else answer();
}

/**
 * Remembers each connection's latest response (for answerClientError), and answers an Expect
 * header other than 100-continue, which Node would refuse with an empty 417 of its own.
 */
export function watchServer(server: Server): void {
  server.on('request', (request: IncomingMessage, response: ServerResponse) => lastResponse.set(request.socket, response));
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const requestId = mintRequestId(request);
    const body = JSON.stringify(toEnvelope(invalid("The Expect header is not supported; only 'Expect: 100-continue' is."), requestId));
    response.writeHead(400, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'X-Request-ID': requestId,
      Connection: 'close',
    });
    response.end(body);
  });
}

/**
 * HTTP/1.1 requires Host (RFC 9112 §3.2). Node's own refusal has an empty body, so the server is
 * built with requireHostHeader off and this onRequest hook refuses instead.
 */
export function requireHost(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  // A callback hook: no promise per request.
  if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
    return done(invalid('The Host header is required in HTTP/1.1 requests.'));
  }
  done();
}
