import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { compileValidator, createAjv, pointerToParam } from '../../src/contract/validator.ts';
import { ApiError } from '../../src/contract/errors.ts';

function failure(schema: object, value: unknown): ApiError {
  try {
    compileValidator(schema, createAjv())(value);
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return error;
  }
  assert.fail('expected a validation error');
}

describe('validation errors', () => {
  it('turn JSON pointers into paths from the body root', () => {
    assert.equal(pointerToParam(''), '');
    assert.equal(pointerToParam('/references/2/url'), 'references[2].url');
    assert.equal(pointerToParam('/settings/temperature'), 'settings.temperature');
    assert.equal(pointerToParam('/input/0/content/1/text'), 'input[0].content[1].text');
    assert.equal(pointerToParam('/a~1b/c~0d'), 'a/b.c~d');
  });

  it('name the deepest field of the union branch that fits the value', () => {
    const schema = Type.Object({
      items: Type.Array(Type.Union([Type.Object({ url: Type.String({ pattern: '^https://' }) }, { additionalProperties: false }), Type.String()])),
    });
    const error = failure(schema, { items: ['ok', { url: 'ftp://x' }] });
    assert.equal(error.param, 'items[1].url');
    assert.match(error.message, /^Invalid value for 'items\[1\]\.url'/);
  });

  it('report the union itself when no branch fits better than another', () => {
    const schema = Type.Object({ v: Type.Union([Type.Number(), Type.Null()]) });
    const error = failure(schema, { v: 'x' });
    assert.equal(error.param, 'v');
    assert.equal(error.message, "Invalid value for 'v': expected a number or null.");
  });

  it('do not coerce types and refuse non-finite numbers', () => {
    const schema = Type.Object({ n: Type.Integer(), x: Type.Optional(Type.Number()) });
    assert.equal(failure(schema, { n: '1' }).param, 'n');
    assert.equal(failure(schema, { n: true }).param, 'n');
    assert.equal(failure(schema, { n: 1, x: Infinity }).param, 'x');
  });

  it('never put the submitted value in param, and omit a param longer than 128 characters', () => {
    const schema = Type.Object({}, { additionalProperties: false });
    const long = 'k'.repeat(200);
    const error = failure(schema, { [long]: 1 });
    assert.equal(error.param, undefined);
    assert.ok(error.message.length < 200);
    assert.equal(failure(schema, { 'secret-value': 1 }).param, 'secret-value');
  });

  it('make exceeding a content field\'s length a 413 and other bounds a 400', () => {
    const schema = Type.Object({
      prompt: Type.String({ maxLength: 3, 'x-inkwell-too-large': true }),
      name: Type.Optional(Type.String({ maxLength: 3 })),
    });
    const tooLarge = failure(schema, { prompt: 'abcd' });
    assert.equal(tooLarge.status, 413);
    assert.equal(tooLarge.code, 'payload_too_large');
    const invalid = failure(schema, { prompt: 'a', name: 'abcd' });
    assert.equal(invalid.status, 400);
  });

  it('fill defaults without touching given values', () => {
    const schema = Type.Object({ n: Type.Integer({ default: 1 }), stream: Type.Boolean({ default: false }) });
    assert.deepEqual(compileValidator<object>(schema)({ stream: true }), { n: 1, stream: true });
  });
});
