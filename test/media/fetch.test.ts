import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../src/contract/errors.ts';
import { fetchMedia, type FetchPolicy, type Resolver } from '../../src/media/fetch.ts';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>';
const PARAM = 'image.url';
const LEAKS = ['127.0.0.1', '10.0.0.1', '169.254', '::1', 'ECONN', 'ENOTFOUND', 'EAI_AGAIN', 'socket', 'secret body'];

/** What the test server saw, per path. */
const seen = new Map<string, http.IncomingHttpHeaders>();
let endlessClosed: Promise<void>;
let markEndlessClosed: () => void = () => {};

function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  seen.set(url.pathname, req.headers);
  const hops = /^\/hops\/(\d+)$/.exec(url.pathname);
  if (hops) {
    const left = Number(hops[1]);
    if (left === 0) return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    return void res.writeHead(302, { location: `/hops/${left - 1}` }).end('secret body');
  }
  switch (url.pathname) {
    case '/png':
      return void res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length }).end(PNG);
    case '/svg':
      return void res.writeHead(200, { 'content-type': 'Image/SVG+XML; charset=utf-8' }).end(SVG);
    case '/html':
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>secret body</html>');
    case '/no-type':
      return void res.writeHead(200).end(PNG);
    case '/empty':
      return void res.writeHead(200, { 'content-type': 'image/png' }).end();
    case '/host':
      return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    case '/loop':
      return void res.writeHead(302, { location: '/loop' }).end();
    case '/to': {
      const headers: http.OutgoingHttpHeaders = {};
      const location = url.searchParams.get('location');
      if (location !== null) headers.location = location;
      return void res.writeHead(Number(url.searchParams.get('status') ?? 302), headers).end();
    }
    case '/big':
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': 5000 });
      return void res.end(Buffer.alloc(5000));
    case '/endless': {
      // Chunked, no Content-Length, never ends: only the client hanging up stops it.
      res.writeHead(200, { 'content-type': 'image/png' });
      res.on('close', () => markEndlessClosed());
      const pump = () => {
        while (!res.destroyed && res.write(Buffer.alloc(16_384)));
      };
      res.on('drain', pump);
      return pump();
    }
    case '/drip': {
      res.writeHead(200, { 'content-type': 'image/png' });
      const timer = setInterval(() => res.write(Buffer.from([0])), 50);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case '/hang':
      return; // never answers
    case '/gzip':
      return void res.writeHead(200, { 'content-type': 'image/png', 'content-encoding': 'gzip' }).end(gzipSync(PNG));
    case '/drop':
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': 1000 });
      res.write(PNG);
      return void setTimeout(() => req.socket.destroy(), 20);
    case '/500':
      return void res.writeHead(500, { 'content-type': 'text/plain' }).end('secret body: ECONNREFUSED 10.0.0.5:80');
    default:
      return void res.writeHead(404, { 'content-type': 'text/plain' }).end('secret body');
  }
}

const server = http.createServer(handle);
let base = '';
let port = 0;

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const local: FetchPolicy = { allowLoopback: true, totalTimeoutMs: 2000, connectTimeoutMs: 1000 };
const remote: FetchPolicy = { allowLoopback: false, totalTimeoutMs: 2000, connectTimeoutMs: 1000 };

function fetchImage(url: string, policy: FetchPolicy = local, extra: { maxBytes?: number; signal?: AbortSignal } = {}) {
  return fetchMedia(url, { param: PARAM, accept: 'image', maxBytes: extra.maxBytes ?? 1_000_000, policy, ...(extra.signal ? { signal: extra.signal } : {}) });
}

/** A resolver stub answering from a table and counting its calls. */
function stubResolver(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolve, { calls });
}

/** The fetch fails with an ApiError that names the field and leaks no address, socket error or body. */
async function assertRefused(promise: Promise<unknown>, expected: { message?: RegExp; status?: 400 | 413; param?: string } = {}): Promise<ApiError> {
  const param = expected.param ?? PARAM;
  let caught: unknown;
  await assert.rejects(promise, (error: unknown) => {
    caught = error;
    return true;
  });
  assert.ok(caught instanceof ApiError, `expected ApiError, got ${String(caught)}`);
  const status = expected.status ?? 400;
  assert.equal(caught.code, status === 413 ? 'payload_too_large' : 'invalid_request');
  assert.equal(caught.status, status);
  assert.equal(caught.param, param);
  assert.ok(caught.message.includes(`'${param}'`), `message does not name the field: ${caught.message}`);
  for (const leak of LEAKS) assert.ok(!caught.message.includes(leak), `message leaks '${leak}': ${caught.message}`);
  if (expected.message) assert.match(caught.message, expected.message);
  return caught;
}

