import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../src/main.ts';
import { startFakeUpstream, type FakeUpstream, type Reply } from '../fakes/upstream.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { parseSse } from '../helpers/sse.ts';
import { FIXED_BILLING, METERED_BILLING, SVG_CREDITS as CREDITS, svgModelEntry, type UpstreamTiming } from '../helpers/upstream-models.ts';
import { responsesEntry } from '../engines/openai-compatible/responses/setup.ts';

// A client that gives up pays only for what it was given: nothing for a JSON answer it never
// received, each `content` event it was sent for a stream. Every such request ends with one
// completion line, `client_closed`, at info level, carrying what was charged.

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="#bde0fe"/><circle cx="50" cy="50" r="20" fill="#ffb703"/></svg>';
const ANIMATED =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="#bde0fe"/>' +
  '<circle cx="50" cy="50" r="20" fill="#ffb703"><animate attributeName="r" values="20;16;20" dur="2s" repeatCount="indefinite"/></circle></svg>';
const USAGE = { prompt_tokens: 120, completion_tokens: 80 };
const FAST: Reply = { kind: 'stream', content: SVG, usage: USAGE };
/** An output still being written when the client gives up (the engine aborts it). */
const SLOW: Reply = { kind: 'stream', content: SVG, usage: USAGE, firstTokenDelayMs: 200, chunkDelayMs: 1_000, chunks: 8 };
const TIMING: UpstreamTiming = { first_token_timeout_ms: 5_000, total_timeout_ms: 20_000, max_concurrency: 8 };

