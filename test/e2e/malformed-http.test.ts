import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { serverDeadlines } from '../../src/app.ts';
import { answerClientError } from '../../src/http/client-errors.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

/** What came back on one raw connection: every response in order, and whether anything trailed them. */
interface Exchange {
  responses: { status: number; headers: Record<string, string>; body: string }[];
  trailing: string;
  /** Milliseconds from the first byte sent to the first byte received (or to the close). */
  firstByteMs: number;
}

const REQUEST_TIMEOUT_MS = 1500;

function parseResponses(raw: string): Pick<Exchange, 'responses' | 'trailing'> {
  const responses: Exchange['responses'] = [];
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const match = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine!);
    if (!match) break;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length']);
    if (!Number.isSafeInteger(length)) break;
    responses.push({ status: Number(match[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return { responses, trailing: rest };
}

/** Opens a connection, lets `send` write to it, and collects everything until the server closes it. */
function exchange(url: string, send: (socket: Socket) => void, limitMs = 6000): Promise<Exchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let raw = '';
    let started = 0;
    let firstByteMs = -1;
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server did not close the connection within ${limitMs} ms; received: ${raw.slice(0, 300)}`));
    }, limitMs);
    socket.on('connect', () => {
      started = performance.now();
      send(socket);
    });
    socket.on('data', (chunk) => {
      if (firstByteMs < 0) firstByteMs = performance.now() - started;
      raw += chunk.toString('latin1');
    });
    socket.on('error', () => {}); // the server may close while we still write
    socket.on('close', () => {
      clearTimeout(guard);
      resolve({ ...parseResponses(raw), firstByteMs: firstByteMs < 0 ? performance.now() - started : firstByteMs });
    });
  });
}

/** The one response a malformed request gets: exactly the envelope, named by X-Request-ID, then the connection closes. */
function onlyEnvelope(result: Exchange, status: number, code: string, message: RegExp) {
  assert.equal(result.responses.length, 1, `exactly one response, got ${result.responses.length}; trailing: ${result.trailing.slice(0, 200)}`);
  assert.equal(result.trailing, '', 'nothing after the response');
  const [response] = result.responses;
  assert.equal(response!.status, status);
  assert.equal(response!.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(response!.headers.connection, 'close');
  const envelope = JSON.parse(response!.body);
  assert.deepEqual(Object.keys(envelope).sort(), ['code', 'message', 'request_id', 'status']);
  assert.equal(envelope.status, status);
  assert.equal(envelope.code, code);
  assert.match(envelope.message, message);
  assert.match(envelope.request_id, /^req_[0-9A-Z]{26}$/);
  assert.equal(response!.headers['x-request-id'], envelope.request_id);
  return envelope as { request_id: string; message: string };
}

const post = (key: string, extra: string) =>
  `POST /v1/svgs/generations HTTP/1.1\r\nHost: inkwell.test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${extra}`;

describe('requests Node refuses before routing get the error envelope', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { server: { request_timeout_ms: REQUEST_TIMEOUT_MS, body_bytes_in_flight: 1_048_576 } } });
  });
  after(() => h.close());

  const cases: { name: string; request: () => string; status: number; code: string; message: RegExp }[] = [
    {
      name: 'a non-numeric Content-Length',
      request: () => post(h.keys.test, 'Content-Length: ten\r\n\r\n{}'),
      status: 400,
      code: 'invalid_request',
      message: /Content-Length header is not a valid/,
    },
    {
      name: 'Content-Length together with Transfer-Encoding',
      request: () => post(h.keys.test, 'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'),
      status: 400,
      code: 'invalid_request',
      message: /Transfer-Encoding.*never both/,
    },
    {
      name: 'a chunk size that is not hexadecimal (after the request was routed)',
      request: () => post(h.keys.test, 'Transfer-Encoding: chunked\r\n\r\n2\r\n{"\r\nzz\r\nabc\r\n'),
      status: 400,
      code: 'invalid_request',
      message: /chunked request body is malformed/,
    },
    {
      name: 'a control character in a header value',
      request: () => 'GET /v1/models HTTP/1.1\r\nHost: inkwell.test\r\nX-Note: a\x01b\r\n\r\n',
      status: 400,
      code: 'invalid_request',
      message: /header name or value contains a character that is not allowed/,
    },
    {
      name: 'a control character in a header name',
      request: () => 'GET /v1/models HTTP/1.1\r\nHost: inkwell.test\r\nX\x7fNote: ab\r\n\r\n',
      status: 400,
      code: 'invalid_request',
      message: /header name or value contains a character that is not allowed/,
    },
    {
      name: 'a malformed request line',
      request: () => 'HELLO THERE\r\n\r\n',
      status: 400,
      code: 'invalid_request',
      message: /request line is malformed/,
    },
    {
      name: 'headers over the 16 KiB limit',
      request: () => `GET /v1/models HTTP/1.1\r\nHost: inkwell.test\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`,
      status: 413,
      code: 'payload_too_large',
      message: /headers exceed the server's limit of 16384 bytes/,
    },
    {
      name: 'an HTTP/1.1 request without Host',
      request: () => 'GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n',
      status: 400,
      code: 'invalid_request',
      message: /Host header is required/,
    },
    {
      name: 'an Expect header other than 100-continue',
      request: () => 'GET /v1/models HTTP/1.1\r\nHost: inkwell.test\r\nExpect: teapot\r\n\r\n',
      status: 400,
      code: 'invalid_request',
      message: /Expect header is not supported/,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.status} ${c.code}`, { timeout: 10_000 }, async () => {
      const result = await exchange(h.url, (socket) => socket.write(c.request()));
      onlyEnvelope(result, c.status, c.code, c.message);
    });
  }

  it('a body that stops arriving gets 408 request_timeout within about a second of the deadline, and its bytes are released', { timeout: 15_000 }, async () => {
    // 180 kB on the wire: it does not fit beside the stalled request's 900 000 declared bytes of the 1 MiB budget.
    const fitsAlone = `{"model":"local-svg","prompt":"${'\\u00e9'.repeat(30_000)}"}`;
    const stalled = exchange(h.url, (socket) => socket.write(post(h.keys.test, 'Content-Length: 900000\r\n\r\n{"model":"lo')));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const whileHeld = await h.request('POST', '/v1/svgs/generations', { rawBody: fitsAlone, headers: { 'content-type': 'application/json' } });
    assert.equal(whileHeld.status, 429, 'the stalled request holds its declared bytes');

    const result = await stalled;
    onlyEnvelope(result, 408, 'request_timeout', /not received in full before the server's deadline/);
    assert.ok(result.firstByteMs >= REQUEST_TIMEOUT_MS, `408 after the deadline, not before (${result.firstByteMs.toFixed(0)} ms)`);
    assert.ok(result.firstByteMs <= REQUEST_TIMEOUT_MS + 1500, `408 within about a second of the deadline (${result.firstByteMs.toFixed(0)} ms)`);

    const afterwards = await h.request('POST', '/v1/svgs/generations', { rawBody: fitsAlone, headers: { 'content-type': 'application/json' } });
    assert.equal(afterwards.status, 200, `the stalled request's bytes were released: ${afterwards.text.slice(0, 200)}`);
  });

  it('headers that never complete get 408 request_timeout after the deadline', { timeout: 15_000 }, async () => {
    const result = await exchange(h.url, (socket) => socket.write('GET /v1/models HTTP/1.1\r\nHost: inkwell.test\r\nX-Slow: a'));
    onlyEnvelope(result, 408, 'request_timeout', /deadline/);
    assert.ok(result.firstByteMs >= REQUEST_TIMEOUT_MS && result.firstByteMs <= REQUEST_TIMEOUT_MS + 1500, `${result.firstByteMs.toFixed(0)} ms`);
  });

  it('a request answered before its body arrived (401) gets no second response when the body then stalls', { timeout: 15_000 }, async () => {
    const result = await exchange(h.url, (socket) =>
      socket.write('POST /v1/svgs/generations HTTP/1.1\r\nHost: inkwell.test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"mo'),
    );
    assert.equal(result.responses.length, 1, `one response only; trailing: ${result.trailing.slice(0, 200)}`);
    assert.equal(result.trailing, '');
    assert.equal(result.responses[0]!.status, 401);
    assert.equal(JSON.parse(result.responses[0]!.body).code, 'invalid_api_key');
  });

  it('a malformed request pipelined behind a good one is answered after it, in order', { timeout: 10_000 }, async () => {
    const result = await exchange(h.url, (socket) =>
      socket.write(`GET /v1/models HTTP/1.1\r\nHost: inkwell.test\r\nAuthorization: Bearer ${h.keys.test}\r\n\r\nHELLO THERE\r\n\r\n`),
    );
    assert.deepEqual(result.responses.map((r) => r.status), [200, 400]);
    assert.equal(JSON.parse(result.responses[0]!.body).object, 'list');
    onlyEnvelope({ ...result, responses: result.responses.slice(1) }, 400, 'invalid_request', /request line is malformed/);
  });

  it('a connection reset mid-request gets nothing written and the server keeps serving', { timeout: 10_000 }, async () => {
    await exchange(h.url, (socket) => {
      socket.write(post(h.keys.test, 'Content-Length: 100\r\n\r\n{"mo'));
      setTimeout(() => socket.resetAndDestroy(), 100);
    });
    const next = await h.request('GET', '/v1/models');
    assert.equal(next.status, 200);
  });
});