/** A blocked literal address, or a name that resolves to one (the same answer as an unknown name). */
const BLOCKED = /blocked network address|does not resolve to an allowed public address/;

describe('fetchMedia returns', () => {
  it('a PNG with its media type and final URL', async () => {
    const media = await fetchImage(`${base}/png`);
    assert.deepEqual(media, { bytes: PNG, contentType: 'image/png', finalUrl: `${base}/png` });
  });

  it('an SVG, with the media type lower-cased and its parameters dropped', async () => {
    const media = await fetchMedia(`${base}/svg`, { param: 'svg_source.url', accept: 'svg', maxBytes: 10_000, policy: local });
    assert.equal(media.contentType, 'image/svg+xml');
    assert.equal(media.bytes.toString(), SVG);
    assert.equal((await fetchImage(`${base}/svg`)).contentType, 'image/svg+xml');
  });

  it('a body of exactly maxBytes', async () => {
    assert.deepEqual((await fetchImage(`${base}/png`, local, { maxBytes: PNG.length })).bytes, PNG);
  });

  it('after sending a fixed user agent, an image accept header and accept-encoding: identity', async () => {
    await fetchImage(`${base}/png`);
    const headers = seen.get('/png');
    assert.equal(headers?.['user-agent'], 'Inkwell-media-fetch/1');
    assert.equal(headers?.['accept-encoding'], 'identity');
    assert.match(headers?.accept ?? '', /image\/png/);
    await fetchMedia(`${base}/svg`, { param: 'svg_source.url', accept: 'svg', maxBytes: 10_000, policy: local });
    assert.equal(seen.get('/svg')?.accept, 'image/svg+xml');
  });

  it('after following 1 and 3 redirects, reporting the final URL', async () => {
    assert.equal((await fetchImage(`${base}/hops/1`)).finalUrl, `${base}/hops/0`);
    const media = await fetchImage(`${base}/hops/3`);
    assert.deepEqual(media.bytes, PNG);
    assert.equal(media.finalUrl, `${base}/hops/0`);
  });

  it('after each redirect status 301, 302, 303, 307 and 308', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      const media = await fetchImage(`${base}/to?status=${status}&location=${encodeURIComponent('/png')}`);
      assert.equal(media.finalUrl, `${base}/png`, String(status));
    }
  });
});

describe('fetchMedia refuses the URL itself', () => {
  it('when it is not a URL', async () => {
    await assertRefused(fetchImage('not a url'), { message: /^Invalid value for 'image.url': not a valid URL\.$/ });
    await assertRefused(fetchImage(''), { message: /not a valid URL/ });
  });

  it('for schemes other than http and https', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/a.png', 'data:image/png;base64,AAAA', 'javascript:alert(1)', 'gopher://127.0.0.1:6379/_INFO']) {
      await assertRefused(fetchImage(url), { message: /only http and https/ });
    }
  });

  it('with credentials in it', async () => {
    await assertRefused(fetchImage(`http://user:pass@127.0.0.1:${port}/png`), { message: /credentials/ });
    await assertRefused(fetchImage(`http://user@127.0.0.1:${port}/png`), { message: /credentials/ });
  });

  it('naming whichever field it was given', async () => {
    await assertRefused(fetchMedia('ftp://x/', { param: 'reference_images[2].url', accept: 'image', maxBytes: 10, policy: remote }), { param: 'reference_images[2].url' });
  });
});

