import assert from 'node:assert/strict';
import type { TSchema } from '@sinclair/typebox';
import { createAjv } from '../../src/contract/validator.ts';
import { ErrorEnvelope } from '../../src/contract/errors.ts';

const ajv = createAjv();
const cache = new WeakMap<object, ReturnType<typeof ajv.compile>>();

/** Asserts a response body matches its published schema as strictly as a generated client would. */
export function assertMatches(schema: TSchema, value: unknown, label = 'value'): void {
  let validate = cache.get(schema);
  if (!validate) {
    // Copy: the shared Ajv fills defaults, and response checks must not change what they check.
    validate = ajv.compile(JSON.parse(JSON.stringify(schema)));
    cache.set(schema, validate);
  }
  const copy = structuredClone(value);
  assert.ok(validate(copy), `${label} does not match its schema: ${JSON.stringify(validate.errors)}\n${JSON.stringify(value).slice(0, 2000)}`);
}

export interface ExpectedError {
  status: number;
  code: string;
  param?: string;
}

/** Asserts a response is the spec's error envelope with this status, code and param (or none). */
export function assertError(
  response: { status: number; json: any; headers: Headers },
  expected: ExpectedError,
  label = '',
): void {
  const context = `${label} ${JSON.stringify(response.json)}`;
  assert.equal(response.status, expected.status, `status ${context}`);
  assertMatches(ErrorEnvelope, response.json, 'error envelope');
  assert.equal(response.json.status, expected.status, `envelope status ${context}`);
  assert.equal(response.json.code, expected.code, `code ${context}`);
  if (expected.param === undefined) assert.ok(!('param' in response.json), `no param expected ${context}`);
  else assert.equal(response.json.param, expected.param, `param ${context}`);
  assert.equal(response.json.request_id, response.headers.get('x-request-id'), 'request_id equals X-Request-ID');
}
