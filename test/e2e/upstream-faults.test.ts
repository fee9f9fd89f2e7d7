import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createLogger } from '../../src/main.ts';
import { startFakeUpstream, startUnacceptingListener, type FakeUpstream, type RecordedRequest, type Reply, type UnacceptingListener } from '../fakes/upstream.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { assertError } from '../helpers/schemas.ts';
import { readStream } from '../helpers/sse.ts';

// What a client sees when the model server misbehaves in ways that are not an HTTP error: a 200
// that is no completion, an answer past the entry's byte limit, a stream that stops mid-answer, a
// connect that hangs, a model the server does not know. Each case: the status, code and message
// (JSON and stream), how many upstream calls were made, and that nothing was charged.

const GEN = '/v1/svgs/generations';
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="#bde0fe"/><circle cx="50" cy="50" r="20" fill="#ffb703"/></svg>';
const LIMIT = 64 * 1024;
const NOT_A_COMPLETION = /not an OpenAI-compatible completion/;
const OVER_LIMIT = /exceeded the limit of 64 KiB/;

const ENTRY = {
  engine: 'openai-compatible',
  operations: ['svg_generate'],
  billing: { kind: 'fixed_credit', credits: { svg_generate: 3, svg_vectorize: 0 } },
  max_references: 0,
  input_modalities: ['text', 'svg'],
  max_output_length: 4096,
};
const OPTIONS = { model: 'fake-model', first_token_timeout_ms: 1500, idle_timeout_ms: 400, total_timeout_ms: 2000, max_output_bytes: LIMIT };

/** What the client was told: the JSON error, or the stream's error event (after which [DONE] came). */
interface Told {
  status: number;
  code: string;
  message: string;
  /** The response was a stream that had started (200) when the failure came. */
  midStream: boolean;
}

