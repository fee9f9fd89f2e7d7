import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/schemas.ts';
import { ENDPOINT_CASES } from '../helpers/fixtures.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

/** Sends bytes exactly as given (fetch would fix some of them up). */
function rawRequest(url: string, method: string, path: string, headers: Record<string, string>, body?: Buffer | string) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; json: any }>((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
        resolve({ status: res.statusCode!, headers: res.headers, json });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe('the wire contract shared by every endpoint', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('every response carries X-Request-ID, and error envelopes repeat it', async () => {
    const ids = new Set<string>();
    for (const c of ENDPOINT_CASES) {
      for (const key of [h.keys.test, null]) {
        const response = await h.request(c.method, c.path, { key, body: 'body' in c ? c.body : undefined });
        const id = response.headers.get('x-request-id');
        assert.match(id ?? '', /^req_[0-9A-Z]{26}$/);
        ids.add(id!);
        if (response.status >= 400) assert.equal(response.json.request_id, id);
      }
    }
    const notFound = await h.request('GET', '/v2/nothing');
    assert.equal(notFound.json.request_id, notFound.headers.get('x-request-id'));
    assert.equal(ids.size, ENDPOINT_CASES.length * 2, 'request ids are unique');
  });

  it('x-trace-id of 1 to 256 characters is echoed as X-Trace-ID; other lengths are 400', async () => {
    for (const trace of ['t', 'trace-123', 'x'.repeat(256)]) {
      const response = await h.request('GET', '/v1/models', { headers: { 'x-trace-id': trace } });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-trace-id'), trace);
    }
    const echoedOnError = await h.request('GET', '/v1/models', { key: null, headers: { 'x-trace-id': 'abc' } });
    assert.equal(echoedOnError.headers.get('x-trace-id'), 'abc');
    for (const trace of ['', 'x'.repeat(257)]) {
      const response = await rawRequest(h.url, 'GET', '/v1/models', { authorization: `Bearer ${h.keys.test}`, 'x-trace-id': trace });
      assert.equal(response.status, 400);
      assert.equal(response.json.code, 'invalid_request');
      assert.ok(!('param' in response.json));
      assert.equal(response.headers['x-trace-id'], undefined);
    }
  });

  it('an unknown path or method is 404 invalid_request, with or without a key', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing'],
      ['POST', '/'],
      ['GET', '/nothing'],
      ['GET', '/v1/svgs/generations'],
      ['POST', '/v1/models'],
      ['DELETE', '/v1/models/local-svg'],
      ['GET', '/v1/responses/resp_123'],
      ['GET', '/v1/models/'],
    ] as const) {
      for (const key of [h.keys.test, null]) {
        assertError(await h.request(method, path, { key }), { status: 404, code: 'invalid_request' }, `${method} ${path}`);
      }
    }
  });

  it('a model outside the catalog is 404 model_not_found on GET /v1/models/{model}', async () => {
    assertError(await h.request('GET', '/v1/models/gpt-nothing'), { status: 404, code: 'model_not_found' });
    assertError(await h.request('GET', `/v1/models/${'m'.repeat(900)}`), { status: 404, code: 'model_not_found' });
  });

  it('malformed JSON, wrong content types, empty and non-object bodies are 400 invalid_request', async () => {
    const headers = { authorization: `Bearer ${h.keys.test}`, 'content-type': 'application/json' };
    const bodies = ['{', '{"model":', 'nul', '[1,2]', '"text"', 'null', '42', '{"__proto__":{"x":1},"model":"local-svg","prompt":"x"}', '{"constructor":{"prototype":{"x":1}},"model":"local-svg","prompt":"x"}'];
    for (const body of bodies) {
      const response = await rawRequest(h.url, 'POST', '/v1/svgs/generations', headers, body);
      assert.equal(response.status, 400, body);
      assert.equal(response.json.code, 'invalid_request', body);
      assert.ok(!('param' in response.json), body);
    }
    const empty = await rawRequest(h.url, 'POST', '/v1/svgs/generations', headers, '');
    assert.equal(empty.status, 400);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
      const response = await rawRequest(h.url, 'POST', '/v1/svgs/generations', { ...headers, 'content-type': type }, '{"model":"local-svg","prompt":"x"}');
      assert.equal(response.status, 400, type);
      assert.equal(response.json.code, 'invalid_request', type);
    }
    const noType = await rawRequest(h.url, 'POST', '/v1/svgs/generations', { authorization: headers.authorization }, '{"model":"local-svg","prompt":"x"}');
    assert.equal(noType.status, 400);
    const charset = await rawRequest(h.url, 'POST', '/v1/svgs/generations', { ...headers, 'content-type': 'application/json; charset=utf-8' }, '{"model":"local-svg","prompt":"x"}');
    assert.equal(charset.status, 200);
  });

  it('the Accept header never causes a 406', async () => {
    for (const accept of ['text/html', 'image/svg+xml', 'application/xml', 'text/event-stream']) {
      const response = await h.request('POST', '/v1/svgs/generations', { body: { model: 'local-svg', prompt: 'x' }, headers: { accept } });
      assert.equal(response.status, 200, accept);
      assert.match(response.headers.get('content-type') ?? '', /application\/json/);
    }
  });

  it('a body over the route limit is 413 payload_too_large before it is parsed', async () => {
    const big = Buffer.alloc(25 * 1_048_576, 'a');
    const response = await rawRequest(
      h.url,
      'POST',
      '/v1/svgs/vectorizations',
      { authorization: `Bearer ${h.keys.test}`, 'content-type': 'application/json', 'content-length': String(big.length) },
      big,
    );
    assert.equal(response.status, 413);
    assert.equal(response.json.code, 'payload_too_large');
    assert.ok(!('param' in response.json));
  });

  it('a chunked body (no Content-Length) over the route limit is 413 too', async () => {
    const response = await rawRequest(
      h.url,
      'POST',
      '/v1/svgs/animations',
      { authorization: `Bearer ${h.keys.test}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      Buffer.alloc(4 * 1_048_576, 'a'),
    );
    assert.equal(response.status, 413);
    assert.equal(response.json.code, 'payload_too_large');
  });

  it('no input of any kind yields a 5xx', async () => {
    const weird: unknown[] = [
      {},
      { model: {}, prompt: [] },
      { model: 'local-svg', prompt: '\u0000\uFFFF\uD800' },
      { model: 'local-svg', prompt: 'x', n: 1e308 },
      { model: 'local-svg', prompt: 'x', n: -0 },
      { model: 'local-svg', prompt: 'x', attributes: { viewBox: { minX: 1e308, minY: -1e308, width: 1e-308, height: 1e308 } } },
      { model: 'local-svg', prompt: 'x', references: [{ url: 'http://[::1' }] },
      { model: 'local-svg', prompt: 'x', references: [null] },
      { model: 'local-svg', prompt: 'x', [`k${'x'.repeat(300)}`]: 1 },
      { model: 'local-svg', svg: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', prompt: 'x' },
      { model: 'local-svg', prompt: 'x', svg: '<svg xmlns="http://www.w3.org/2000/svg">' + '<g>'.repeat(5000) + '</g>'.repeat(5000) + '</svg>' },
      { model: 'local-svg', input: [{ type: 'message', role: 'user', content: [{ type: 'input_image', image_url: 'x' }] }] },
    ];
    const paths = ['/v1/svgs/generations', '/v1/svgs/vectorizations', '/v1/svgs/edits', '/v1/svgs/animations', '/v1/responses'];
    for (const path of paths) {
      for (const body of weird) {
        for (const key of [h.keys.test, h.keys.live]) {
          const response = await h.request('POST', path, { key, body });
          assert.ok(response.status < 500 || response.json?.code === 'model_unavailable', `${path} ${JSON.stringify(body).slice(0, 80)} → ${response.status} ${response.text.slice(0, 200)}`);
        }
      }
    }
    const long = await rawRequest(h.url, 'GET', `/v1/models/${'%'.repeat(3)}`, { authorization: `Bearer ${h.keys.test}` });
    assert.ok(long.status < 500);
    const badEncoding = await rawRequest(h.url, 'GET', '/v1/models/%E0%A4%A', { authorization: `Bearer ${h.keys.test}` });
    assert.ok(badEncoding.status < 500, String(badEncoding.status));
  });
});
