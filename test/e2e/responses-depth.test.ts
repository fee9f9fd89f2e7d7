import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JSON_MAX_DEPTH } from '../../src/contract/schema-helpers.ts';
import { RESPONSES_JSON_SHAPE } from '../../src/http/body-size.ts';
import { assertError } from '../helpers/schemas.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

/**
 * Free-form JSON in /v1/responses (tool parameters and formats, the output schema, annotations)
 * nests at most JSON_MAX_DEPTH levels; deeper is a 400 naming the field. A body that nests far
 * deeper than any valid one is refused before it is parsed, as a whole (no param), always as an
 * envelope and quickly.
 */
const TIMEOUT = { timeout: 5000 };

/** JSON text of `depth` levels, objects and arrays alternating, the value itself being level 1. */
function nested(depth: number): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let level = 1; level <= depth; level++) {
    const object = level % 2 === 1;
    open.push(object ? '{"a":' : '[');
    close.push(object ? '}' : ']');
  }
  // The innermost level holds a scalar; the outermost is always an object.
  return open.join('') + '1' + close.reverse().join('');
}

describe(`POST /v1/responses: free-form JSON nests at most ${JSON_MAX_DEPTH} levels`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const post = (rawBody: string) =>
    h.request('POST', '/v1/responses', { key: h.keys.live, rawBody, headers: { 'content-type': 'application/json' } });
  const head = '"model":"local-svg-metered","input":"Draw me a sheep"';

  const fields: Array<[param: string, body: (value: string) => string]> = [
    ['tools[0].parameters', (v) => `{${head},"tools":[{"type":"function","name":"f","parameters":${v}}]}`],
    ['tools[1].format', (v) => `{${head},"tools":[{"type":"function","name":"f"},{"type":"custom","name":"g","format":${v}}]}`],
    ['text.format.schema', (v) => `{${head},"text":{"format":{"type":"json_schema","name":"out","schema":${v}}}}`],
    [
      'input[0].content[0].annotations[1]',
      (v) => `{"model":"local-svg-metered","input":[{"role":"assistant","content":[{"type":"output_text","text":"x","annotations":[{},${v}]}]}]}`,
    ],
  ];

  for (const [param, body] of fields) {
    it(`${param}: ${JSON_MAX_DEPTH + 1} levels → 400 naming the field`, TIMEOUT, async () => {
      const response = await post(body(nested(JSON_MAX_DEPTH + 1)));
      assertError(response, { status: 400, code: 'invalid_request', param });
      assert.match(response.json.message, new RegExp(`nested at most ${JSON_MAX_DEPTH} levels`));
    });

    it(`${param}: ${JSON_MAX_DEPTH} levels pass validation (then the default upstream, not running here: 503)`, TIMEOUT, async () => {
      assertError(await post(body(nested(JSON_MAX_DEPTH))), { status: 503, code: 'model_unavailable' });
    });
  }

  it('tools[0].parameters 200 000 levels deep → 400 for the body, before it is parsed, quickly', TIMEOUT, async () => {
    const start = performance.now();
    const response = await post(fields[0]![1](nested(200_000)));
    assertError(response, { status: 400, code: 'invalid_request' });
    assert.match(response.json.message, new RegExp(`more than ${RESPONSES_JSON_SHAPE.maxDepth} levels deep`));
    assert.ok(performance.now() - start < 2000);
  });
});

describe('POST /v1/responses: deep JSON in closed fields', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  /** 1 MiB of `[[[[…]]]]`: a body well under the limit that nests half a million levels. */
  const deepArray = '['.repeat(524_288) + ']'.repeat(524_288);
  const cases: Array<[label: string, body: string]> = [
    ['the whole body', deepArray],
    ['input', `{"model":"local-svg","input":${deepArray}}`],
    ['model', `{"model":${deepArray},"input":"x"}`],
    ['an unknown field', `{"model":"local-svg","input":"x","zz":${deepArray}}`],
    ['tools', `{"model":"local-svg","input":"x","tools":${deepArray}}`],
  ];
  for (const [label, rawBody] of cases) {
    it(`a 1 MiB nested array as ${label} → 400 envelope for the body`, TIMEOUT, async () => {
      const response = await h.request('POST', '/v1/responses', {
        key: h.keys.live,
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      assertError(response, { status: 400, code: 'invalid_request' });
      assert.match(response.json.message, /levels deep/);
    });
  }

  it('a body deeper than the closed fields allow but within the body limit still names the field', TIMEOUT, async () => {
    const response = await h.request('POST', '/v1/responses', {
      key: h.keys.live,
      body: { model: 'local-svg', input: [[[[['x']]]]] },
    });
    assertError(response, { status: 400, code: 'invalid_request', param: 'input[0]' });
  });
});