describe('upstream faults, as the client sees them', () => {
  let upstream: FakeUpstream;
  let listener: UnacceptingListener | undefined;
  let noHangingConnect: string | false = false;
  let h: Harness;
  const lines: { level: number; msg: string; err?: { message?: string } }[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });

  before(async () => {
    upstream = await startFakeUpstream();
    try {
      listener = await startUnacceptingListener();
    } catch (error) {
      noHangingConnect = String(error);
    }
    h = await startHarness({
      logger: createLogger({ log: { level: 'warn' } }, sink),
      config: {
        catalog: {
          models: [
            { ...ENTRY, id: 'faulty', options: { ...OPTIONS, base_url: upstream.url } },
            {
              ...ENTRY,
              id: 'faulty-metered',
              operations: ['svg_generate', 'open_responses'],
              billing: { kind: 'token_usage', rates: { input: 10_000, cached_input: 1000, cache_write: 12_500, output: 40_000 } },
              options: { ...OPTIONS, base_url: upstream.url },
            },
            { ...ENTRY, id: 'hanging', options: { ...OPTIONS, base_url: listener?.url ?? 'http://127.0.0.1:9/v1', connect_timeout_ms: 500, total_timeout_ms: 4000 } },
          ],
        },
      },
    });
  });
  after(async () => {
    await h.close();
    await upstream.close();
    listener?.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    lines.length = 0;
  });

  const balance = async () => (await h.store.organizations.get(h.organizationId))!.balance_millicents;
  const body = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ model: 'faulty', prompt: 'a sun', ...extra });

  async function asJson(path: string, payload: Record<string, unknown>): Promise<Told> {
    const res = await h.request('POST', path, { key: h.keys.live, body: payload });
    assertError(res, { status: res.status, code: res.json?.code });
    return { status: res.status, code: res.json.code, message: res.json.message, midStream: false };
  }

  async function asStream(path: string, payload: Record<string, unknown>): Promise<Told> {
    const res = await readStream(`${h.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...payload, stream: true }),
    });
    if (res.status !== 200) {
      const error = JSON.parse(res.raw);
      return { status: res.status, code: error.code, message: error.message, midStream: false };
    }
    assert.equal(res.events.at(-1)?.data, '[DONE]');
    const last = JSON.parse(res.events.at(-2)!.data);
    assert.equal(last.type, 'error', res.raw.slice(0, 500));
    // An SVG stream's error event is the error envelope; a Responses stream's carries it under `error`.
    const error = last.error ?? last;
    return { status: error.status ?? error.status_code, code: error.code, message: error.message, midStream: true };
  }

  /** Runs one request each way against `reply`; returns what each client was told, having checked nothing was charged. */
  async function bothWays(reply: Reply | ((request: RecordedRequest) => Reply), path = GEN, payload = body()): Promise<{ json: Told; stream: Told; calls: [number, number] }> {
    upstream.reply = (request) => (typeof reply === 'function' ? reply(request) : reply);
    const start = await balance();
    const json = await asJson(path, payload);
    const jsonCalls = upstream.requests.length;
    const stream = await asStream(path, payload);
    assert.equal(await balance(), start, 'nothing charged');
    return { json, stream, calls: [jsonCalls, upstream.requests.length - jsonCalls] };
  }

  /** Waits a little for the fake to see each connection close (the client may hear first), then says which the client closed. */
  const aborted = async () => {
    for (let i = 0; i < 40 && !upstream.requests.every((request) => request.aborted); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    return upstream.requests.map((request) => request.aborted);
  };

  /** The line the engine logged about the failed upstream call, at this level (40 warn, 50 error). */
  const logged = (level: number) => lines.find((line) => line.level === level && line.err?.message?.startsWith('upstream '));

  describe('a 200 that is not a completion is 502 model_error, never retried, and its beginning is logged (not shown)', () => {
    const cases: [string, Reply, RegExp][] = [
      ['an HTML page', { kind: 'raw', contentType: 'text/html', body: '<!DOCTYPE html><html><body>Bad Gateway (nginx)</body></html>' }, /content-type text\/html, \d+ bytes, beginning "<!DOCTYPE html><html><body>Bad Gateway \(nginx\)/],
      ['JSON cut mid-string', { kind: 'raw', contentType: 'application/json', body: '{"id":"c","choices":[{"index":0,"message":{"content":"<svg view' }, /not JSON; content-type application\/json/],
      ['JSON of the wrong shape', { kind: 'raw', contentType: 'application/json', body: '{"object":"list","data":[{"id":"fake-model"}]}' }, /has no choices; content-type application\/json, \d+ bytes, beginning "\{\\"object\\":\\"list\\"/],
    ];
    for (const [label, reply, detail] of cases) {
      it(label, async () => {
        const { json, stream, calls } = await bothWays(reply);
        for (const told of [json, stream]) {
          assert.deepEqual([told.status, told.code], [502, 'model_error']);
          assert.match(told.message, NOT_A_COMPLETION);
          assert.doesNotMatch(told.message, /html|nginx|choices/i);
        }
        assert.equal(stream.midStream, true, 'the server answered 200: the stream had started');
        assert.deepEqual(calls, [1, 1], 'not retried');
        assert.match(logged(40)?.err?.message ?? '', detail);
      });
    }

    it('on /v1/responses too', async () => {
      const reply: Reply = { kind: 'raw', contentType: 'text/html', body: '<html>maintenance</html>' };
      const { json, stream, calls } = await bothWays(reply, '/v1/responses', { model: 'faulty-metered', input: 'Draw a sun' });
      for (const told of [json, stream]) assert.deepEqual([told.status, told.code], [502, 'model_error']);
      assert.match(json.message, NOT_A_COMPLETION);
      assert.deepEqual(calls, [1, 1]);
    });
  });

  it('a connection that really drops mid-answer is still retried once (502 model_error when the retry drops too)', async () => {
    const { json, stream, calls } = await bothWays({ kind: 'stream', content: SVG, dropAfter: 1 });
    for (const told of [json, stream]) {
      assert.deepEqual([told.status, told.code], [502, 'model_error']);
      assert.match(told.message, /closed the connection before the answer was complete/);
    }
    assert.deepEqual(calls, [2, 2]);
  });

  describe('an answer past max_output_bytes is 502 model_error naming the limit, never retried, and its connection is closed', () => {
    const FIVE_MIB = 5 * 1024 * 1024;
    const big = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">${'<rect width="1" height="1"/>'.repeat(Math.ceil(FIVE_MIB / 28))}</svg>`;
    // Each reply stays open after its answer: only the client can have closed the connection.
    it('in one chunk of 5 MiB', async () => {
      const unstreamed: Reply = { kind: 'raw', contentType: 'application/json', keepOpen: true, body: JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: big } }] }) };
      const streamed: Reply = { kind: 'stream', pieces: [big], stallAfter: 1 };
      const { json, stream, calls } = await bothWays((request) => (request.body.stream ? streamed : unstreamed));
      for (const told of [json, stream]) {
        assert.deepEqual([told.status, told.code], [502, 'model_error']);
        assert.match(told.message, OVER_LIMIT);
      }
      assert.deepEqual(calls, [1, 1], 'not retried');
      assert.deepEqual(await aborted(), [true, true], 'the client closed each upstream connection');
    });

    it('in many small chunks', async () => {
      // Streamed only: unstreamed, an answer is one body however it arrives (the case above).
      upstream.reply = () => ({ kind: 'stream', content: big, chunks: Math.ceil(big.length / 1024), stallAfter: Infinity });
      const start = await balance();
      const stream = await asStream(GEN, body());
      assert.deepEqual([stream.status, stream.code, stream.midStream], [502, 'model_error', true]);
      assert.match(stream.message, OVER_LIMIT);
      assert.equal(await balance(), start, 'nothing charged');
      assert.deepEqual(await aborted(), [true], 'one call, not retried, closed by the client');
    });

    it('in a whole JSON answer that is within the wire allowance but over the limit', async () => {
      const { json, calls } = await bothWays({ kind: 'json', content: big.slice(0, 200 * 1024) });
      assert.deepEqual([json.status, json.code], [502, 'model_error']);
      assert.match(json.message, OVER_LIMIT);
      assert.equal(calls[0], 1, 'not retried');
    });

    it('an answer within the limit is delivered', async () => {
      upstream.reply = () => ({ kind: 'stream', content: SVG, chunks: 6 });
      const res = await h.request('POST', GEN, { key: h.keys.live, body: body() });
      assert.equal(res.status, 200, res.text);
    });
  });

  describe('a stream that stops mid-answer is 504 request_timeout after idle_timeout_ms, never retried', () => {
    it('on generations: keep-alive comments do not keep it alive', async () => {
      const { json, stream, calls } = await bothWays({ kind: 'stream', content: SVG, chunks: 6, stallAfter: 2, stallKeepAliveMs: 50 });
      assert.deepEqual([stream.status, stream.code, stream.midStream], [504, 'request_timeout', true]);
      assert.match(stream.message, /The model stopped sending its answer/);
      // A client that does not stream gets one unstreamed upstream call: only the total deadline bounds it.
      assert.deepEqual([json.status, json.code], [504, 'request_timeout']);
      assert.match(json.message, /did not finish in time/);
      assert.deepEqual(calls, [1, 1]);
      assert.deepEqual(await aborted(), [true, true], 'the stalled connections were closed');
    });

    it('on /v1/responses, whose upstream call always streams, JSON or not', async () => {
      const { json, stream, calls } = await bothWays({ kind: 'stream', content: 'Here is a sun.', chunks: 6, stallAfter: 2 }, '/v1/responses', { model: 'faulty-metered', input: 'Draw a sun' });
      for (const told of [json, stream]) {
        assert.deepEqual([told.status, told.code], [504, 'request_timeout']);
        assert.match(told.message, /The model stopped sending its answer/);
      }
      assert.deepEqual(calls, [1, 1]);
    });
  });

  it('a connect that hangs is 503 model_unavailable after connect_timeout_ms (within 10 %), not retried', async (t) => {
    if (noHangingConnect) return t.skip(noHangingConnect);
    const start = await balance();
    for (const ask of [asJson, asStream]) {
      const began = performance.now();
      const told = await ask(GEN, body({ model: 'hanging' }));
      const elapsed = performance.now() - began;
      assert.deepEqual([told.status, told.code, told.midStream], [503, 'model_unavailable', false]);
      assert.match(told.message, /not reachable in time/);
      // 500 ms allowed; a retry would take twice that, undici's own timer up to a second more.
      assert.ok(elapsed >= 450 && elapsed < 700, `answered after ${Math.round(elapsed)} ms`);
    }
    assert.equal(await balance(), start, 'nothing charged');
  });

  it('an upstream 404 (a model the server does not know) is 503 model_unavailable, never retried, logged as a configuration error', async () => {
    const reply: Reply = { kind: 'error', status: 404, body: { error: { message: "model 'fake-model' not found", type: 'not_found_error' } } };
    const { json, stream, calls } = await bothWays(reply);
    for (const told of [json, stream]) {
      assert.deepEqual([told.status, told.code, told.midStream], [503, 'model_unavailable', false]);
      assert.doesNotMatch(told.message, /fake-model/, 'the upstream body is not echoed');
    }
    assert.deepEqual(calls, [1, 1]);
    assert.match(logged(50)?.err?.message ?? '', /404: model 'fake-model' not found/);
  });
});
