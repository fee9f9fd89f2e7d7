import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeUpstream, type FakeUpstream, type Reply } from '../fakes/upstream.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { SQUARE_SVG, TINY_PNG_BASE64 } from '../helpers/fixtures.ts';
import { mediaFile, startMediaServer } from '../helpers/media-server.ts';
import { assertError } from '../helpers/schemas.ts';
import { readStream } from '../helpers/sse.ts';

const GEN = '/v1/svgs/generations';
const EDIT = '/v1/svgs/edits';
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><title>Sun</title><rect width="100" height="100" fill="#bde0fe"/><circle cx="50" cy="50" r="20" fill="#ffb703"/><path d="M10 90 L90 90" stroke="#023047" stroke-width="4"/></svg>';
const USAGE = { prompt_tokens: 120, completion_tokens: 80 };

function entry(id: string, upstreamUrl: string, extra: Record<string, unknown> = {}, options: Record<string, unknown> = {}) {
  return {
    id,
    engine: 'openai-compatible',
    operations: ['svg_generate', 'svg_edit'],
    billing: { kind: 'fixed_credit', credits: { svg_generate: 3, svg_vectorize: 0, svg_edit: 5 } },
    max_references: 4,
    input_modalities: ['text', 'image', 'svg'],
    supported_sampling_parameters: ['temperature', 'top_p'],
    max_output_length: 4096,
    ...extra,
    options: { base_url: upstreamUrl, model: 'fake-model', api_key_env: 'TEST_UPSTREAM_KEY', vision: true, first_token_timeout_ms: 1500, total_timeout_ms: 4000, max_concurrency: 2, ...options },
  };
}

