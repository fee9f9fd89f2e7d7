import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { traceIdOf } from '../../src/http/traceparent.ts';
import { createLogger } from '../../src/main.ts';
import { PAID_CONFIG } from '../helpers/billing.ts';
import { TINY_PNG_BASE64 } from '../helpers/fixtures.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { readStream } from '../helpers/sse.ts';

describe('request logs never hold an API key', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
  // The production logger, only writing to memory and at every level.
  const logger = createLogger({ log: { level: 'trace' } }, sink);
  let h: Harness;
  let live: string;
  before(async () => {
    h = await startHarness({ logger });
    live = h.keys.live;
  });
  after(() => h.close());

  /** The secret part alone: it must not appear in any form, prefix or not. */
  const secretOf = (key: string) => key.slice(key.lastIndexOf('_') + 1);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
  const linesAbout = (requestId: string) => lines.filter((line) => line.includes(requestId));

  function assertNoKey() {
    assert.ok(lines.length > 0, 'the test captured log lines');
    for (const line of lines) {
      assert.ok(!line.includes(secretOf(live)), `a log line holds the key: ${line}`);
    }
  }

  it('a key in the query string: the URL is logged without its query', { timeout: 10_000 }, async () => {
    const response = await h.request('GET', `/v1/models?api_key=${live}`, { key: null });
    assert.equal(response.status, 401, 'a key in the URL does not authenticate');
    await settle();
    const incoming = linesAbout(response.json.request_id).map((line) => JSON.parse(line)).find((entry) => entry.msg === 'incoming request');
    assert.equal(incoming?.req.url, '/v1/models?[redacted]');
    assertNoKey();
  });

  it('a key in the path, plain or percent-encoded, is redacted', { timeout: 10_000 }, async () => {
    for (const path of [`/v1/models/${live}`, `/v1/models/${live.replaceAll('_', '%5F')}`]) {
      const response = await h.request('GET', path);
      assert.notEqual(response.status, 200);
      await settle();
      const incoming = linesAbout(response.json.request_id).map((line) => JSON.parse(line)).find((entry) => entry.msg === 'incoming request');
      assert.equal(incoming?.req.url, '/v1/models/[redacted]');
    }
    assertNoKey();
  });

  it('a key in a malformed Authorization header is never logged', { timeout: 10_000 }, async () => {
    for (const authorization of [live, `Bearer ${live} extra`, `Basic ${live}`, `Bearer ${live}x`]) {
      const response = await h.request('GET', '/v1/models', { headers: { authorization } });
      assert.equal(response.status, 401);
    }
    await settle();
    assertNoKey();
  });

  it('a key in a request Node cannot parse is never logged', { timeout: 10_000 }, async () => {
    const { port } = new URL(h.url);
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write(`GET /v1/models?key=${live} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${live}\r\nX-Bad: a\x01b\r\n\r\n`),
      );
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('close', () => resolve(text));
    });
    assert.match(reply, /^HTTP\/1\.1 400 /);
    await settle();
    assert.ok(lines.some((line) => line.includes('malformed or incomplete request refused')));
    assertNoKey();
  });

  it('a key in a logged message or error is redacted', { timeout: 10_000 }, () => {
    logger.error({ err: new Error(`upstream echoed ${live}`) }, `call failed for ${live.replaceAll('_', '%5F')}`);
    const last = JSON.parse(lines.at(-1)!);
    assert.equal(last.msg, 'call failed for [redacted]');
    assert.equal(last.err.message, 'upstream echoed [redacted]');
    assertNoKey();
  });
});