describe('fetchMedia refuses blocked addresses', () => {
  it('the local server itself unless loopback is allowed', async () => {
    await assertRefused(fetchImage(`${base}/png`, remote), { message: BLOCKED });
    await assertRefused(fetchImage(`http://[::1]:${port}/png`, remote), { message: BLOCKED });
    await assertRefused(fetchImage(`http://localhost:${port}/png`, { ...remote, resolve: stubResolver({ localhost: ['127.0.0.1', '::1'] }) }), { message: BLOCKED });
  });

  it('odd spellings of 127.0.0.1 that the URL parser normalizes', async () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://127.1/', 'http://0x7f000001/', 'http://[::ffff:7f00:1]/', 'http://[::ffff:127.0.0.1]/', 'http://[0:0:0:0:0:ffff:7f00:1]/']) {
      await assertRefused(fetchImage(url, remote), { message: BLOCKED });
    }
  });

  it('private, link-local (cloud metadata), unspecified and other literals, even with loopback allowed', async () => {
    for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://0.0.0.0/', 'http://0/', 'http://[::]/', 'http://192.168.1.1/', 'http://[fe80::1]/', 'http://[fd00::1]/', 'http://[::ffff:a9fe:a9fe]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[::127.0.0.1]/', 'http://100.64.0.1/', 'http://224.0.0.1/', 'http://255.255.255.255/']) {
      await assertRefused(fetchImage(url, local), { message: BLOCKED });
    }
  });

  it('a public-looking name that resolves to a blocked address, without connecting anywhere', async () => {
    const cases: Array<[string, string[]]> = [
      ['images.example.com', ['10.0.0.1']],
      ['metadata.example.com', ['169.254.169.254']],
      ['mapped.example.com', ['::ffff:127.0.0.1']],
      ['mixed.example.com', ['8.8.8.8', '10.0.0.1']],
      ['mixed6.example.com', ['2606:4700:4700::1111', 'fd00::1']],
      ['garbage.example.com', ['not-an-address']],
    ];
    const resolve = stubResolver(Object.fromEntries(cases));
    for (const [host] of cases) {
      await assertRefused(fetchImage(`http://${host}/a.png`, { ...remote, resolve }), { message: /the host does not resolve to an allowed public address/ });
    }
    assert.deepEqual(resolve.calls, cases.map(([host]) => host));
  });

  it('a redirect to a blocked address or to a scheme other than http(s)', async () => {
    for (const location of ['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00::1]/', 'http://0x0a.1/']) {
      await assertRefused(fetchImage(`${base}/to?location=${encodeURIComponent(location)}`), { message: BLOCKED });
    }
    for (const location of ['file:///etc/passwd', 'ftp://example.com/a.png', 'http://user:pass@example.com/']) {
      await assertRefused(fetchImage(`${base}/to?location=${encodeURIComponent(location)}`), { message: /redirected to a URL that is not allowed/ });
    }
  });
});

