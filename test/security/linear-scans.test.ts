import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { bearerToken } from '../../src/accounts/principal.ts';
import { HttpUrl, ReferenceItem, URL_MAX_LENGTH } from '../../src/contract/common.ts';
import { IMAGE_BASE64_MAX_LENGTH } from '../../src/contract/media-size.ts';
import { ApiError } from '../../src/contract/errors.ts';
import { normalizeResponsesBody, ResponsesRequest } from '../../src/contract/responses.ts';
import { JSON_MAX_DEPTH } from '../../src/contract/schema-helpers.ts';
import { PROMPT_MAX_LENGTH } from '../../src/contract/svgs.ts';
import { compileValidator, createAjv, nestingWithin } from '../../src/contract/validator.ts';
import { directiveTokens } from '../../src/engines/sandbox/directives.ts';
import { DATA_URL_PREFIX_MAX_LENGTH, decodeBase64Input } from '../../src/media/base64.ts';
import { checkResponsesRequest } from '../../src/operations/respond.ts';
import { requestSeed } from '../../src/operations/seed.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

/**
 * Every scan of caller text in the request path, fed adversarial input at its size limit. A
 * super-linear scan blows its time budget (and the per-test timeout stops it from hanging the
 * suite); budgets are many times the linear cost measured, and well under the old quadratic one.
 */
const TIMEOUT = { timeout: 2000 };
/** Tests that first build several 16 MiB inputs. */
const HEAVY = { timeout: 10_000 };

/** Fastest of a few runs, so one GC pause does not fail a linear scan. */
function fastestMs(run: () => unknown, runs = 3): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    try {
      run();
    } catch {
      // Refusals are timed as well as acceptances.
    }
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

function assertFast(budgetMs: number, run: () => unknown, label = '', runs = 3): void {
  const ms = fastestMs(run, runs);
  assert.ok(ms < budgetMs, `${label} took ${ms.toFixed(1)} ms (budget ${budgetMs} ms)`);
}

/** `piece` repeated to exactly `length` characters. */
const fill = (piece: string, length: number) => piece.repeat(Math.ceil(length / piece.length)).slice(0, length);

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return error;
  }
  assert.fail('expected a refusal');
}

describe('sandbox directives are found in one forward pass', () => {
  const reference = (text: string) => [...text.matchAll(/\[mock:([^\]]*)\]/g)].map((m) => m[1]!.trim());

  it('a prompt of 100 000 characters of "[mock:" with no "]"', TIMEOUT, () => {
    const prompt = fill('[mock:', PROMPT_MAX_LENGTH);
    assert.deepEqual(directiveTokens(prompt), []);
    assertFast(50, () => directiveTokens(prompt));
  });

  it('the same prompt closed by one "]" at the very end is one (unknown) token', TIMEOUT, () => {
    const prompt = fill('[mock:', PROMPT_MAX_LENGTH - 1) + ']';
    const tokens = directiveTokens(prompt);
    assert.equal(tokens.length, 1);
    assert.ok(tokens[0]!.startsWith('[mock:'));
    assertFast(50, () => directiveTokens(prompt));
  });

  it('100 000 characters of complete directives', TIMEOUT, () => {
    const prompt = fill('[mock:partial]', PROMPT_MAX_LENGTH);
    assert.equal(directiveTokens(prompt).length, Math.floor(PROMPT_MAX_LENGTH / 14));
    assertFast(50, () => directiveTokens(prompt));
  });

  it('gives the results of the /\\[mock:([^\\]]*)\\]/g scan it replaced', TIMEOUT, () => {
    const samples = [
      '', 'plain', '[mock:partial]', 'a [mock: slow-stream ] b [mock:error=model_error]', '[mock:[mock:partial]',
      '[mock:partial', '[mock:]', '[mock:a]]', '[[mock:a]', '[mock:a\nb]', '[MOCK:partial]', 'x[mock:a][mock:b]y[mock:',
      '[mock', 'mock:a]', '[mock:a] [mock:', ']]][mock:x]',
    ];
    for (const sample of samples) assert.deepEqual(directiveTokens(sample), reference(sample), JSON.stringify(sample));
  });
});