describe('the openai-compatible engine against a scripted upstream', () => {
  let upstream: FakeUpstream;
  let h: Harness;
  const RATES = { input: 10_000, cached_input: 1000, cache_write: 12_500, output: 40_000 };

  before(async () => {
    upstream = await startFakeUpstream();
    h = await startHarness({
      env: { TEST_UPSTREAM_KEY: 'upstream-secret-123' },
      config: {
        media: { allow_loopback_urls: true },
        catalog: {
          models: [
            entry('up-fixed', upstream.url),
            entry('up-metered', upstream.url, { billing: { kind: 'token_usage', rates: RATES } }),
            entry('up-reasoner', upstream.url, {}, { reasoning: true, reasoning_budget_tokens: 500 }),
            entry('up-blind', upstream.url, { input_modalities: ['text', 'svg'] }, { vision: false }),
            entry('up-down', 'http://127.0.0.1:9/v1'),
          ],
        },
      },
    });
  });
  after(async () => {
    await h.close();
    await upstream.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    upstream.reply = () => ({ kind: 'stream', content: SVG, usage: USAGE });
  });

  const balance = async () => (await h.store.organizations.get(h.organizationId))!.balance_millicents;
  const credit = () => h.config.billing.millicents_per_credit;
  const generate = (body: Record<string, unknown>, key = h.keys.live) => h.request('POST', GEN, { key, body: { model: 'up-fixed', prompt: 'a sun over the sea', ...body } });
  const stream = (path: string, body: Record<string, unknown>) =>
    readStream(`${h.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ stream: true, ...body }),
    });
  const types = (events: { data: string }[]) => events.map((e) => (e.data === '[DONE]' ? '[DONE]' : JSON.parse(e.data).type as string));

  describe('generations', () => {
    it('generates, sends the prompt, key and sampling upstream, and debits the catalog price', async () => {
      const start = await balance();
      const res = await generate({ temperature: 0.3, presence_penalty: 1, attributes: { viewBox: { minX: 0, minY: 0, width: 100, height: 100 } } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.credits, 3);
      const svg: string = res.json.data[0].svg;
      assert.match(svg, /^<svg [^>]*viewBox="0 0 100 100"/);
      assert.match(svg, /<circle cx="50" cy="50" r="20" fill="#ffb703"\/>/);
      assert.equal(start - (await balance()), 3 * credit());
      const sent = upstream.requests[0]!;
      assert.equal(sent.path, '/v1/chat/completions');
      assert.equal(sent.headers.authorization, 'Bearer upstream-secret-123');
      assert.equal(sent.body.model, 'fake-model');
      assert.equal(sent.body.stream, false, 'a client that does not stream gets one JSON answer from upstream');
      assert.equal(sent.body.stream_options, undefined);
      assert.equal(sent.body.max_tokens, 4096);
      assert.equal(sent.body.temperature, 0.3);
      assert.equal(sent.body.presence_penalty, undefined, 'not listed in supported_sampling_parameters');
      assert.match(sent.body.messages[0].content, /viewBox="0 0 100 100"/);
      assert.match(sent.body.messages[1].content, /a sun over the sea/);
    });

    it('streams generating, drafts as the SVG grows, then content with credits; the same SVG as without streaming', async () => {
      upstream.reply = () => ({ kind: 'stream', content: SVG, chunks: 12, usage: USAGE });
      const plain = await generate({});
      const streamed = await stream(GEN, { model: 'up-fixed', prompt: 'a sun over the sea' });
      assert.equal(streamed.status, 200);
      assert.equal(streamed.headers.get('cache-control'), 'no-cache, no-transform');
      assert.equal(streamed.headers.get('x-accel-buffering'), 'no');
      const kinds = types(streamed.events);
      assert.equal(kinds[0], 'generating');
      assert.ok(kinds.indexOf('draft') > 0 && kinds.indexOf('draft') < kinds.indexOf('content'), kinds.join(','));
      assert.deepEqual(kinds.slice(-2), ['content', '[DONE]']);
      const content = JSON.parse(streamed.events.at(-2)!.data);
      assert.equal(content.credits, 3);
      const streamedCall = upstream.requests.at(-1)!.body;
      assert.equal(streamedCall.stream, true);
      assert.deepEqual(streamedCall.stream_options, { include_usage: true });
      assert.equal(content.svg, plain.json.data[0].svg);
      for (const draft of streamed.events.filter((e) => e.data !== '[DONE]' && JSON.parse(e.data).type === 'draft')) {
        const data = JSON.parse(draft.data);
        assert.equal(data.update_type, 'snapshot');
        assert.match(data.svg, /^<svg /);
      }
    });

    it('runs n outputs as parallel upstream calls, at most max_concurrency at once, interleaved with index', async () => {
      let active = 0;
      let most = 0;
      upstream.reply = async () => {
        active++;
        most = Math.max(most, active);
        await sleep(60);
        active--;
        return { kind: 'stream', content: SVG, chunks: 4, chunkDelayMs: 10, usage: USAGE };
      };
      const streamed = await stream(GEN, { model: 'up-fixed', prompt: 'x', n: 3 });
      assert.equal(upstream.requests.length, 3);
      assert.equal(most, 2);
      const data = streamed.events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
      assert.ok(data.every((e) => typeof e.index === 'number'));
      assert.deepEqual(data.filter((e) => e.type === 'content').map((e) => e.index).sort(), [0, 1, 2]);
    });

    it('delivers what it can of a batch: a failed output is not charged', async () => {
      upstream.reply = (_request, index) => (index === 0 ? { kind: 'stream', content: 'Sorry, I cannot draw that.' } : { kind: 'stream', content: SVG, usage: USAGE });
      const start = await balance();
      const res = await generate({ n: 2 });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.data.length, 1);
      assert.equal(res.json.credits, 3);
      assert.equal(start - (await balance()), 3 * credit());
    });

    it('sends references as images to a vision model, downscaled, and refuses them for a model without image input', async () => {
      const res = await generate({ references: [{ base64: TINY_PNG_BASE64 }] });
      assert.equal(res.status, 200, res.text);
      const parts = upstream.requests[0]!.body.messages[1].content;
      assert.equal(parts[0].type, 'text');
      assert.match(parts[1].image_url.url, /^data:image\/png;base64,/);
      upstream.requests.length = 0;
      assertError(await generate({ model: 'up-blind', references: [{ base64: TINY_PNG_BASE64 }] }), { status: 400, code: 'invalid_request', param: 'references' });
      assertError(await generate({ model: 'up-blind', references: [{ base64: TINY_PNG_BASE64 }] }, h.keys.test), { status: 400, code: 'invalid_request', param: 'references' });
      assert.equal(upstream.requests.length, 0);
    });

    it('test keys never reach the upstream', async () => {
      const res = await generate({}, h.keys.test);
      assert.equal(res.status, 200);
      assert.match(res.json.data[0].svg, /data-sandbox="true"/);
      assert.equal(upstream.requests.length, 0);
    });
  });

  describe('usage and token pricing', () => {
    const metered = async (reply: Reply) => {
      upstream.reply = () => reply;
      const start = await balance();
      const res = await generate({ model: 'up-metered' });
      return { res, charged: start - (await balance()) };
    };
    const cost = (input: number, output: number) => Math.ceil((input * RATES.input + output * RATES.output) / 1e6);

    it('settles the usage of the last chunk', async () => {
      const { res, charged } = await metered({ kind: 'stream', content: SVG, usage: USAGE });
      assert.deepEqual(res.json.usage, { input_tokens: 120, output_tokens: 80, total_tokens: 200 });
      assert.equal(res.json.credits, undefined);
      assert.ok(Math.abs(charged - cost(120, 80)) <= 1, `${charged}`);
    });

    it('reads usage from a chunk that also carries choices', async () => {
      const { res } = await metered({ kind: 'stream', content: SVG, usage: USAGE, usageIn: 'with-choices' });
      assert.deepEqual(res.json.usage, { input_tokens: 120, output_tokens: 80, total_tokens: 200 });
    });

    it('counts tokens locally when the upstream reports none, so real work is never free', async () => {
      const { res, charged } = await metered({ kind: 'stream', content: SVG, usageIn: 'none' });
      assert.ok(res.json.usage.input_tokens > 100 && res.json.usage.output_tokens > 40, JSON.stringify(res.json.usage));
      assert.ok(charged > 0);
    });

    it('retries once without stream_options when the upstream refuses it', async () => {
      upstream.reply = () => ({ kind: 'stream', content: SVG, usage: USAGE, rejectStreamOptions: true });
      const streamed = await stream(GEN, { model: 'up-metered', prompt: 'x' });
      const content = JSON.parse(streamed.events.at(-2)!.data);
      assert.equal(content.type, 'content');
      assert.equal(upstream.requests.length, 2);
      assert.equal(upstream.requests[1]!.body.stream_options, undefined);
      assert.ok(content.usage.output_tokens > 0, 'counted locally');
    });
  });

  describe('reasoning', () => {
    for (const field of ['reasoning_content', 'reasoning'] as const) {
      it(`streams ${field} deltas as reasoning events, never as part of the SVG`, async () => {
        upstream.reply = () => ({ kind: 'stream', reasoning: 'First the sky, then <svg> a sun.', reasoningField: field, content: SVG, usage: USAGE });
        const streamed = await stream(GEN, { model: 'up-fixed', prompt: 'x' });
        const data = streamed.events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
        assert.equal(data.filter((e) => e.type === 'reasoning').map((e) => e.text).join(''), 'First the sky, then <svg> a sun.');
        assert.doesNotMatch(data.find((e) => e.type === 'content').svg, /First the sky/);
      });
    }

    it('separates inline <think> split across chunks', async () => {
      upstream.reply = () => ({ kind: 'stream', pieces: ['<thi', 'nk>Plan: <svg width="1"', '/> no.</th', 'ink>\n', SVG.slice(0, 50), SVG.slice(50)], usage: USAGE });
      const streamed = await stream(GEN, { model: 'up-fixed', prompt: 'x' });
      const data = streamed.events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
      assert.equal(data.filter((e) => e.type === 'reasoning').map((e) => e.text).join(''), 'Plan: <svg width="1"/> no.');
      assert.match(data.find((e) => e.type === 'content').svg, /<circle/);
    });

    it('raises a reasoning model\'s output budget by its reasoning budget and sends reasoning_effort', async () => {
      const res = await generate({ model: 'up-reasoner', reasoning_effort: 'high', max_output_tokens: 1000 });
      assert.equal(res.status, 200, res.text);
      assert.equal(upstream.requests[0]!.body.max_tokens, 1500);
      assert.equal(upstream.requests[0]!.body.reasoning_effort, 'high');
    });
  });

  describe('failures', () => {
    const refused = async (reply: Reply | ((index: number) => Reply), expected: { status: number; code: string }, body: Record<string, unknown> = {}) => {
      upstream.reply = (_request, index) => (typeof reply === 'function' ? reply(index) : reply);
      const start = await balance();
      const res = await generate(body);
      assertError(res, expected);
      assert.equal(await balance(), start, 'nothing charged');
      return res;
    };

    it('an unreachable upstream is 503 model_unavailable with Retry-After', async () => {
      const res = await refused({ kind: 'drop' }, { status: 503, code: 'model_unavailable' }, { model: 'up-down' });
      assert.ok(res.headers.get('retry-after'));
      assert.doesNotMatch(res.json.message, /127\.0\.0\.1/);
    });

    it('a 429 with a long Retry-After is 503 with that Retry-After, not retried', async () => {
      const res = await refused({ kind: 'error', status: 429, headers: { 'retry-after': '30' } }, { status: 503, code: 'model_unavailable' });
      assert.equal(res.json.retry_after, 30);
      assert.equal(res.headers.get('retry-after'), '30');
      assert.equal(upstream.requests.length, 1);
    });

    it('a 429 with a short Retry-After, or a 5xx, is retried once', async () => {
      upstream.reply = (_request, index) => (index === 0 ? { kind: 'error', status: 429, headers: { 'retry-after': '1' } } : { kind: 'stream', content: SVG, usage: USAGE });
      assert.equal((await generate({})).status, 200);
      assert.equal(upstream.requests.length, 2);
      upstream.requests.length = 0;
      await refused({ kind: 'error', status: 500 }, { status: 502, code: 'model_error' });
      assert.equal(upstream.requests.length, 2);
    });

    it('a rejected upstream key is 503 (the operator\'s fault), never retried', async () => {
      await refused({ kind: 'error', status: 401 }, { status: 503, code: 'model_unavailable' });
      assert.equal(upstream.requests.length, 1);
    });

    for (const style of ['openai', 'vllm'] as const) {
      it(`an ${style} error frame inside a 200 stream (or a 200 body) is 502 model_error, nothing charged`, async () => {
        await refused({ kind: 'stream', content: SVG, chunks: 6, errorFrame: { after: 3, style } }, { status: 502, code: 'model_error' });
        const start = await balance();
        const streamed = await stream(GEN, { model: 'up-fixed', prompt: 'x' });
        assert.deepEqual(types(streamed.events).slice(-2), ['error', '[DONE]']);
        assert.equal(JSON.parse(streamed.events.at(-2)!.data).code, 'model_error');
        assert.equal(await balance(), start);
      });
    }

    it('a stream cut mid-answer after drafts is an error event in the stream, and nothing is charged', async () => {
      upstream.reply = () => ({ kind: 'stream', content: SVG, chunks: 10, dropAfter: 8 });
      const start = await balance();
      const streamed = await stream(GEN, { model: 'up-fixed', prompt: 'x' });
      const kinds = types(streamed.events);
      assert.ok(kinds.includes('draft'));
      assert.deepEqual(kinds.slice(-2), ['error', '[DONE]']);
      assert.equal(JSON.parse(streamed.events.at(-2)!.data).code, 'model_error');
      assert.equal(await balance(), start);
    });

    it('content_filter and refusals are 403 content_policy_violation', async () => {
      await refused({ kind: 'stream', content: '', finishReason: 'content_filter' }, { status: 403, code: 'content_policy_violation' });
    });

    it('prose with no SVG, or an SVG that shows nothing, is 502 model_error', async () => {
      await refused({ kind: 'stream', content: 'I am a language model and cannot draw.' }, { status: 502, code: 'model_error' });
      await refused({ kind: 'stream', content: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9"><rect width="9" height="9" fill="none"/></svg>' }, { status: 502, code: 'model_error' });
    });

    it('an answer cut at the token limit keeps what is complete', async () => {
      upstream.reply = () => ({ kind: 'stream', content: `${SVG.slice(0, SVG.indexOf('<path') + 20)}`, finishReason: 'length', usage: USAGE });
      const res = await generate({});
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.data[0].svg, /<circle[^>]*\/><path d="M10 90"\/><\/svg>$/);
    });

    it('a slow first token is 504 request_timeout when streaming; so is the total deadline', async () => {
      upstream.reply = () => ({ kind: 'stream', content: SVG, firstTokenDelayMs: 2500 });
      const streamed = await stream(GEN, { model: 'up-fixed', prompt: 'x' });
      assert.equal(streamed.status, 504);
      assert.equal(JSON.parse(streamed.raw).code, 'request_timeout');
      await refused({ kind: 'stream', content: SVG, chunks: 20, chunkDelayMs: 300 }, { status: 504, code: 'request_timeout' });
    });

    it('a client that disconnects closes the upstream connection', async () => {
      upstream.reply = () => ({ kind: 'stream', content: SVG, chunks: 40, chunkDelayMs: 100 });
      const controller = new AbortController();
      const response = await fetch(`${h.url}${GEN}`, {
        method: 'POST',
        signal: controller.signal,
        headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'up-fixed', prompt: 'x', stream: true }),
      });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      for (let i = 0; i < 40 && !upstream.requests[0]?.aborted; i++) await sleep(50);
      assert.equal(upstream.requests[0]?.aborted, true);
    });
  });

  describe('edits', () => {
    const EDITED = SQUARE_SVG.replace('#c00', '#00c');

    it('sends the instruction and the whole source document; returns the edited document', async () => {
      upstream.reply = () => ({ kind: 'stream', content: `Here it is:\n\`\`\`svg\n${EDITED}\n\`\`\``, usage: USAGE });
      const start = await balance();
      const res = await h.request('POST', EDIT, { key: h.keys.live, body: { model: 'up-fixed', prompt: 'make it blue', svg: SQUARE_SVG } });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.data[0].svg, /fill="#00c"/);
      assert.equal(res.json.credits, 5);
      assert.equal(start - (await balance()), 5 * credit());
      const user = upstream.requests[0]!.body.messages[1].content as string;
      assert.match(user, /make it blue/);
      assert.ok(user.includes('<rect width="10" height="10" fill="#c00"/>'));
    });

    it('reviews the edit with the vision model, redoes it while faults are found, and delivers the best version seen', async () => {
      const WORSE = SQUARE_SVG.replace('#c00', '#0c0');
      const verdicts = ['{"score": 6, "done": false, "faults": ["not blue enough"]}', '{"score": 3, "done": false, "faults": ["now green"]}', '{"score": 5, "done": false, "faults": ["still off"]}'];
      let reviews = 0;
      let redos = 0;
      upstream.reply = (request) => {
        const system = request.body.messages[0].content as string;
        if (system.includes('You review')) {
          assert.match(request.body.messages[1].content[1].image_url.url, /^data:image\/png;base64,/);
          return { kind: 'stream', content: verdicts[reviews++]!, usage: { prompt_tokens: 50, completion_tokens: 10 } };
        }
        if ((request.body.messages[1].content as string).includes('A reviewer found')) {
          redos++;
          return { kind: 'stream', content: redos === 1 ? WORSE : SQUARE_SVG.replace('#c00', '#333'), usage: USAGE };
        }
        return { kind: 'stream', content: EDITED, usage: USAGE };
      };
      const res = await h.request('POST', EDIT, { key: h.keys.live, body: { model: 'up-metered', prompt: 'make it blue', svg: SQUARE_SVG, max_review_steps: 2 } });
      assert.equal(res.status, 200, res.text);
      assert.equal(reviews, 3, 'each version reviewed, the last one too');
      assert.equal(redos, 2);
      assert.match(res.json.data[0].svg, /fill="#00c"/, 'the first edit scored best');
      assert.equal(res.json.usage.input_tokens, 3 * 120 + 3 * 50, 'every call is metered');
    });

    it('fetches an svg_source URL through the guarded media input', async () => {
      const media = await startMediaServer({ '/square.svg': mediaFile('image/svg+xml', SQUARE_SVG) });
      try {
        upstream.reply = () => ({ kind: 'stream', content: EDITED, usage: USAGE });
        const url = `${media.url}/square.svg`;
        const res = await h.request('POST', EDIT, { key: h.keys.live, body: { model: 'up-fixed', prompt: 'make it blue', svg_source: { url } } });
        assert.equal(res.status, 200, res.text);
        assert.ok((upstream.requests[0]!.body.messages[1].content as string).includes('fill="#c00"'));
      } finally {
        await media.close();
      }
    });

    it('skips review steps on a model without image input', async () => {
      upstream.reply = () => ({ kind: 'stream', content: EDITED, usage: USAGE });
      const res = await h.request('POST', EDIT, { key: h.keys.live, body: { model: 'up-blind', prompt: 'make it blue', svg: SQUARE_SVG, max_review_steps: 3 } });
      assert.equal(res.status, 200, res.text);
      assert.equal(upstream.requests.length, 1);
    });
  });
});

