import { after, before, beforeEach } from 'node:test';
import OpenAI from 'openai';
import { startFakeUpstream, type FakeUpstream } from '../../../fakes/upstream.ts';
import { startHarness, type Harness, type HarnessOptions } from '../../../helpers/harness.ts';
import { readStream, type ParsedStream } from '../../../helpers/sse.ts';

/** Token rates that make costs whole millicents: 1 per input token, 0.1 cached, 2 per output token. */
export const RATES = { input: 1_000_000, cached_input: 100_000, cache_write: 1_250_000, output: 2_000_000 };

/** A token-priced openai-compatible entry serving Responses from the scripted upstream. */
export function responsesEntry(id: string, baseUrl: string, options: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    id,
    engine: 'openai-compatible',
    operations: ['open_responses', 'svg_generate'],
    billing: { kind: 'token_usage', rates: RATES },
    input_modalities: ['text', 'image'],
    supported_sampling_parameters: ['temperature', 'top_p', 'presence_penalty'],
    max_output_length: 4096,
    ...extra,
    options: { base_url: baseUrl, model: 'fake-model', vision: true, first_token_timeout_ms: 2000, total_timeout_ms: 5000, ...options },
  };
}

export interface ResponsesSetup {
  h: Harness;
  upstream: FakeUpstream;
  /** The openai SDK pointed at the service, with a live key (or the given one). */
  client(key?: string): OpenAI;
  /** POST /v1/responses streamed, read raw (frames, [DONE]) with a real SSE parser. */
  raw(body: Record<string, unknown>, key?: string): Promise<ParsedStream>;
  balance(): Promise<number>;
  close(): Promise<void>;
}

/** The real app with entries on a scripted upstream: `chat` (translated) and `native` (passthrough). */
export async function startResponses(models: (url: string) => object[] = () => [], options: HarnessOptions = {}): Promise<ResponsesSetup> {
  const upstream = await startFakeUpstream();
  const h = await startHarness({
    ...options,
    config: {
      ...options.config,
      media: { allow_loopback_urls: true },
      catalog: {
        models: [
          responsesEntry('chat', upstream.url),
          responsesEntry('native', upstream.url, { responses_api: true }),
          responsesEntry('thinker', upstream.url, { reasoning: true, reasoning_budget_tokens: 100 }),
          responsesEntry('blind', upstream.url, { vision: false }, { input_modalities: ['text'] }),
          ...models(upstream.url),
        ],
      },
    },
  });
  return {
    h,
    upstream,
    client: (key = h.keys.live) => new OpenAI({ apiKey: key, baseURL: `${h.url}/v1`, maxRetries: 0, timeout: 20_000 }),
    raw: (body, key = h.keys.live) =>
      readStream(`${h.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, stream: true }),
      }),
    balance: async () => (await h.store.organizations.get(h.organizationId))!.balance_millicents,
    close: async () => {
      await h.close();
      await upstream.close();
    },
  };
}

/**
 * One setup for the enclosing suite: started before its tests (handed to `started`), closed
 * after them, and before each test its upstream's recorded requests cleared and its answer set
 * back to `reply`.
 */
export function responsesSuite(reply: FakeUpstream['reply'], started: (setup: ResponsesSetup) => void): void {
  let setup: ResponsesSetup | undefined;
  before(async () => {
    setup = await startResponses();
    started(setup);
  });
  after(() => setup?.close());
  beforeEach(() => {
    setup!.upstream.requests.length = 0;
    setup!.upstream.reply = reply;
  });
}

/** Every event of a streamed SDK call. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The parsed `data:` payloads of a raw stream, with [DONE] checked and dropped. */
export function payloads(stream: ParsedStream): any[] {
  const last = stream.events.at(-1);
  if (last?.data !== '[DONE]') throw new Error(`the stream does not end with [DONE]: ${stream.raw.slice(-300)}`);
  const events = stream.events.slice(0, -1);
  for (const event of events) {
    const data = JSON.parse(event.data);
    if (event.event !== data.type) throw new Error(`frame event ${event.event} carries type ${data.type}`);
  }
  return events.map((event) => JSON.parse(event.data));
}
