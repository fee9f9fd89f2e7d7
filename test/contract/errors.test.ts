import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, ERROR_CODES, ERROR_REGISTRY, toEnvelope } from '../../src/contract/errors.ts';

/** The spec's Errors table, copied verbatim: the registry must agree with it exactly. */
const SPEC_TABLE: Record<number, string[]> = {
  400: ['invalid_request'],
  401: ['invalid_api_key', 'unauthorized'],
  402: ['insufficient_credits', 'funding_pending', 'funding_payment_method_required', 'funding_payment_action_required', 'funding_payment_failed'],
  403: ['unauthorized', 'account_frozen', 'content_policy_violation', 'invalid_request'],
  404: ['model_not_found', 'invalid_request'],
  408: ['request_timeout'],
  413: ['payload_too_large'],
  429: ['rate_limit_exceeded', 'operation_rate_limit_exceeded', 'weekly_limit_exceeded'],
  500: ['server_error'],
  502: ['model_error'],
  503: ['model_unavailable'],
  504: ['request_timeout'],
};

describe('the error registry', () => {
  it('has exactly the spec codes, each with exactly the statuses of the spec table', () => {
    const expected = new Map<string, number[]>();
    for (const [status, codes] of Object.entries(SPEC_TABLE)) {
      for (const code of codes) expected.set(code, [...(expected.get(code) ?? []), Number(status)]);
    }
    assert.deepEqual(new Set(ERROR_CODES), new Set(expected.keys()));
    for (const code of ERROR_CODES) {
      assert.deepEqual([...ERROR_REGISTRY[code].statuses].sort(), expected.get(code)!.sort(), code);
    }
  });

  it('refuses a status the spec does not give a code', () => {
    assert.throws(() => new ApiError('model_error', { status: 500 }), /not registered/);
  });

  it('builds envelopes with only the spec fields; param is absent, not null, when unset', () => {
    const envelope = toEnvelope(new ApiError('invalid_request'), 'req_1');
    assert.deepEqual(Object.keys(envelope).sort(), ['code', 'message', 'request_id', 'status']);
    const full = toEnvelope(new ApiError('rate_limit_exceeded', { param: 'n', retryAfter: 2.2 }), 'req_1');
    assert.deepEqual(full, { status: 429, code: 'rate_limit_exceeded', message: 'Rate limit exceeded.', request_id: 'req_1', param: 'n', retry_after: 3 });
  });

  it('drops a param longer than 128 characters and clamps retry_after to 0..86400', () => {
    assert.equal(new ApiError('invalid_request', { param: 'x'.repeat(129) }).param, undefined);
    assert.equal(new ApiError('invalid_request', { param: 'x'.repeat(128) }).param?.length, 128);
    assert.equal(new ApiError('weekly_limit_exceeded', { retryAfter: 10 ** 9 }).retryAfter, 86_400);
    assert.equal(new ApiError('rate_limit_exceeded', { retryAfter: -5 }).retryAfter, 0);
  });
});
