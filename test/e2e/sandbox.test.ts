import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ContentEvent, DraftEvent, GeneratingEvent, SvgResponse, SvgStreamErrorEvent } from '../../src/contract/svgs.ts';
import { parseSvg } from '../../src/svg/parse.ts';
import { assertError, assertMatches } from '../helpers/schemas.ts';
import { base64, SQUARE_SVG, TINY_PNG_BASE64 } from '../helpers/fixtures.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { parseSse, readStream } from '../helpers/sse.ts';

const EVENT_SCHEMAS = { generating: GeneratingEvent, draft: DraftEvent, content: ContentEvent, error: SvgStreamErrorEvent } as const;

/** Parses an SSE body and checks every event against its published schema. */
function checkedEvents(raw: string) {
  const messages = parseSse(raw);
  assert.equal(messages.at(-1)?.data, '[DONE]', 'the stream ends with data: [DONE]');
  return messages.slice(0, -1).map((message) => {
    const payload = JSON.parse(message.data);
    assert.equal(payload.type, message.event, 'data.type equals the event name');
    const schema = EVENT_SCHEMAS[message.event as keyof typeof EVENT_SCHEMAS];
    assert.ok(schema, `known event ${message.event}`);
    assertMatches(schema, payload, `${message.event} event`);
    return payload;
  });
}

function assertSandboxSvg(svg: string, viewBox?: string) {
  const root = parseSvg(svg);
  assert.equal(root.attributes.get('data-sandbox'), 'true');
  assert.equal(root.attributes.get('xmlns'), 'http://www.w3.org/2000/svg');
  assert.match(svg, />SANDBOX</, 'a visible SANDBOX label');
  if (viewBox) assert.equal(root.attributes.get('viewBox'), viewBox);
}

