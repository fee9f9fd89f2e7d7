import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { compileErrors, validate } from '@readme/openapi-parser';
import { openApiText } from '../../src/cli/commands/openapi.ts';
import { ENDPOINTS } from '../../src/contract/endpoints.ts';
import { ERROR_CODES } from '../../src/contract/errors.ts';
import { buildOpenApiDocument } from '../../src/contract/openapi.ts';
import { startHarness } from '../helpers/harness.ts';

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(structuredClone(buildOpenApiDocument()) as never);
    assert.ok(result.valid, result.valid ? '' : compileErrors(result));
  });

  it('matches the committed docs/openapi.json (run `npm run openapi` after changing a schema)', () => {
    assert.equal(readFileSync('docs/openapi.json', 'utf8'), openApiText());
  });

  it('covers every endpoint, its stream events and the error envelope with every code', () => {
    const document = buildOpenApiDocument() as any;
    for (const endpoint of Object.values(ENDPOINTS)) {
      const operation = document.paths[endpoint.path]?.[endpoint.method.toLowerCase()];
      assert.ok(operation, `${endpoint.method} ${endpoint.path}`);
      assert.ok(operation.responses['200'].content['application/json']);
      if ('events' in endpoint) assert.ok(operation.responses['200'].content['text/event-stream'], endpoint.path);
      for (const status of endpoint.errorStatuses) {
        assert.equal(operation.responses[status].content['application/json'].schema.$ref, '#/components/schemas/ErrorEnvelope');
      }
    }
    assert.deepEqual(document.components.schemas.ErrorEnvelope.properties.code.enum, ERROR_CODES);
    assert.equal(document.components.schemas.ErrorEnvelope.additionalProperties, false);
    const events = document.components.schemas.SvgStreamEvent.anyOf.map((e: { $ref: string }) => e.$ref.split('/').pop());
    assert.deepEqual(events, ['SvgStreamGeneratingEvent', 'SvgStreamReasoningEvent', 'SvgStreamDraftEvent', 'SvgStreamContentEvent', 'SvgStreamErrorEvent']);
  });

  it('is served at GET /v1/openapi.json without a key', async () => {
    const h = await startHarness();
    try {
      const response = await h.request('GET', '/v1/openapi.json', { key: null });
      assert.equal(response.status, 200);
      assert.deepEqual(response.json, buildOpenApiDocument());
      assert.match(response.headers.get('x-request-id') ?? '', /^req_/);
    } finally {
      await h.close();
    }
  });
});
