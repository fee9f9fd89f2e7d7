import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream.ts';
import { PAID_MODELS } from '../helpers/billing.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

const GEN = '/v1/svgs/generations';
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="#bde0fe"/><circle cx="50" cy="50" r="20" fill="#ffb703"/></svg>';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition. */
function samplesOf(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      assert.ok(match, `not a sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The value of the one sample with this name and (at least) these labels; undefined when there is none. */
function valueOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samplesOf(text).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value;
}

describe('metrics are off by default', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('no metrics listener starts, and the API port has no /metrics', async () => {
    assert.equal(h.server.metricsUrl, undefined);
    for (const key of [null, h.keys.test]) {
      const response = await h.request('GET', '/metrics', { key });
      assert.equal(response.status, 404);
      assert.equal(response.json.code, 'invalid_request');
    }
  });
});

describe('metrics on their own port (metrics.port)', () => {
  let upstream: FakeUpstream;
  let h: Harness;
  const scrape = async () => {
    const response = await fetch(h.server.metricsUrl!);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return response.text();
  };

  before(async () => {
    upstream = await startFakeUpstream(() => ({ kind: 'stream', content: SVG, usage: { prompt_tokens: 50, completion_tokens: 40 } }));
    h = await startHarness({
      config: {
        metrics: { port: 0 },
        sandbox: { slow_stream_delay_ms: 150 },
        limits: { requests: { catalog: { limit: 1, window_seconds: 60 } } },
        catalog: {
          models: [
            ...PAID_MODELS,
            {
              id: 'up-fixed',
              engine: 'openai-compatible',
              operations: ['svg_generate'],
              billing: { kind: 'fixed_credit', credits: { svg_generate: 3, svg_vectorize: 0 } },
              input_modalities: ['text', 'svg'],
              options: { base_url: upstream.url, model: 'fake-model', total_timeout_ms: 4000 },
            },
            {
              id: 'up-down',
              engine: 'openai-compatible',
              operations: ['svg_generate'],
              billing: { kind: 'fixed_credit', credits: { svg_generate: 3, svg_vectorize: 0 } },
              input_modalities: ['text', 'svg'],
              options: { base_url: 'http://127.0.0.1:9/v1', model: 'fake-model', total_timeout_ms: 4000 },
            },
          ],
        },
      },
    });
  });
  after(async () => {
    await h.close();
    await upstream.close();
  });

  it('serves only GET /metrics (and /upstreams) on the metrics port, and nothing on the API port', async () => {
    assert.match(h.server.metricsUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    assert.notEqual(new URL(h.server.metricsUrl!).port, new URL(h.url).port);
    assert.equal((await fetch(new URL('/v1/models', h.server.metricsUrl)).then((r) => r.status)), 404);
    assert.equal((await fetch(h.server.metricsUrl!, { method: 'POST' })).status, 405);
    assert.equal((await h.request('GET', '/metrics', { key: null })).status, 404);
    assert.equal((await h.request('GET', '/upstreams', { key: null })).status, 404);
  });

  it('answers liveness at GET /healthz on the metrics port too, as the API port does', async () => {
    const url = new URL('/healthz', h.server.metricsUrl);
    const api = await h.request('GET', '/healthz', { key: null });
    const own = await fetch(url);
    assert.equal(own.status, 200);
    for (const header of ['content-type', 'content-length']) assert.equal(own.headers.get(header), api.headers.get(header), header);
    assert.equal(await own.text(), api.text);
    assert.deepEqual(JSON.parse(api.text), { status: 'ok' });
    const head = await fetch(url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
    assert.equal((await fetch(url, { method: 'POST' })).status, 405);
    assert.equal((await fetch(new URL('/readyz', h.server.metricsUrl))).status, 404, 'readiness stays on the API port');
  });

  it('counts requests by route pattern and status, credits debited, limiter refusals and upstream calls', async () => {
    const unmatchedBefore = valueOf(await scrape(), 'inkwell_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }) ?? 0;
    const paid = await h.request('POST', GEN, { key: h.keys.live, body: { model: 'paid-fixed', prompt: 'a lighthouse', n: 2 } });
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.json.credits, 6);
    const upstreamed = await h.request('POST', GEN, { key: h.keys.live, body: { model: 'up-fixed', prompt: 'a sun' } });
    assert.equal(upstreamed.status, 200, upstreamed.text);
    const down = await h.request('POST', GEN, { key: h.keys.live, body: { model: 'up-down', prompt: 'a moon' } });
    assert.equal(down.status, 503, down.text);
    assert.equal((await h.request('GET', '/v1/models')).status, 200);
    const refused = await h.request('GET', '/v1/models');
    assert.equal(refused.status, 429);
    assert.equal((await h.request('GET', '/v1/models/a-model-id-that-must-not-become-a-label', { key: null })).status, 401);
    assert.equal((await h.request('GET', '/no/such/path-that-must-not-become-a-label', { key: null })).status, 404);

    const text = await scrape();
    const requests = (route: string, status: string, method = 'POST') => valueOf(text, 'inkwell_http_requests_total', { method, route, status });
    assert.equal(requests(GEN, '200'), 2);
    assert.equal(requests(GEN, '503'), 1);
    assert.equal(requests('/v1/models', '200', 'GET'), 1);
    assert.equal(requests('/v1/models', '429', 'GET'), 1);
    assert.equal(requests('/v1/models/:model', '401', 'GET'), 1);
    assert.equal(requests('unmatched', '404', 'GET'), unmatchedBefore + 1);
    assert.equal(valueOf(text, 'inkwell_http_request_duration_seconds_count', { method: 'POST', route: GEN, status: '200' }), 2);
    assert.ok(!text.includes('must-not-become-a-label'), 'raw URLs are never labels');

    assert.equal(valueOf(text, 'inkwell_credits_debited_total', { model: 'paid-fixed', operation: 'svg_generate' }), 6);
    assert.equal(valueOf(text, 'inkwell_credits_debited_total', { model: 'up-fixed', operation: 'svg_generate' }), 3);
    assert.equal(valueOf(text, 'inkwell_credits_debited_total', { model: 'up-down' }), undefined, 'a failed request costs nothing');
    assert.equal(valueOf(text, 'inkwell_rate_limit_refusals_total', { rule: 'requests.catalog' }), 1);

    assert.equal(valueOf(text, 'inkwell_upstream_request_duration_seconds_count', { model: 'up-fixed', outcome: 'ok' }), 1);
    assert.ok(valueOf(text, 'inkwell_upstream_request_duration_seconds_sum', { model: 'up-fixed', outcome: 'ok' })! > 0);
    assert.ok(valueOf(text, 'inkwell_upstream_errors_total', { model: 'up-down', kind: 'connect' })! >= 1);
    assert.equal(valueOf(text, 'inkwell_upstream_errors_total', { model: 'up-fixed' }), undefined);

    assert.equal(valueOf(text, 'inkwell_trace_queue_depth'), 0);
    assert.equal(valueOf(text, 'inkwell_active_streams'), 0);
    assert.ok(valueOf(text, 'process_cpu_user_seconds_total')! > 0, 'process default metrics');
    assert.ok(valueOf(text, 'nodejs_heap_size_used_bytes')! > 0);
  });

  it('counts the streams open now', async () => {
    const response = await fetch(`${h.url}${GEN}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.test}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'paid-fixed', prompt: '[mock:slow-stream] a fox', stream: true }),
    });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    await reader.read(); // the first event is out: the stream is open
    assert.equal(valueOf(await scrape(), 'inkwell_active_streams'), 1);
    while (!(await reader.read()).done);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(valueOf(await scrape(), 'inkwell_active_streams'), 0);
  });

  it('keeps each server\'s metrics apart (one registry per server)', async () => {
    const other = await startHarness({ config: { metrics: { port: 0 } } });
    try {
      const response = await fetch(other.server.metricsUrl!);
      const text = await response.text();
      assert.equal(response.status, 200);
      assert.equal(valueOf(text, 'inkwell_credits_debited_total', { model: 'paid-fixed' }), undefined);
      assert.equal(valueOf(text, 'inkwell_rate_limit_refusals_total', { rule: 'requests.catalog' }), undefined);
    } finally {
      await other.close();
    }
    assert.equal(valueOf(await scrape(), 'inkwell_rate_limit_refusals_total', { rule: 'requests.catalog' }), 1);
  });
});