describe('Authorization header', () => {
  const MIB = 1_048_576;
  const cases: Array<[string, string]> = [
    ['spaces after Bearer', 'Bearer ' + ' '.repeat(MIB)],
    ['alternating token and space', 'Bearer ' + fill('x ', MIB)],
    ['a token, spaces, then another character', 'Bearer x' + ' '.repeat(MIB) + 'y'],
    ['"Bearer" repeated', fill('Bearer ', MIB)],
    ['tabs and non-breaking spaces', 'Bearer\t' + fill('\t\u00a0 ', MIB) + 'k'],
  ];
  for (const [label, header] of cases) {
    it(`bearerToken: ${label} (1 MiB, far over the 16 KiB header limit)`, TIMEOUT, () => {
      assertFast(50, () => bearerToken(header));
    });
  }

  it('bearerToken still reads a token', () => {
    assert.equal(bearerToken('Bearer  sk_test_abc  '), 'sk_test_abc');
    assert.equal(bearerToken('bearer x y'), '');
    assert.equal(bearerToken(undefined), undefined);
  });
});

describe('base64 inputs at 16 777 216 characters', () => {
  const N = IMAGE_BASE64_MAX_LENGTH;
  const valid = Buffer.alloc((N / 4) * 3, 7).toString('base64');

  const cases: Array<[string, () => string, boolean]> = [
    ['valid base64', () => valid, true],
    ['a space after every other character', () => fill('aa ', N), true],
    ['a space after every fourth character', () => fill('aaaa ', N - (N % 5)) + ' '.repeat(N % 5), true],
    ['all whitespace then four characters', () => ' '.repeat(N - 4) + 'AAAA', true],
    ['one character, whitespace, then an invalid one', () => 'A' + ' '.repeat(N - 2) + '!', false],
    ['valid but for the last character', () => valid.slice(0, -1) + '!', false],
    ['padding then whitespace', () => '=' + ' '.repeat(N - 1), false],
  ];
  for (const [label, make, accepted] of cases) {
    it(label, HEAVY, () => {
      const value = make();
      const run = () => decodeBase64Input(value, 'image.base64');
      if (accepted) run();
      else assert.equal(refusal(run).param, 'image.base64');
      assertFast(500, run);
    });
  }

  it('a data: URL prefix is read from the first 1024 characters only', HEAVY, () => {
    const params = 'data:image/png' + fill(';a=', N - 14);
    const commaAtEnd = 'data:image/png' + fill(';a=b', N - 30) + ';base64,';
    for (const value of [params, commaAtEnd, 'data:' + fill('a', N - 5)]) {
      assert.match(refusal(() => decodeBase64Input(value, 'p')).message, /data: URL must be base64-encoded/);
      assertFast(20, () => decodeBase64Input(value, 'p'));
    }
    const longest = `data:image/png;a=${'b'.repeat(DATA_URL_PREFIX_MAX_LENGTH - 25)};base64,`;
    assert.equal(longest.length, DATA_URL_PREFIX_MAX_LENGTH);
    assert.equal(decodeBase64Input(`${longest}aGk=`, 'p').declaredType, 'image/png');
    assert.throws(() => decodeBase64Input(`data:image/png;x=${'a'.repeat(DATA_URL_PREFIX_MAX_LENGTH)};base64,aGk=`, 'p'), ApiError);
  });
});

