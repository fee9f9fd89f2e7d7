import { ApiFailure, asApiError } from './api-error.ts';
import type { Connection } from './connection.ts';
import { ClientExit, EXIT } from './exit-codes.ts';
import { printable } from './printable.ts';
import { readEventStream, type StreamMessage } from './sse.ts';

/** An open event stream: the request id the server gave it and its messages. */
export interface EventStream {
  requestId: string | undefined;
  messages: AsyncGenerator<StreamMessage>;
}

/** The HTTP calls of the client commands, on Node's global fetch. */
export class ApiClient {
  constructor(private readonly connection: Connection) {}

  /** GET a JSON document; an error answer throws ApiFailure. */
  async getJson<T>(path: string): Promise<T> {
    const response = await this.send(path, { method: 'GET' });
    if (!response.ok) throw await failureOf(response);
    return (await readJson(response)) as T;
  }

  /** POST a JSON body that asks for `stream: true`; an error answered before the stream begins throws ApiFailure. */
  async postEventStream(path: string, body: unknown): Promise<EventStream> {
    const response = await this.send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw await failureOf(response);
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream') || !response.body) {
      throw new ClientExit(`expected an event stream from ${path}, got "${printable(type) || 'no body'}"`, EXIT.failed);
    }
    return { requestId: response.headers.get('x-request-id') ?? undefined, messages: readEventStream(response.body) };
  }

  private async send(path: string, init: RequestInit): Promise<Response> {
    const url = `${this.connection.baseUrl}${path}`;
    try {
      return await fetch(url, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${this.connection.key}` },
      });
    } catch (error) {
      // fetch hides the reason (ECONNREFUSED, ENOTFOUND…) in `cause`.
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
      throw new ClientExit(`cannot reach ${this.connection.baseUrl}: ${cause}`, EXIT.failed);
    }
  }
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new ClientExit(`the API answered ${response.status} with a body that is not JSON: ${printable(text.slice(0, 120))}`, EXIT.failed);
  }
}

/** The envelope of an error answer, or one made from its status when a proxy answered without one. */
async function failureOf(response: Response): Promise<ApiFailure> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const envelope = asApiError(body);
  if (envelope) return new ApiFailure({ ...envelope, request_id: envelope.request_id ?? requestId });
  return new ApiFailure({
    status: response.status,
    code: `http_${response.status}`,
    message: `no error envelope in the answer${text ? `: ${text.slice(0, 120)}` : ''}`,
    ...(requestId !== undefined ? { request_id: requestId } : {}),
  });
}
