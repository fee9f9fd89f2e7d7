import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ApiError } from '../../../src/contract/errors.ts';
import { runCall, type CallContext, type CallEvent, type CallSpec } from '../../../src/engines/openai-compatible/completion.ts';
import { UpstreamClient } from '../../../src/engines/upstream/client.ts';
import { startFakeUpstream, type FakeUpstream } from '../../fakes/upstream.ts';
import { UpstreamLog } from '../../../src/engines/upstream/log.ts';
import { UpstreamSet } from '../../../src/engines/upstream/routing/upstream-set.ts';
import { CallDeadline } from '../../../src/engines/upstream/call.ts';

// One completion against the scripted upstream: the body sent, the answer and reasoning read
// back, and the one retry, made only while nothing of the attempt reached the client.

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="#c00"/><circle cx="5" cy="5" r="2"/></svg>';
const USAGE = { prompt_tokens: 12, completion_tokens: 34 };
const SPEC: CallSpec = { index: 2, messages: [{ role: 'user', content: 'a red square' }], maxTokens: 256, sampling: { temperature: 0.5 } };

let upstream: FakeUpstream;
let client: UpstreamClient;

before(async () => {
  upstream = await startFakeUpstream();
  client = new UpstreamClient({ baseUrl: upstream.url, connectTimeoutMs: 2_000 });
});
after(async () => {
  await client.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
});

/** One server behind the call, as an entry with a single base_url has. */
function context(overrides: { stream?: boolean; signal?: AbortSignal; extraBody?: Record<string, unknown> } = {}): CallContext {
  const stream = overrides.stream ?? true;
  const member = { name: 'fake', model: 'fake-model', client, log: new UpstreamLog(undefined, 'up-test', 'http://127.0.0.1'), weight: 1, maxConcurrency: 4 };
  const upstreams = new UpstreamSet('up-test', [member], { failureThreshold: 3, ejectionMs: 10_000, maxEjectionMs: 300_000, ejects: false });
  return {
    stream,
    policy: { signal: overrides.signal ?? new AbortController().signal, upstreams, maxAttempts: 2, deadline: new CallDeadline(10_000), streamOptions: stream },
    extraBody: overrides.extraBody ?? {},
    firstTokenTimeoutMs: 5_000,
  };
}

/** Runs the call, keeping its events. */
async function call(ctx: CallContext, spec: CallSpec = SPEC) {
  const events: CallEvent[] = [];
  const result = await runCall(ctx, spec, (event) => events.push(event));
  return { result, events };
}

