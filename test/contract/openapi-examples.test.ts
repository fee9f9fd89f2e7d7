import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ENDPOINTS, type Endpoint } from '../../src/contract/endpoints.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { assertMatches } from '../helpers/schemas.ts';
import { parseSse } from '../helpers/sse.ts';

/**
 * Every request-body example of the committed OpenAPI document is sent, as written, to the
 * running service with a sandbox (test) key, and must be accepted. Examples live at the request
 * media type (`example`, or `examples` with a `value`) or at the root of the body's schema.
 */

type Json = Record<string, any>;

interface BodyExample {
  label: string;
  method: string;
  path: string;
  value: Json;
}

const document = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as Json;

function resolveRef(node: Json | undefined): Json | undefined {
  const ref = node?.$ref;
  if (typeof ref !== 'string') return node;
  return ref.replace(/^#\//, '').split('/').reduce((at: Json, key) => at?.[key], document);
}

function requestBodyExamples(): BodyExample[] {
  const found: BodyExample[] = [];
  for (const [path, operations] of Object.entries<Json>(document.paths)) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      for (const [mediaType, media] of Object.entries<Json>(operation.requestBody?.content ?? {})) {
        const at = `${method.toUpperCase()} ${path} (${mediaType})`;
        const add = (name: string, value: unknown) => found.push({ label: `${at} ${name}`, method, path, value: value as Json });
        if (media.example !== undefined) add('example', media.example);
        for (const [name, example] of Object.entries<Json>(media.examples ?? {})) {
          assert.ok(example.externalValue === undefined, `${at} ${name}: externalValue cannot be checked offline; inline the value`);
          add(`examples.${name}`, example.value);
        }
        const schema = resolveRef(media.schema);
        if (schema?.example !== undefined) add('schema example', schema.example);
        (schema?.examples ?? []).forEach((value: unknown, i: number) => add(`schema examples[${i}]`, value));
      }
    }
  }
  return found;
}

/** Whether a value names an input by URL: the test server has no network to fetch it from. */
function referencesUrl(value: unknown): boolean {
  if (typeof value === 'string') return /^https?:\/\//i.test(value);
  if (Array.isArray(value)) return value.some(referencesUrl);
  if (value && typeof value === 'object') return Object.values(value).some(referencesUrl);
  return false;
}

function endpointOf(method: string, path: string): Endpoint {
  const endpoint = (Object.values(ENDPOINTS) as Endpoint[]).find((e) => e.path === path && e.method === method.toUpperCase());
  assert.ok(endpoint, `${method} ${path} is not in the endpoint table`);
  return endpoint;
}

describe('the OpenAPI request examples', () => {
  const examples = requestBodyExamples();
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h?.close();
  });

  it('exist for the four SVG operations', () => {
    const paths = new Set(examples.map((example) => example.path));
    for (const path of ['/v1/svgs/generations', '/v1/svgs/vectorizations', '/v1/svgs/edits', '/v1/svgs/animations']) {
      assert.ok(paths.has(path), `no request example for ${path}`);
    }
  });

  // Test keys are answered 404 on /v1/responses (its examples would need a live model server), and
  // URL inputs need the network; neither kind of example exists, and one added would fail here.
  for (const example of examples) {
    it(`${example.label} is accepted`, async () => {
      assert.ok(!referencesUrl(example.value), 'the example names an input by URL, which cannot be fetched offline');
      const endpoint = endpointOf(example.method, example.path);
      const response = await h.request(example.method.toUpperCase(), example.path, { body: example.value });
      assert.ok(response.status >= 200 && response.status < 300, `status ${response.status}: ${response.text.slice(0, 500)}`);
      if (example.value.stream === true) {
        assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
        const events = parseSse(response.text);
        assert.equal(events.at(-1)?.data, '[DONE]');
        const last = JSON.parse(events.at(-2)!.data);
        assert.equal(last.type, 'content', `the stream ended with ${JSON.stringify(last).slice(0, 300)}`);
        if (endpoint.events) for (const event of events.slice(0, -1)) assertMatches(endpoint.events, JSON.parse(event.data), 'event');
      } else {
        assertMatches(endpoint.response, response.json, 'response');
      }
    });
  }
});
