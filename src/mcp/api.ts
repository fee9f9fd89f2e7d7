import { createParser } from 'eventsource-parser';

/** The API's error envelope, as a tool error carries it. */
export interface Envelope {
  status: number;
  code: string;
  message: string;
  param?: string;
  request_id?: string;
}

/** One event of an operation's stream: its type and its parsed data. */
export interface StreamEvent {
  type: string;
  data: Record<string, unknown>;
}

/** A success names its request and the model that served it (`X-Inkwell-Model`, after a fallback the fallback). */
export type Answer<T> = { ok: true; body: T; requestId?: string; model?: string } | { ok: false; error: Envelope };

function served(response: Response): { requestId?: string; model?: string } {
  const requestId = response.headers.get('x-request-id');
  const model = response.headers.get('x-inkwell-model');
  return { ...(requestId ? { requestId } : {}), ...(model ? { model } : {}) };
}

/**
 * Inkwell's own HTTP API, as the MCP tools call it: with the caller's key, so its scopes, models,
 * rate limits and billing apply exactly as to any client. A call aborted by `signal` closes its
 * connection, and the service treats it as a client that left.
 */
export class InkwellApi {
  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
  ) {}

  async getJson<T>(path: string, signal: AbortSignal): Promise<Answer<T>> {
    const response = await this.send(path, { method: 'GET', signal });
    if ('error' in response) return response;
    return answerOf<T>(response.response);
  }

  /**
   * POSTs an operation with `stream: true` and reads its events as they come (`onEvent`), up to
   * `[DONE]`. An error answered before the stream began is the envelope; one during it, the
   * `error` event's.
   */
  async stream(path: string, body: Record<string, unknown>, signal: AbortSignal, onEvent: (event: StreamEvent) => void): Promise<Answer<StreamEvent[]>> {
    const sent = await this.send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ ...body, stream: true }),
      signal,
    });
    if ('error' in sent) return sent;
    const { response } = sent;
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) return answerOf(response);
    const events: StreamEvent[] = [];
    let failure: Envelope | undefined;
    const parser = createParser({
      onEvent: (message) => {
        if (message.data === '[DONE]') return;
        let data: Record<string, unknown>;
        try {
          data = JSON.parse(message.data) as Record<string, unknown>;
        } catch {
          return;
        }
        const event = { type: message.event ?? String(data.type ?? 'message'), data };
        if (event.type === 'error') failure ??= envelopeOf(data, response.status, requestId);
        events.push(event);
        onEvent(event);
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    if (failure) return { ok: false, error: failure };
    return { ok: true, body: events, ...served(response) };
  }

  private async send(path: string, init: RequestInit): Promise<{ response: Response } | { ok: false; error: Envelope }> {
    try {
      const response = await fetch(`${this.baseUrl}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${this.key}` } });
      return { response };
    } catch (error) {
      if (init.signal?.aborted) throw init.signal.reason ?? error;
      // fetch hides the reason (ECONNREFUSED, ENOTFOUND…) in `cause`.
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
      return { ok: false, error: { status: 0, code: 'unreachable', message: `Inkwell at ${this.baseUrl} cannot be reached: ${cause}` } };
    }
  }
}

async function answerOf<T>(response: Response): Promise<Answer<T>> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, error: { status: response.status, code: 'invalid_response', message: `The API answered ${response.status} with a body that is not JSON.`, ...(requestId ? { request_id: requestId } : {}) } };
  }
  if (!response.ok) return { ok: false, error: envelopeOf(body as Record<string, unknown>, response.status, requestId) };
  return { ok: true, body: body as T, ...served(response) };
}

/** The envelope of an error answer or an `error` event (the event nests it under `error`). */
function envelopeOf(raw: Record<string, unknown>, status: number, requestId: string | undefined): Envelope {
  const inner = (raw.error && typeof raw.error === 'object' ? raw.error : raw) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const param = text(inner.param);
  const id = text(inner.request_id) ?? requestId;
  return {
    status: typeof inner.status === 'number' ? inner.status : status,
    code: text(inner.code) ?? 'error',
    message: text(inner.message) ?? 'The request failed.',
    ...(param ? { param } : {}),
    ...(id ? { request_id: id } : {}),
  };
}