describe('the sandbox answers test keys in the published shapes', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { sandbox: { slow_stream_delay_ms: 40 } } });
  });
  after(() => h.close());

  const post = (path: string, body: unknown, headers?: Record<string, string>) => h.request('POST', path, { body, headers });
  const stream = (path: string, body: object, headers: Record<string, string> = {}) =>
    readStream(`${h.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.test}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ ...body, stream: true }),
    });

  it('generations: n valid SVG documents honoring attributes.viewBox, with credits and no usage on fixed-credit models', async () => {
    const response = await post('/v1/svgs/generations', {
      model: 'local-svg',
      prompt: 'a lighthouse',
      n: 3,
      attributes: { viewBox: { minX: -10, minY: 5, width: 300, height: 150.5 } },
    });
    assert.equal(response.status, 200);
    assertMatches(SvgResponse, response.json, 'SvgResponse');
    assert.match(response.json.id, /^svg_/);
    assert.equal(response.json.data.length, 3);
    assert.equal(response.json.credits, 12, '3 × svg_generate of local-svg (4)');
    assert.ok(!('usage' in response.json));
    for (const doc of response.json.data) {
      assert.equal(doc.mime_type, 'image/svg+xml');
      assertSandboxSvg(doc.svg, '-10 5 300 150.5');
    }
    assert.equal(new Set(response.json.data.map((d: { svg: string }) => d.svg)).size, 3, 'each output differs');
  });

  it('token-priced models carry a mock usage and no credits', async () => {
    const response = await post('/v1/svgs/generations', { model: 'local-svg-metered', prompt: 'a lighthouse' });
    assertMatches(SvgResponse, response.json);
    assert.ok(!('credits' in response.json));
    const { input_tokens, output_tokens, total_tokens } = response.json.usage;
    assert.ok(input_tokens > 0 && output_tokens > 0);
    assert.equal(total_tokens, input_tokens + output_tokens);
  });

  it('vectorizations, edits and animations answer one document; animations carry timing and svg_score', async () => {
    const vector = await post('/v1/svgs/vectorizations', { model: 'inkwell-trace', image: { base64: TINY_PNG_BASE64 } });
    assertMatches(SvgResponse, vector.json);
    assert.equal(vector.json.credits, 1);
    assertSandboxSvg(vector.json.data[0].svg);

    const edit = await post('/v1/svgs/edits', { model: 'local-svg', prompt: 'bluer', svg: SQUARE_SVG });
    assertMatches(SvgResponse, edit.json);
    assert.equal(edit.json.credits, 6);
    assertSandboxSvg(edit.json.data[0].svg, '0 0 10 10');
    assert.match(edit.json.data[0].svg, /fill="#c00"/, 'the edit starts from the supplied SVG');

    const animation = await post('/v1/svgs/animations', { model: 'local-svg', svg_source: { base64: base64(SQUARE_SVG) } });
    assertMatches(SvgResponse, animation.json);
    assert.equal(animation.json.credits, 8);
    const [doc] = animation.json.data;
    // Measured from the delivered document: the breathing loop's dur, and the 600 ms fade-in.
    const loop = /dur="(\d+)ms" repeatCount="indefinite"/.exec(doc.svg);
    assert.ok(loop, 'the sandbox animation loops');
    assert.equal(doc.loop_period_ms, Number(loop[1]));
    assert.equal(doc.opening_animation_ms, 600);
    assert.equal(typeof animation.json.svg_score, 'number');
    assert.ok(animation.json.svg_score > 0.5 && animation.json.svg_score <= 1);
    assert.match(doc.svg, /<animateTransform /);
  });

  it('output is deterministic for the same key and body, streamed or not, and differs across keys', async () => {
    const body = { model: 'local-svg', prompt: 'same', n: 2 };
    const first = await post('/v1/svgs/generations', body);
    const second = await post('/v1/svgs/generations', body);
    assert.deepEqual(second.json.data, first.json.data);
    assert.notEqual(second.json.id, first.json.id, 'each response has its own id');
    const streamed = checkedEvents((await stream('/v1/svgs/generations', body)).raw).filter((e) => e.type === 'content');
    assert.deepEqual(
      streamed.sort((a, b) => a.index - b.index).map((e) => e.svg),
      first.json.data.map((d: { svg: string }) => d.svg),
    );
    const otherKey = await h.createKey({ kind: 'project', environment: 'test' });
    const other = await h.request('POST', '/v1/svgs/generations', { key: otherKey, body });
    assert.notDeepEqual(other.json.data, first.json.data);
  });

  it('a stream is text/event-stream: generating, whole-document snapshot drafts, content, then [DONE]', async () => {
    const result = await stream('/v1/svgs/generations', { model: 'local-svg', prompt: 'x' });
    assert.equal(result.status, 200);
    assert.equal(result.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(result.headers.get('content-encoding'), null);
    assert.match(result.headers.get('x-request-id') ?? '', /^req_/);
    assert.equal(result.headers.get('x-inkwell-environment'), 'test');
    const events = checkedEvents(result.raw);
    assert.deepEqual([...new Set(events.map((e) => e.type))], ['generating', 'draft', 'content']);
    assert.equal(events[0].type, 'generating');
    assert.equal(events.at(-1).type, 'content');
    assert.ok(events.every((e) => !('index' in e)), 'no index when n = 1');
    const drafts = events.filter((e) => e.type === 'draft');
    assert.ok(drafts.length > 1);
    const content = events.at(-1);
    for (const [i, draft] of drafts.entries()) {
      assert.equal(draft.update_type, 'snapshot');
      assert.doesNotThrow(() => parseSvg(draft.svg), 'each draft is a whole, well-formed document');
      if (i > 0) assert.ok(draft.svg.length > drafts[i - 1].svg.length, 'each draft grows on the last');
    }
    assert.ok(content.svg.length >= drafts.at(-1).svg.length, 'the content is the whole document the drafts grew toward');
    assert.equal(content.credits, 4);
    assertSandboxSvg(content.svg);
    assert.ok(events.every((e) => e.id === content.id), 'one stable id per output');
  });

  it('frames are written whole: event and data lines, single-line JSON, \\n endings, parsed the same at any split', async () => {
    const { raw } = await stream('/v1/svgs/generations', { model: 'local-svg', prompt: 'split me ✓ 🦊', n: 3 });
    assert.ok(!raw.includes('\r'), 'no CR line endings');
    const frames = raw.split('\n\n').filter(Boolean);
    for (const frame of frames.slice(0, -1)) assert.match(frame, /^event: [a-z]+\ndata: \{.*\}$/);
    assert.equal(frames.at(-1), 'data: [DONE]');
    const whole = parseSse(raw);
    const length = Buffer.byteLength(raw);
    for (let trial = 0; trial < 200; trial++) {
      const splits = Array.from({ length: 1 + (trial % 40) }, () => Math.floor(Math.random() * length));
      assert.deepEqual(parseSse(raw, splits), whole);
    }
    for (let split = 0; split < Math.min(length, 600); split++) assert.deepEqual(parseSse(raw, [split]), whole);
  });

  it('n > 1 streams interleave outputs, with index on every event', async () => {
    const events = checkedEvents((await stream('/v1/svgs/generations', { model: 'local-svg', prompt: 'x', n: 4 })).raw);
    assert.ok(events.every((e) => Number.isInteger(e.index) && e.index >= 0 && e.index < 4));
    const order = events.map((e) => e.index);
    const firstContent = events.findIndex((e) => e.type === 'content');
    assert.ok(new Set(order.slice(0, firstContent)).size === 4, 'all outputs progress before the first finishes');
    const contents = events.filter((e) => e.type === 'content');
    assert.deepEqual(contents.map((e) => e.index).sort(), [0, 1, 2, 3]);
    const ids = new Map<number, string>();
    for (const e of events) {
      if (ids.has(e.index)) assert.equal(ids.get(e.index), e.id);
      ids.set(e.index, e.id);
    }
    assert.equal(new Set(ids.values()).size, 4);
  });

  it('streams of the other operations end with content carrying their fields', async () => {
    const vector = checkedEvents((await stream('/v1/svgs/vectorizations', { model: 'inkwell-trace', image: { base64: TINY_PNG_BASE64 } })).raw);
    assert.equal(vector.at(-1).type, 'content');
    assert.equal(vector.at(-1).credits, 1);
    const animation = checkedEvents((await stream('/v1/svgs/animations', { model: 'local-svg-metered', svg_source: { base64: base64(SQUARE_SVG) } })).raw);
    const content = animation.at(-1);
    assert.equal(content.type, 'content');
    assert.ok(!('credits' in content), 'token-priced: no credits');
    assert.ok(content.usage.total_tokens > 0);
    assert.ok(content.loop_period_ms > 0);
    assert.equal(typeof content.svg_score, 'number');
  });

  describe('documented magic values', () => {
    const cases: [string, number][] = [
      ['insufficient_credits', 402],
      ['funding_pending', 402],
      ['funding_payment_method_required', 402],
      ['funding_payment_action_required', 402],
      ['funding_payment_failed', 402],
      ['account_frozen', 403],
      ['content_policy_violation', 403],
      ['rate_limit_exceeded', 429],
      ['operation_rate_limit_exceeded', 429],
      ['weekly_limit_exceeded', 429],
      ['request_timeout', 504],
      ['server_error', 500],
      ['model_error', 502],
      ['model_unavailable', 503],
      ['payload_too_large', 413],
      ['invalid_request', 400],
      ['model_not_found', 404],
      ['unauthorized', 403],
      ['invalid_api_key', 401],
    ];
    for (const [code, status] of cases) {
      it(`[mock:error=${code}] answers ${status} ${code}, before any stream starts`, async () => {
        const response = await post('/v1/svgs/generations', { model: 'local-svg', prompt: `draw [mock:error=${code}]` });
        assertError(response, { status, code, param: response.json.param });
        const streamed = await stream('/v1/svgs/generations', { model: 'local-svg', prompt: `[mock:error=${code}]` });
        assert.equal(streamed.status, status);
        assert.match(streamed.headers.get('content-type') ?? '', /application\/json/);
        if (status === 429) {
          assert.ok(Number(response.headers.get('retry-after')) > 0);
          assert.equal(response.json.retry_after, Number(response.headers.get('retry-after')));
        }
      });
    }

    it('error=CODE:STATUS picks the status of a two-status code', async () => {
      assertError(await post('/v1/svgs/generations', { model: 'local-svg', prompt: '[mock:error=request_timeout:408]' }), { status: 408, code: 'request_timeout' });
      assertError(await post('/v1/svgs/generations', { model: 'local-svg', prompt: '[mock:error=request_timeout:418]' }), { status: 400, code: 'invalid_request', param: 'prompt' });
    });

    it('unknown directives are refused so typos do not pass silently', async () => {
      assertError(await post('/v1/svgs/generations', { model: 'local-svg', prompt: '[mock:eror=model_error]' }), { status: 400, code: 'invalid_request', param: 'prompt' });
      assertError(await post('/v1/svgs/generations', { model: 'local-svg', prompt: 'x', instructions: '[mock:nope]' }), { status: 400, code: 'invalid_request', param: 'instructions' });
    });

    it('the Inkwell-Mock header works where there is no prompt', async () => {
      const body = { model: 'inkwell-trace', image: { base64: TINY_PNG_BASE64 } };
      assertError(await post('/v1/svgs/vectorizations', body, { 'inkwell-mock': 'error=model_unavailable' }), { status: 503, code: 'model_unavailable' });
      assertError(await post('/v1/svgs/animations', { model: 'local-svg', svg_source: { base64: base64(SQUARE_SVG) } }, { 'inkwell-mock': 'error=insufficient_credits' }), { status: 402, code: 'insufficient_credits' });
    });

    it('[mock:partial] with n > 1 delivers the first half and answers 200 with fewer documents', async () => {
      const response = await post('/v1/svgs/generations', { model: 'local-svg', prompt: '[mock:partial]', n: 4 });
      assert.equal(response.status, 200);
      assertMatches(SvgResponse, response.json);
      assert.equal(response.json.data.length, 2);
      assert.equal(response.json.credits, 8, 'credits count only delivered documents');
    });

    it('[mock:partial] streams the completed outputs, then an error event, then [DONE]', async () => {
      const events = checkedEvents((await stream('/v1/svgs/generations', { model: 'local-svg', prompt: '[mock:partial]', n: 4 })).raw);
      const last = events.at(-1);
      assert.equal(last.type, 'error');
      assert.equal(last.code, 'model_error');
      assert.equal(last.status, 502);
      assert.match(last.request_id, /^req_/);
      assert.deepEqual(events.filter((e) => e.type === 'content').map((e) => e.index).sort(), [0, 1]);
      assert.ok(events.findIndex((e) => e.type === 'error') > events.findLastIndex((e) => e.type === 'content'));
    });

    it('[mock:partial] with n = 1 fails the only output: a JSON 502, or a stream that ends in an error event', async () => {
      assertError(await post('/v1/svgs/generations', { model: 'local-svg', prompt: '[mock:partial]' }), { status: 502, code: 'model_error' });
      const events = checkedEvents((await stream('/v1/svgs/generations', { model: 'local-svg', prompt: '[mock:partial]' })).raw);
      assert.deepEqual(events.map((e) => e.type), ['generating', 'draft', 'error']);
    });

    it('[mock:slow-stream] spaces the events out', async () => {
      const started = Date.now();
      const result = await stream('/v1/svgs/generations', { model: 'local-svg', prompt: '[mock:slow-stream]' });
      const events = checkedEvents(result.raw);
      assert.ok(Date.now() - started >= 40 * (events.length - 2), 'at least the configured delay per event');
    });
  });

  it('a client that disconnects mid-stream stops the stream and the server stays healthy', async () => {
    const controller = new AbortController();
    const response = await fetch(`${h.url}/v1/svgs/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.test}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local-svg', prompt: '[mock:slow-stream]', n: 8, stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await new Promise((r) => setTimeout(r, 100));
    const after = await post('/v1/svgs/generations', { model: 'local-svg', prompt: 'still fine' });
    assert.equal(after.status, 200);
  });
});
