import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { assertError } from '../helpers/schemas.ts';

/** The pages over plain HTTP: what is served, with which headers, and what is not. */
describe('the browser pages', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h?.close();
  });

  const pageHeaders = (response: { headers: Headers }) => {
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, /(^|; )default-src 'self'(;|$)/);
    assert.match(csp, /(^|; )script-src 'self'(;|$)/);
    assert.match(csp, /(^|; )style-src 'self'(;|$)/);
    assert.match(csp, /(^|; )img-src 'self' data: blob:(;|$)/);
    assert.match(csp, /(^|; )connect-src 'self'(;|$)/);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
  };

  it('serves the playground at GET / and the reference at GET /docs, without a key and with strict headers', async () => {
    for (const path of ['/', '/docs']) {
      const response = await h.request('GET', path, { key: null });
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
      pageHeaders(response);
      assert.match(response.headers.get('x-request-id') ?? '', /^req_/);
      // Pages are neither authenticated nor counted by the rate limits.
      assert.equal(response.headers.get('x-inkwell-environment'), null);
      assert.equal(response.headers.get('x-ratelimit-limit'), null);
      assert.doesNotMatch(response.text, /<script>|<script [^>]*>[^<]+<\/script>|\son\w+="/i, 'no inline script or handler');
      for (const [, url] of response.text.matchAll(/\s(?:src|href)="([^"]*)"/g)) {
        assert.match(url!, /^\/(?!\/)/, `${path} loads ${url}: every link and asset is a path on this origin`);
      }
    }
  });

  it('serves the scripts and styles the pages load, from the package', async () => {
    const assets: [string, RegExp][] = [
      ['/playground/main.js', /javascript/],
      ['/playground/playground.css', /^text\/css/],
      ['/playground/favicon.svg', /^image\/svg\+xml/],
      ['/playground/vendor/eventsource-parser.js', /javascript/],
      ['/docs/assets/docs-init.js', /javascript/],
      ['/docs/assets/docs.css', /^text\/css/],
      ['/docs/assets/swagger-ui/swagger-ui-bundle.js', /javascript/],
      ['/docs/assets/swagger-ui/swagger-ui.css', /^text\/css/],
    ];
    for (const [path, type] of assets) {
      const response = await h.request('GET', path, { key: null });
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', type, path);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
    }
    const parser = await h.request('GET', '/playground/vendor/eventsource-parser.js', { key: null });
    assert.match(parser.text, /export\s*\{[^}]*createParser/);
  });

  it('tags every page and asset, and answers a revalidation of an unchanged one with 304 and no body', async () => {
    for (const path of ['/', '/docs', '/playground/main.js', '/docs/assets/swagger-ui/swagger-ui.css', '/playground/vendor/eventsource-parser.js']) {
      const first = await h.request('GET', path, { key: null });
      const etag = first.headers.get('etag') ?? '';
      assert.match(etag, /^"[\w-]{27}"$/, path);
      assert.equal(first.headers.get('cache-control'), 'no-cache', path);
      const again = await h.request('GET', path, { key: null, headers: { 'if-none-match': `"other", W/${etag}` } });
      assert.equal(again.status, 304, path);
      assert.equal(again.text, '', path);
      assert.equal(again.headers.get('etag'), etag, path);
      const changed = await h.request('GET', path, { key: null, headers: { 'if-none-match': '"other"' } });
      assert.equal(changed.status, 200, path);
      assert.equal(changed.text, first.text, path);
    }
    const head = await h.request('HEAD', '/playground/main.js', { key: null });
    assert.equal(head.status, 200);
    assert.match(head.headers.get('content-type') ?? '', /javascript/);
    assert.equal(head.text, '');
  });

  it('configures Swagger UI without the validator badge, which would call validator.swagger.io', async () => {
    const init = await h.request('GET', '/docs/assets/docs-init.js', { key: null });
    assert.match(init.text, /validatorUrl:\s*null/);
    assert.match(init.text, /url:\s*'\/v1\/openapi\.json'/);
  });

  it('serves nothing else: other files of those folders and unknown paths are the 404 envelope', async () => {
    for (const path of [
      '/playground/index.html',
      '/playground/',
      '/playground/missing.js',
      '/docs/',
      '/docs/assets/index.html',
      '/docs/assets/swagger-ui/index.html',
      '/docs/assets/swagger-ui/swagger-initializer.js',
      '/docs/assets/swagger-ui/swagger-ui-bundle.js.map',
      '/docs/assets/swagger-ui/package.json',
      '/playground/%2e%2e/%2e%2e/routes/pages.ts',
      '/docs/assets/swagger-ui/%2e%2e/%2e%2e/package.json',
    ]) {
      const response = await h.request('GET', path, { key: null });
      assertError(response, { status: 404, code: 'invalid_request' }, path);
    }
    assertError(await h.request('POST', '/', { key: null }), { status: 404, code: 'invalid_request' }, 'POST /');
  });
});