describe('openai-compatible entries are checked when the service starts', () => {
  const base = { id: 'bad', engine: 'openai-compatible', operations: ['svg_generate'], billing: { kind: 'fixed_credit', credits: { svg_generate: 1, svg_vectorize: 0 } }, max_references: 0 };
  const start = (options: Record<string, unknown>, extra: Record<string, unknown> = {}) => startHarness({ config: { catalog: { models: [{ ...base, ...extra, options }] } } });

  for (const [label, options, extra, message] of [
    ['a missing base_url', { model: 'm' }, {}, /Model bad: options\.base_url/],
    ['a base_url that is no http URL', { base_url: 'ftp://x', model: 'm' }, {}, /Model bad: options\.base_url/],
    ['an unknown option', { base_url: 'http://127.0.0.1:1/v1', model: 'm', temprature: 1 }, {}, /Model bad: options.*temprature/],
    ['a max_concurrency of 0', { base_url: 'http://127.0.0.1:1/v1', model: 'm', max_concurrency: 0 }, {}, /Model bad: options\.max_concurrency/],
    ['an api_key_env that is not set', { base_url: 'http://127.0.0.1:1/v1', model: 'm', api_key_env: 'INKWELL_TEST_UNSET_KEY' }, {}, /Model bad: options\.api_key_env names INKWELL_TEST_UNSET_KEY/],
    ['vision that disagrees with input_modalities', { base_url: 'http://127.0.0.1:1/v1', model: 'm' }, { input_modalities: ['text', 'image'] }, /Model bad: options\.vision/],
    ['both base_url and upstreams', { base_url: 'http://127.0.0.1:1/v1', model: 'm', upstreams: [{ base_url: 'http://127.0.0.1:2/v1' }] }, {}, /Model bad: give options\.base_url or options\.upstreams, not both/],
    ['an upstream without a model name', { upstreams: [{ base_url: 'http://127.0.0.1:1/v1', model: 'm' }, { base_url: 'http://127.0.0.1:2/v1' }] }, {}, /Model bad: options\.upstreams\[1\]\.model is required/],
    ['two upstreams of one name', { model: 'm', upstreams: [{ base_url: 'http://127.0.0.1:1/v1' }, { base_url: 'http://127.0.0.1:1/v2' }] }, {}, /Model bad: options\.upstreams\[1\] is named '127\.0\.0\.1:1' like an earlier one/],
    ['an upstream of weight 0', { model: 'm', upstreams: [{ base_url: 'http://127.0.0.1:1/v1', weight: 0 }] }, {}, /Model bad: options\.upstreams\/0\/weight|Model bad: options\.upstreams.*weight/],
    ["an upstream's api_key_env that is not set", { model: 'm', upstreams: [{ base_url: 'http://127.0.0.1:1/v1', api_key_env: 'INKWELL_TEST_UNSET_KEY' }] }, {}, /Model bad: options\.upstreams\[0\]\.api_key_env names INKWELL_TEST_UNSET_KEY/],
    ['a fallback not in the catalog', { base_url: 'http://127.0.0.1:1/v1', model: 'm' }, { fallbacks: ['nowhere'] }, /Model bad names fallback 'nowhere', which is not in the catalog/],
    ['itself as a fallback', { base_url: 'http://127.0.0.1:1/v1', model: 'm' }, { fallbacks: ['bad'] }, /Model bad names itself in fallbacks/],
  ] as const) {
    it(`refuses ${label}, naming the entry and field`, async () => {
      await assert.rejects(start(options, extra), (error: Error) => {
        assert.equal(error.name, 'ConfigError');
        assert.match(error.message, message);
        return true;
      });
    });
  }
});