describe('URL fields (format uri, a pattern and maxLength 8192)', () => {
  const validate = compileValidator<{ url: string }>(Type.Object({ url: HttpUrl }), createAjv());
  const validateReference = compileValidator<{ r: unknown }>(Type.Object({ r: ReferenceItem }), createAjv());
  const prefixes = ['http://', 'https://[', 'http://a@', 'http://a:', 'http://a/', 'http:/', 'http://1.1.1.'];
  const pieces = ['%', ':', '@', '[', '/', '1', '::', '1:', '%0', '/:', '@:', 'a@', '1.', '[v'];
  const suffixes = ['', '%', ' ', '\\'];
  const adversarial = (length: number) =>
    prefixes.flatMap((prefix) =>
      pieces.flatMap((piece) => suffixes.map((suffix) => prefix + fill(piece, length - prefix.length - suffix.length) + suffix)),
    );

  it(`${prefixes.length * pieces.length * suffixes.length} adversarial URLs of exactly ${URL_MAX_LENGTH} characters`, TIMEOUT, () => {
    for (const url of adversarial(URL_MAX_LENGTH)) {
      assertFast(50, () => validate({ url }), JSON.stringify(url.slice(0, 12)), 1);
    }
  });

  it('adversarial URLs of 16 MiB are refused by maxLength, in the URL field and a references item', HEAVY, () => {
    // Ajv checks maxLength (a code-point count, linear) before the pattern and the format.
    for (const url of [fill('http://:', 16_777_216), 'http://' + fill('a', 16_777_200) + '%']) {
      assert.match(refusal(() => validate({ url })).message, /at most 8192 characters/);
      assertFast(500, () => validate({ url }), '', 2);
      assertFast(500, () => validateReference({ r: url }), '', 2);
    }
  });

  it('still tells valid from invalid URLs', () => {
    validate({ url: 'https://example.com/a%20b?q=1#f' });
    validate({ url: `http://a/${'b'.repeat(URL_MAX_LENGTH - 9)}` });
    for (const url of ['ftp://example.com', 'http://exa mple.com', 'http://a/%zz']) {
      assert.equal(refusal(() => validate({ url })).param, 'url', url);
    }
  });
});

describe('the /v1/responses request', () => {
  const validate = compileValidator<ResponsesRequest>(ResponsesRequest, createAjv());

  it('tool names of 10 MiB are refused by maxLength before the pattern', TIMEOUT, () => {
    const name = fill('a', 10_485_760) + '!';
    const body = () => ({ model: 'm', input: 'x', tools: [{ type: 'function', name }] });
    assert.equal(refusal(() => validate(body())).param, 'tools[0].name');
    assertFast(300, () => validate(body()));
  });

  it('100 000 input items are normalized and checked in linear time', TIMEOUT, () => {
    const items = Array.from({ length: 50_000 }, (_, i) => [
      { type: 'function_call', call_id: `c${i}`, name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: `c${i}`, output: 'ok' },
    ]).flat();
    const body = { model: 'm', input: [{ role: 'user', content: 'x' }, ...items], tools: [{ type: 'function', name: 'f' }], tool_choice: { type: 'function', name: 'f' } };
    assertFast(500, () => {
      normalizeResponsesBody(body);
      checkResponsesRequest(validate(body));
    });
  });

  it('an unknown field with a 10 MiB name is reported without the name as param', TIMEOUT, () => {
    const body = { model: 'm', input: 'x', [fill('k', 10_485_760)]: 1 };
    const error = refusal(() => validate(body));
    assert.equal(error.param, undefined);
    assert.ok(error.message.length < 200);
    assertFast(300, () => validate(body));
  });
});

describe('free-form JSON nesting', () => {
  /** `depth` levels of objects and arrays, alternating, the value itself being level 1. */
  const nest = (depth: number): object => {
    let value: object = {};
    for (let level = 2; level <= depth; level++) value = level % 2 === 0 ? [value] : { a: value };
    return value;
  };

  it(`is ${JSON_MAX_DEPTH} levels at most, the value itself being level 1`, () => {
    assert.equal(nestingWithin(nest(JSON_MAX_DEPTH), JSON_MAX_DEPTH), true);
    assert.equal(nestingWithin(nest(JSON_MAX_DEPTH + 1), JSON_MAX_DEPTH), false);
    assert.equal(nestingWithin({ a: 1, b: 'x', c: null }, 1), true);
    assert.equal(nestingWithin({ a: [] }, 1), false);
    assert.equal(nestingWithin('text', 1), true);
  });

  it('a million levels are refused without recursion', TIMEOUT, () => {
    const deep = nest(1_000_000);
    assert.equal(nestingWithin(deep, JSON_MAX_DEPTH), false);
    assertFast(50, () => nestingWithin(deep, JSON_MAX_DEPTH));
  });

  it('a million values within the depth are walked in linear time', TIMEOUT, () => {
    const wide = { rows: Array.from({ length: 1000 }, () => Array.from({ length: 1000 }, (_, i) => (i % 2 ? { i } : i))) };
    assert.equal(nestingWithin(wide, JSON_MAX_DEPTH), true);
    assertFast(500, () => nestingWithin(wide, JSON_MAX_DEPTH));
  });
});

