import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpstreamError, type UpstreamFailure } from '../../../src/engines/upstream/exchange.ts';
import { mapUpstreamFailure, MAX_RETRY_WAIT_SECONDS, refusedParameter } from '../../../src/engines/upstream/errors.ts';

// What a client is told for each way the model server can fail, and which failures earn the one
// retry: the status, code and Retry-After of the envelope, never the upstream's own words.

const status = (code: number, retryAfterSeconds?: number, detail = 'overloaded'): UpstreamFailure => ({
  kind: 'status',
  status: code,
  detail,
  ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
});

/** The parts of a mapped failure a client or the retry policy sees. */
function seen(failure: UpstreamFailure) {
  const mapped = mapUpstreamFailure(new UpstreamError(failure));
  return {
    status: mapped.error.status,
    code: mapped.error.code,
    retryAfter: mapped.error.retryAfter,
    retryable: mapped.retryable,
    waitSeconds: mapped.waitSeconds,
    misconfigured: mapped.misconfigured,
  };
}

describe('mapUpstreamFailure', () => {
  const cases: [string, UpstreamFailure, ReturnType<typeof seen>][] = [
    ['a refused connect', { kind: 'connect' }, { status: 503, code: 'model_unavailable', retryAfter: 5, retryable: true, waitSeconds: 0, misconfigured: false }],
    // A retry would double the connect timeout the operator chose.
    ['a connect that timed out', { kind: 'connect-timeout' }, { status: 503, code: 'model_unavailable', retryAfter: 5, retryable: false, waitSeconds: 0, misconfigured: false }],
    ['a 429 asking for the longest wait still retried', status(429, MAX_RETRY_WAIT_SECONDS), { status: 503, code: 'model_unavailable', retryAfter: 2, retryable: true, waitSeconds: 2, misconfigured: false }],
    ['a 429 asking for a longer wait', status(429, 30), { status: 503, code: 'model_unavailable', retryAfter: 30, retryable: false, waitSeconds: 30, misconfigured: false }],
    ['a 429 without Retry-After', status(429), { status: 503, code: 'model_unavailable', retryAfter: 5, retryable: true, waitSeconds: 1, misconfigured: false }],
    ['a 401 (our upstream key refused)', status(401), { status: 503, code: 'model_unavailable', retryAfter: undefined, retryable: false, waitSeconds: 0, misconfigured: true }],
    ['a 403', status(403), { status: 503, code: 'model_unavailable', retryAfter: undefined, retryable: false, waitSeconds: 0, misconfigured: true }],
    ['a 404 (the model is unknown upstream)', status(404), { status: 503, code: 'model_unavailable', retryAfter: undefined, retryable: false, waitSeconds: 0, misconfigured: true }],
    ['a 503 (the server unavailable for now)', status(503), { status: 503, code: 'model_unavailable', retryAfter: 5, retryable: true, waitSeconds: 0, misconfigured: false }],
    ['a 503 asking for a long wait', status(503, 60), { status: 503, code: 'model_unavailable', retryAfter: 60, retryable: false, waitSeconds: 60, misconfigured: false }],
    ['a 500 with Retry-After', status(500, 1), { status: 502, code: 'model_error', retryAfter: undefined, retryable: true, waitSeconds: 1, misconfigured: false }],
    ['a 400', status(400), { status: 502, code: 'model_error', retryAfter: undefined, retryable: false, waitSeconds: 0, misconfigured: false }],
    ['an error frame', { kind: 'frame', detail: 'crashed' }, { status: 502, code: 'model_error', retryAfter: undefined, retryable: true, waitSeconds: 0, misconfigured: false }],
    ['a cut stream', { kind: 'dropped' }, { status: 502, code: 'model_error', retryAfter: undefined, retryable: true, waitSeconds: 0, misconfigured: false }],
    ['a 200 that is no completion', { kind: 'malformed', detail: 'not JSON' }, { status: 502, code: 'model_error', retryAfter: undefined, retryable: false, waitSeconds: 0, misconfigured: false }],
    ['an answer over its limit', { kind: 'oversize', limitBytes: 1024 }, { status: 502, code: 'model_error', retryAfter: undefined, retryable: false, waitSeconds: 0, misconfigured: false }],
    ['no first token in time', { kind: 'first-token-timeout' }, { status: 504, code: 'request_timeout', retryAfter: undefined, retryable: false, waitSeconds: 0, misconfigured: false }],
    ['a stall mid-answer', { kind: 'idle-timeout' }, { status: 504, code: 'request_timeout', retryAfter: undefined, retryable: false, waitSeconds: 0, misconfigured: false }],
    ['the total deadline', { kind: 'deadline' }, { status: 504, code: 'request_timeout', retryAfter: undefined, retryable: false, waitSeconds: 0, misconfigured: false }],
  ];
  for (const [name, failure, expected] of cases) {
    it(`maps ${name}`, () => assert.deepEqual(seen(failure), expected));
  }

  it('tells the operator what to check for a misconfigured entry', () => {
    assert.match(mapUpstreamFailure(new UpstreamError(status(401))).configurationHint!, /api_key_env/);
    assert.match(mapUpstreamFailure(new UpstreamError(status(404))).configurationHint!, /options\.model and base_url/);
  });

  it('says an unreachable server is the model server\'s, not a reason to retry blindly, and where whoever runs the service looks', () => {
    for (const kind of ['connect', 'connect-timeout'] as const) {
      const { message } = mapUpstreamFailure(new UpstreamError({ kind })).error;
      assert.match(message, /^The model's server is not reachable/);
      assert.match(message, /docs\/models\.md, Failures/);
      assert.doesNotMatch(message, /retry shortly|127\.0\.0\.1|http:/);
    }
  });

  it("names the output limit as the operator wrote it: whole MiB or KiB, else bytes", () => {
    const message = (limitBytes: number) => mapUpstreamFailure(new UpstreamError({ kind: 'oversize', limitBytes })).error.message;
    assert.match(message(2 * 1024 * 1024), /limit of 2 MiB\./);
    assert.match(message(3 * 1024), /limit of 3 KiB\./);
    assert.match(message(1536), /limit of 1536 bytes\./);
  });

  it("never echoes the upstream's body or address to the client, but keeps it as the cause for the log", () => {
    const error = new UpstreamError(status(500, undefined, 'secret-token at http://10.1.2.3:8000'));
    const mapped = mapUpstreamFailure(error);
    assert.equal(mapped.error.message, 'The model server failed (HTTP 500).');
    assert.equal(mapped.error.cause, error);
  });
});

describe('refusedParameter', () => {
  it('recognizes a 400 that names the parameter, and nothing else', () => {
    const refusal = 'Unrecognized request argument supplied: stream_options';
    assert.equal(refusedParameter(new UpstreamError(status(400, undefined, refusal)), 'stream_options'), true);
    assert.equal(refusedParameter(new UpstreamError(status(422, undefined, refusal)), 'stream_options'), false);
    assert.equal(refusedParameter(new UpstreamError(status(400, undefined, 'max_tokens is too large')), 'stream_options'), false);
    assert.equal(refusedParameter(new UpstreamError({ kind: 'frame', detail: refusal }), 'stream_options'), false);
  });
});