describe('the client error handler', () => {
  const socket = (destroyed = false) => {
    const calls: string[] = [];
    const fake = {
      destroyed,
      writable: !destroyed,
      write: () => calls.push('write'),
      end: () => calls.push('end'),
      destroy: () => calls.push('destroy'),
    };
    return { fake: fake as unknown as Socket, calls };
  };
  const log = { info: () => {} } as never;
  const error = (code: string) => Object.assign(new Error(code), { code });

  it('writes nothing on a reset, a broken pipe or an already destroyed socket', () => {
    for (const [code, destroyed] of [['ECONNRESET', false], ['EPIPE', false], ['HPE_INVALID_METHOD', true]] as const) {
      const { fake, calls } = socket(destroyed);
      answerClientError.call({ log }, error(code), fake);
      assert.ok(!calls.includes('write') && !calls.includes('end'), `${code}: ${calls.join(',')}`);
    }
  });
});

describe('server deadlines', () => {
  it('keep the configured request timeout: the headers timeout never exceeds it and Node checks every second at most', () => {
    assert.deepEqual(serverDeadlines(1500), { requestTimeout: 1500, headersTimeout: 1500, connectionsCheckingInterval: 1000 });
    assert.deepEqual(serverDeadlines(300_000), { requestTimeout: 300_000, headersTimeout: 60_000, connectionsCheckingInterval: 1000 });
    assert.deepEqual(serverDeadlines(0), { requestTimeout: 0, headersTimeout: 60_000, connectionsCheckingInterval: 1000 });
  });
});