describe('requestSeed', () => {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value && typeof value === 'object'
        ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted((value as Record<string, unknown>)[k])]))
        : value;
  const expected = (key: string, body: Record<string, unknown>) => {
    const { stream: _stream, ...rest } = body;
    return createHash('sha256').update(key).update('\0').update(JSON.stringify(sorted(rest))).digest('hex');
  };

  it('is the hash of the key and the key-sorted JSON of the body without stream', () => {
    const long = 'b'.repeat(70_000);
    const bodies = [
      { model: 'm', prompt: 'p', stream: true },
      { prompt: 'x"\\\n\u2028\ud800é', model: 'm', references: [{ url: 'http://a' }, 'http://b', { base64: long }], n: 2 },
      { b: long + '"', a: [null, 1.5, -0, true, { z: [], y: {} }], c: { d: 'e' } },
    ];
    for (const body of bodies) assert.equal(requestSeed('key_1', body), expected('key_1', body));
    assert.equal(requestSeed('k', { a: 1, stream: true }), requestSeed('k', { a: 1 }));
    assert.notEqual(requestSeed('k', { a: 1 }), requestSeed('j', { a: 1 }));
  });

  it('walks 100 000 levels without overflowing the stack', TIMEOUT, () => {
    let deep: object = {};
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    assert.match(requestSeed('k', { deep }), /^[0-9a-f]{64}$/);
  });
});

describe('end to end', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  async function timedPost(path: string, body: unknown, headers: Record<string, string> = {}) {
    const start = performance.now();
    const response = await h.request('POST', path, { body, headers });
    return { response, ms: performance.now() - start };
  }

  it('a sandbox prompt of 100 000 characters of "[mock:" is answered quickly', TIMEOUT, async () => {
    const prompt = fill('[mock:', PROMPT_MAX_LENGTH);
    for (const body of [{ model: 'local-svg', prompt }, { model: 'local-svg', prompt: 'a fox', instructions: prompt }]) {
      const { response, ms } = await timedPost('/v1/svgs/generations', body);
      assert.equal(response.status, 200, response.text.slice(0, 200));
      assert.ok(ms < 500, `answered in ${ms.toFixed(0)} ms`);
    }
  });

  it('an unterminated [mock: is plain text, not a directive', TIMEOUT, async () => {
    const { response } = await timedPost('/v1/svgs/generations', { model: 'local-svg', prompt: 'a fox [mock:error=model_error' });
    assert.equal(response.status, 200, response.text.slice(0, 200));
  });

  it('an Inkwell-Mock header of 8 KiB of commas is answered quickly', TIMEOUT, async () => {
    const { response, ms } = await timedPost('/v1/svgs/generations', { model: 'local-svg', prompt: 'a fox' }, { 'inkwell-mock': fill(' ,', 8192) });
    assert.equal(response.status, 200, response.text.slice(0, 200));
    assert.ok(ms < 500, `answered in ${ms.toFixed(0)} ms`);
  });

  it('8 KiB x-trace-id and Authorization headers are refused with envelopes', TIMEOUT, async () => {
    const trace = await h.request('GET', '/v1/models', { headers: { 'x-trace-id': fill('a ', 8192) } });
    assert.equal(trace.status, 400);
    const auth = await h.request('GET', '/v1/models', { key: null, headers: { authorization: 'Bearer ' + fill('x ', 8192) } });
    assert.equal(auth.status, 401);
    assert.equal(auth.json.code, 'invalid_api_key');
  });
});