describe('fetchMedia resolves each hop exactly once and connects to the checked address', () => {
  it('keeps the Host header of the URL while connecting to the resolved address', async () => {
    const resolve = stubResolver({ 'cdn.test': ['127.0.0.1'] });
    const media = await fetchImage(`http://cdn.test:${port}/host`, { ...local, resolve });
    assert.deepEqual(media.bytes, PNG);
    assert.equal(seen.get('/host')?.host, `cdn.test:${port}`);
    assert.deepEqual(resolve.calls, ['cdn.test']);
  });

  it('ignores a DNS rebinding answer, since there is no second lookup', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => (calls++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.1', family: 4 }]);
    assert.deepEqual((await fetchImage(`http://rebind.test:${port}/png`, { ...local, resolve: rebinding })).bytes, PNG);
    assert.equal(calls, 1);
  });

  it('checks the name again on each redirect hop, once per hop', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => (calls++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.1', family: 4 }]);
    const next = `http://rebind.test:${port}/png`;
    await assertRefused(fetchImage(`http://rebind.test:${port}/to?location=${encodeURIComponent(next)}`, { ...local, resolve: rebinding }), { message: BLOCKED });
    assert.equal(calls, 2);
  });

  it('resolves a name reached by a redirect once and fetches from it', async () => {
    const resolve = stubResolver({ 'cdn.test': ['127.0.0.1'] });
    const media = await fetchImage(`${base}/to?location=${encodeURIComponent(`http://cdn.test:${port}/png`)}`, { ...local, resolve });
    assert.equal(media.finalUrl, `http://cdn.test:${port}/png`);
    assert.deepEqual(resolve.calls, ['cdn.test']);
  });

  it('refuses a name that does not resolve, without the resolver error', async () => {
    await assertRefused(fetchImage('http://nowhere.test/a.png', { ...local, resolve: stubResolver({}) }), { message: /the host does not resolve to an allowed public address/ });
    await assertRefused(fetchImage('http://empty.test/a.png', { ...local, resolve: stubResolver({ 'empty.test': [] }) }), { message: /the host does not resolve to an allowed public address/ });
  });
});

describe('fetchMedia refuses the response', () => {
  it('after more than 3 redirects, and in a redirect loop', async () => {
    await assertRefused(fetchImage(`${base}/hops/4`), { message: /too many redirects/ });
    await assertRefused(fetchImage(`${base}/loop`), { message: /too many redirects/ });
  });

  it('after a redirect without a Location', async () => {
    await assertRefused(fetchImage(`${base}/to?status=302`), { message: /without a Location/ });
  });

  it('with a non-2xx status, without the body', async () => {
    await assertRefused(fetchImage(`${base}/missing`), { message: /answered with HTTP 404/ });
    await assertRefused(fetchImage(`${base}/500`), { message: /answered with HTTP 500/ });
    await assertRefused(fetchImage(`${base}/to?status=304`), { message: /answered with HTTP 304/ });
  });

  it('with a content type that is not an accepted image', async () => {
    await assertRefused(fetchImage(`${base}/html`), { message: /not an image/ });
    await assertRefused(fetchImage(`${base}/no-type`), { message: /not an image/ });
    await assertRefused(fetchMedia(`${base}/png`, { param: 'svg_source.url', accept: 'svg', maxBytes: 10_000, policy: local }), { param: 'svg_source.url', message: /not an SVG/ });
  });

  it('with a content encoding, without decompressing it', async () => {
    await assertRefused(fetchImage(`${base}/gzip`), { message: /compressed/ });
  });

  it('with an empty body', async () => {
    await assertRefused(fetchImage(`${base}/empty`), { message: /empty/ });
  });

  it('with a Content-Length over maxBytes, as 413', async () => {
    await assertRefused(fetchImage(`${base}/big`, local, { maxBytes: 100 }), { status: 413, message: /larger than 100 bytes/ });
    await assertRefused(fetchImage(`${base}/png`, local, { maxBytes: PNG.length - 1 }), { status: 413 });
  });

  it('with an endless body, stopping at maxBytes and hanging up', async () => {
    endlessClosed = new Promise((resolve) => (markEndlessClosed = resolve));
    const started = Date.now();
    await assertRefused(fetchImage(`${base}/endless`, local, { maxBytes: 100_000 }), { status: 413 });
    await endlessClosed; // the server saw its socket close
    assert.ok(Date.now() - started < 1500);
  });

  it('when the connection drops mid-body', async () => {
    await assertRefused(fetchImage(`${base}/drop`), { message: /could not be reached/ });
  });

  it('when nothing listens on the port', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await assertRefused(fetchImage(`http://127.0.0.1:${freePort}/png`), { message: /could not be reached/ });
  });
});

describe('fetchMedia stops in time', () => {
  const quick: FetchPolicy = { allowLoopback: true, totalTimeoutMs: 300, connectTimeoutMs: 200 };

  it('when the body drips slower than the total timeout', async () => {
    const started = Date.now();
    await assertRefused(fetchImage(`${base}/drip`, quick), { message: /did not answer in time/ });
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
  });

  it('when the server never sends headers', async () => {
    const started = Date.now();
    await assertRefused(fetchImage(`${base}/hang`, quick), { message: /did not answer in time/ });
    assert.ok(Date.now() - started < 1000);
  });

  it('when a resolver never answers', async () => {
    const never: Resolver = () => new Promise(() => {});
    await assertRefused(fetchImage('http://slow-dns.test/', { ...quick, resolve: never }), { message: /did not answer in time/ });
  });

  it('when the client aborts, promptly', async () => {
    const client = new AbortController();
    setTimeout(() => client.abort(), 50);
    const started = Date.now();
    await assertRefused(fetchImage(`${base}/hang`, local, { signal: client.signal }), { message: /cancelled/ });
    assert.ok(Date.now() - started < 500);
  });

  it('with the abort reason when it is an ApiError, and at once when already aborted', async () => {
    const reason = new ApiError('request_timeout', { message: 'The request took too long.' });
    const client = new AbortController();
    setTimeout(() => client.abort(reason), 20);
    await assert.rejects(fetchImage(`${base}/drip`, local, { signal: client.signal }), (error) => error === reason);
    await assert.rejects(fetchImage(`${base}/png`, local, { signal: AbortSignal.abort(reason) }), (error) => error === reason);
  });
});