describe('a client that leaves', () => {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  let upstream: FakeUpstream;
  let h: Harness;
  let calls = 0;

  before(async () => {
    upstream = await startFakeUpstream();
    h = await startHarness({
      logger: createLogger({ log: { level: 'info' } }, sink),
      config: {
        catalog: {
          models: [
            svgModelEntry('up-fixed', upstream.url, FIXED_BILLING, TIMING),
            svgModelEntry('up-metered', upstream.url, METERED_BILLING, TIMING),
            responsesEntry('chat', upstream.url, { first_token_timeout_ms: 5_000, total_timeout_ms: 20_000 }),
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
    calls = 0;
    upstream.requests.length = 0;
    // The first upstream call of a request answers at once; every other one is slow.
    upstream.reply = () => (calls++ === 0 ? FAST : SLOW);
  });

  const balance = async () => (await h.store.organizations.get(h.organizationId))!.balance_millicents;
  const credit = () => h.config.billing.millicents_per_credit;

  async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
    for (let tries = 0; tries < 500; tries++) {
      const found = await probe();
      if (found !== undefined) return found;
      await sleep(20);
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  /**
   * Sends a request and leaves after `leaveAfterMs` (JSON), or once `leaveWhen` says so (a stream).
   * Resolves with the request's completion line, found by its trace id, once its billing closed.
   */
  async function leave(path: string, body: Record<string, unknown>, how: { afterMs: number } | { when: (raw: string) => boolean }) {
    const traceId = randomBytes(16).toString('hex');
    const controller = new AbortController();
    const response = fetch(`${h.url}${path}`, {
      method: 'POST',
      signal: controller.signal,
      headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      body: JSON.stringify(body),
    });
    let received = '';
    if ('afterMs' in how) {
      setTimeout(() => controller.abort(), how.afterMs);
      await assert.rejects(response, { name: 'AbortError' });
    } else {
      const reader = (await response).body!.getReader();
      const decoder = new TextDecoder();
      while (!how.when(received)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before the client meant to leave: ${received}`);
        received += decoder.decode(value, { stream: true });
      }
      controller.abort();
    }
    const line = await waitFor('the completion line', () => lines.find((l) => l.trace_id === traceId && l.msg === 'request completed'));
    assert.deepEqual(await h.store.reservations.listOpen(h.organizationId), [], 'every reservation closed');
    return { line, received };
  }

  function assertLeftQuietly(line: Record<string, any>, credits: number, status = 499) {
    assert.equal(line.outcome, 'client_closed');
    assert.equal(line.status, status, 'a stream that began says 200; a JSON answer never sent, 499');
    assert.equal(line.level, 30, 'info, not error');
    assert.equal(line.credits, credits);
    const errors = lines.filter((l) => l.request_id === line.request_id && l.level >= 50);
    assert.deepEqual(errors.map((l) => `${l.msg} ${l.err?.stack ?? ""}`), [], "nothing logged as a failure");
  }

  for (const n of [1, 2, 4]) {
    const done = n === 1 ? 'while its output was written' : `though ${n === 2 ? 'an output was' : 'outputs were'} done`;
    it(`pays nothing for a JSON generation of n=${n} it left before the answer was written, ${done}`, { timeout: 20_000 }, async () => {
      if (n === 1) upstream.reply = () => SLOW;
      const start = await balance();
      const { line } = await leave('/v1/svgs/generations', { model: 'up-fixed', prompt: 'a sun', n }, { afterMs: 900 });
      assert.equal(await balance(), start, 'the balance is untouched');
      assertLeftQuietly(line, 0);
      assert.equal(line.operation, 'svg_generate');
      await waitFor('the slow calls to close', () => (upstream.requests.slice(n === 1 ? 0 : 1).every((r) => r.aborted) ? true : undefined));
    });
  }

  it('pays nothing for a token-priced JSON generation it left, though an output was measured', { timeout: 20_000 }, async () => {
    const start = await balance();
    const { line } = await leave('/v1/svgs/generations', { model: 'up-metered', prompt: 'a sun', n: 2 }, { afterMs: 900 });
    assert.equal(await balance(), start);
    assertLeftQuietly(line, 0);
  });

  it('pays for each content event a stream was sent before it left, and no more', { timeout: 20_000 }, async () => {
    const start = await balance();
    const { line, received } = await leave('/v1/svgs/generations', { model: 'up-fixed', prompt: 'a sun', n: 4, stream: true }, { when: (raw) => raw.includes('event: content') });
    const sent = parseSse(received).filter((e) => e.event === 'content').length;
    assert.equal(sent, 1);
    assert.equal(start - (await balance()), CREDITS.svg_generate * credit());
    assertLeftQuietly(line, CREDITS.svg_generate, 200);
  });

  it('pays nothing for a JSON edit it left', { timeout: 20_000 }, async () => {
    upstream.reply = () => SLOW;
    const start = await balance();
    const { line } = await leave('/v1/svgs/edits', { model: 'up-fixed', prompt: 'make it blue', svg: SVG }, { afterMs: 600 });
    assert.equal(await balance(), start);
    assertLeftQuietly(line, 0);
  });

  it('pays nothing for a JSON animation it left', { timeout: 20_000 }, async () => {
    upstream.reply = () => ({ ...SLOW, content: ANIMATED });
    const start = await balance();
    const { line } = await leave('/v1/svgs/animations', { model: 'up-fixed', svg_source: { base64: Buffer.from(SVG).toString('base64') } }, { afterMs: 600 });
    assert.equal(await balance(), start);
    assertLeftQuietly(line, 0);
  });

  it('pays nothing for a JSON response it left, nor for a stream it left before the response completed', { timeout: 20_000 }, async () => {
    upstream.reply = () => ({ kind: 'stream', content: 'A sheep is a woolly animal.', usage: USAGE, chunks: 6, chunkDelayMs: 400 });
    const start = await balance();
    const json = await leave('/v1/responses', { model: 'chat', input: 'Describe a sheep' }, { afterMs: 900 });
    assertLeftQuietly(json.line, 0);
    const streamed = await leave('/v1/responses', { model: 'chat', input: 'Describe a sheep', stream: true }, { when: (raw) => raw.includes('output_text.delta') });
    assertLeftQuietly(streamed.line, 0, 200);
    assert.equal(await balance(), start);
  });

  it('a client that stays is charged, and its line says ok', { timeout: 20_000 }, async () => {
    upstream.reply = () => FAST;
    const start = await balance();
    const response = await h.request('POST', '/v1/svgs/generations', { key: h.keys.live, body: { model: 'up-fixed', prompt: 'a sun', n: 2 } });
    assert.equal(response.status, 200, response.text);
    assert.equal(start - (await balance()), 2 * CREDITS.svg_generate * credit());
    const line = await waitFor('the completion line', () => lines.find((l) => l.request_id === response.headers.get('x-request-id') && l.msg === 'request completed'));
    assert.equal(line.outcome, 'ok');
    assert.equal(line.credits, 2 * CREDITS.svg_generate);
  });
});