describe('runCall', () => {
  it('sends the model, messages, limits and sampling, streamed with usage asked for; extra fields cannot replace them', async () => {
    upstream.reply = () => ({ kind: 'stream', content: SVG, usage: USAGE });
    const { result } = await call(context({ extraBody: { model: 'other', top_k: 20, stream: false } }));
    assert.deepEqual(upstream.requests[0]!.body, {
      model: 'fake-model',
      top_k: 20,
      messages: SPEC.messages,
      max_tokens: 256,
      temperature: 0.5,
      stream: true,
      stream_options: { include_usage: true },
    });
    assert.deepEqual(result, { text: SVG, reasoning: '', usage: { promptTokens: 12, completionTokens: 34, cachedTokens: 0 }, finishReason: 'stop' });
  });

  it('asks for one JSON answer, without stream_options, when the client does not stream', async () => {
    upstream.reply = () => ({ kind: 'stream', content: SVG, usage: USAGE });
    const { result, events } = await call(context({ stream: false }));
    assert.equal(upstream.requests[0]!.body.stream, false);
    assert.equal('stream_options' in upstream.requests[0]!.body, false);
    assert.equal(result.text, SVG);
    assert.deepEqual(result.usage, { promptTokens: 12, completionTokens: 34, cachedTokens: 0 });
    assert.deepEqual(events, [{ type: 'accepted' }]);
  });

  it('separates reasoning, sent apart or inline in <think>, from the answer, and streams it as it comes', async () => {
    upstream.reply = () => ({ kind: 'stream', content: `<think>a square, then</think>${SVG}`, reasoning: 'Plan: red.', chunks: 5 });
    const { result, events } = await call(context());
    assert.equal(result.text, SVG);
    assert.equal(result.reasoning, 'Plan: red.a square, then');
    const streamed = events.filter((event) => event.type === 'reasoning').map((event) => (event as { text: string }).text).join('');
    assert.equal(streamed, 'Plan: red.a square, then');
    // The output's own engine events, made once: no layer above makes them again.
    assert.ok(events.filter((event) => event.type !== 'accepted').every((event) => 'index' in event && event.index === 2));
  });

  it('keeps a refusal and the finish reason', async () => {
    upstream.reply = () => ({ kind: 'stream', content: '', refusal: 'I will not draw that.', finishReason: 'content_filter' });
    const { result } = await call(context());
    assert.equal(result.refusal, 'I will not draw that.');
    assert.equal(result.finishReason, 'content_filter');
  });

  it('retries a 5xx once, and answers from the second attempt', async () => {
    upstream.reply = (_request, index) => (index === 0 ? { kind: 'error', status: 500 } : { kind: 'stream', content: SVG });
    const { result } = await call(context());
    assert.equal(result.text, SVG);
    assert.equal(upstream.requests.length, 2);
  });

  it('fails with 502 model_error after a second failure, and tries no third time', async () => {
    upstream.reply = () => ({ kind: 'error', status: 500 });
    await assert.rejects(call(context()), (error) => error instanceof ApiError && error.status === 502 && error.code === 'model_error');
    assert.equal(upstream.requests.length, 2);
  });

  it('asks again without stream_options when the server refuses them', async () => {
    upstream.reply = () => ({ kind: 'stream', content: SVG, rejectStreamOptions: true });
    const { result } = await call(context());
    assert.equal(result.text, SVG);
    assert.deepEqual(upstream.requests.map((request) => 'stream_options' in request.body), [true, false]);
  });

  it('does not retry once reasoning reached the client: the client would see two answers', async () => {
    upstream.reply = () => ({ kind: 'stream', content: SVG, reasoning: 'Thinking hard.', errorFrame: { after: 1, style: 'openai' } });
    const events: CallEvent[] = [];
    await assert.rejects(runCall(context(), SPEC, (event) => events.push(event)), (error) => error instanceof ApiError && error.code === 'model_error');
    assert.equal(upstream.requests.length, 1);
    assert.ok(events.some((event) => event.type === 'reasoning'));
  });

  it('does not retry once a draft reached the client', async () => {
    upstream.reply = () => ({ kind: 'stream', content: SVG, chunks: 6, dropAfter: 5 });
    const events: CallEvent[] = [];
    const spec = { ...SPEC, drafts: { fallbackViewBox: '0 0 10 10', intervalMs: 0 } };
    await assert.rejects(runCall(context(), spec, (event) => events.push(event)), (error) => error instanceof ApiError && error.code === 'model_error');
    assert.equal(upstream.requests.length, 1);
    const drafts = events.filter((event) => event.type === 'draft');
    assert.ok(drafts.length > 0);
    assert.match((drafts[0] as { svg: string }).svg, /^<svg [^>]*viewBox="0 0 10 10"/);
    assert.ok(drafts.every((draft) => draft.index === 2));
  });

  it('passes a 429 asking for a long wait to the client at once, with its Retry-After', async () => {
    upstream.reply = () => ({ kind: 'error', status: 429, headers: { 'retry-after': '30' } });
    await assert.rejects(call(context()), (error) => error instanceof ApiError && error.status === 503 && error.code === 'model_unavailable' && error.retryAfter === 30);
    assert.equal(upstream.requests.length, 1);
  });

  it("ends with the caller's own reason when the caller leaves", async () => {
    upstream.reply = () => ({ kind: 'stream', content: SVG, firstTokenDelayMs: 2_000 });
    const controller = new AbortController();
    const reason = new Error('the client left');
    setTimeout(() => controller.abort(reason), 100);
    await assert.rejects(call(context({ signal: controller.signal })), (error) => error === reason);
    assert.equal(upstream.requests.length, 1);
  });
});