describe('the completion line of each request', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: PAID_CONFIG, logger: createLogger({ log: { level: 'info' } }, sink) });
  });
  after(() => h.close());

  const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
  const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
  async function completionOf(requestId: string | null) {
    await settle();
    const line = lines.map((text) => JSON.parse(text)).find((entry) => entry.request_id === requestId && entry.msg === 'request completed');
    assert.ok(line, `a completion line for ${requestId}`);
    return line;
  }

  it('names request, trace, organization, key prefix, model, operation, status, duration and credits', { timeout: 10_000 }, async () => {
    const response = await h.request('POST', '/v1/svgs/vectorizations', {
      key: h.keys.live,
      headers: { traceparent: TRACEPARENT },
      body: { model: 'paid-fixed', image: { base64: TINY_PNG_BASE64 } },
    });
    assert.equal(response.status, 200, response.text);
    const line = await completionOf(response.headers.get('x-request-id'));
    assert.equal(line.level, 30);
    assert.equal(line.request_id, response.json.request_id ?? response.headers.get('x-request-id'));
    assert.equal(line.trace_id, TRACE_ID);
    assert.equal(line.organization_id, h.organizationId);
    assert.match(line.key_id, /^key_/);
    assert.equal(line.key_prefix, 'sk_live_');
    assert.equal(line.model, 'paid-fixed');
    assert.equal(line.operation, 'svg_vectorize');
    assert.equal(line.route, '/v1/svgs/vectorizations');
    assert.equal(line.status, 200);
    assert.ok(typeof line.duration_ms === 'number' && line.duration_ms > 0);
    assert.equal(line.credits, 2);
    for (const text of lines) {
      assert.ok(!text.includes(TINY_PNG_BASE64.slice(0, 40)), `a log line holds the base64 payload: ${text}`);
      assert.ok(!text.includes(h.keys.live.slice(8)), `a log line holds the key: ${text}`);
    }
  });

  it('a stream\'s line carries what it charged; a sandbox line carries no credits', { timeout: 10_000 }, async () => {
    const stream = await readStream(`${h.url}/v1/svgs/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'paid-fixed', prompt: 'a fox', n: 2, stream: true }),
    });
    assert.equal(stream.status, 200);
    const streamed = await completionOf(stream.headers.get('x-request-id'));
    assert.equal(streamed.operation, 'svg_generate');
    assert.equal(streamed.credits, 6);

    const sandbox = await h.request('POST', '/v1/svgs/generations', { key: h.keys.test, body: { model: 'paid-fixed', prompt: 'a fox' } });
    assert.equal(sandbox.status, 200);
    const line = await completionOf(sandbox.headers.get('x-request-id'));
    assert.equal(line.key_prefix, 'sk_test_');
    assert.equal(line.model, 'paid-fixed');
    assert.equal(line.credits, 0, 'the sandbox debits nothing');
    assert.equal(line.outcome, 'ok');
    assert.equal(line.trace_id, undefined, 'no traceparent, no trace id');
  });

  it('a refused key is logged with its status and without an organization', { timeout: 10_000 }, async () => {
    const response = await h.request('GET', '/v1/models', { key: null, headers: { traceparent: 'not a traceparent' } });
    assert.equal(response.status, 401);
    const line = await completionOf(response.headers.get('x-request-id'));
    assert.equal(line.status, 401);
    assert.equal(line.outcome, 'error');
    assert.equal(line.error_code, 'invalid_api_key');
    assert.equal(line.credits, 0);
    assert.equal(line.organization_id, undefined);
    assert.equal(line.key_prefix, undefined);
    assert.equal(line.trace_id, undefined);
  });

  it('reads only valid W3C traceparent headers', () => {
    assert.equal(traceIdOf(TRACEPARENT), TRACE_ID);
    assert.equal(traceIdOf(`01-${TRACE_ID}-00f067aa0ba902b7-01-later-fields`), TRACE_ID, 'a later version may add fields');
    for (const invalid of [
      undefined,
      '',
      TRACEPARENT.toUpperCase(),
      `${TRACEPARENT}-extra`,
      `ff-${TRACE_ID}-00f067aa0ba902b7-01`,
      `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `00-${TRACE_ID}-00f067aa0ba902b7`,
      [TRACEPARENT, TRACEPARENT],
    ]) {
      assert.equal(traceIdOf(invalid), undefined, String(invalid));
    }
  });
});
