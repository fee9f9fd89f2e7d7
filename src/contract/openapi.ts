import type { TSchema } from '@sinclair/typebox';
import { ENDPOINTS, type Endpoint } from './endpoints.ts';
import { ERROR_REGISTRY, ErrorEnvelope, type ErrorCode } from './errors.ts';
import { requestExamplesOf } from './examples.ts';

type Json = Record<string, unknown>;

/** A plain JSON copy of a TypeBox schema (symbols and `$id` dropped). */
function plain(schema: TSchema): Json {
  const copy = JSON.parse(JSON.stringify(schema)) as Json;
  delete copy.$id;
  return copy;
}

function isNamedSchema(value: Json): boolean {
  return typeof value.title === 'string' && ('type' in value || 'anyOf' in value || 'oneOf' in value);
}

/**
 * Moves every titled subschema into components.schemas and refers to it, so shared shapes
 * (ResponseResource, ImageInput…) are written once in the document.
 */
function hoist(value: unknown, schemas: Json, isRoot = false): unknown {
  if (Array.isArray(value)) return value.map((item) => hoist(item, schemas));
  if (typeof value !== 'object' || value === null) return value;
  const node = Object.fromEntries(Object.entries(value).map(([key, child]) => [key, hoist(child, schemas)])) as Json;
  if (isRoot || !isNamedSchema(node)) return node;
  const name = node.title as string;
  const existing = schemas[name];
  if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(node)) {
    throw new Error(`two different schemas are titled ${name}`);
  }
  schemas[name] = node;
  return { $ref: `#/components/schemas/${name}` };
}

/** Every response header the API documents (and a browser client may read when CORS is on). */
export const RESPONSE_HEADERS: Record<string, Json> = {
  'X-Request-ID': {
    description: 'Identifier of this request; equals `request_id` in an error envelope.',
    schema: { type: 'string' },
  },
  'X-Trace-ID': { description: 'Echo of the `x-trace-id` request header, when sent.', schema: { type: 'string' } },
  'X-Inkwell-Environment': {
    description: 'Environment of the authenticating key: `test` (sandbox) or `live`.',
    schema: { type: 'string', enum: ['test', 'live'] },
  },
  'X-Inkwell-Model': {
    description: "The catalog model that served the request: the one asked for, or the fallback that served when it could not (billed at the serving model's price).",
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': { description: 'Capacity of the binding window.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Capacity left in the binding window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the binding window resets, Unix milliseconds.', schema: { type: 'integer' } },
  'X-RateLimit-Scope': { description: 'Scope of the binding limit.', schema: { type: 'string' } },
  'X-RateLimit-Subject': { description: 'Subject the binding limit counts.', schema: { type: 'string' } },
  'X-RateLimit-Dimension': {
    description: 'What the binding limit counts: request, operation, input-token or output-token.',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
};

function headerRefs(names: string[]): Json {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing, malformed, unknown or revoked key, or organization unresolved for billing',
  402: 'Balance or funding problem',
  403: 'Key not allowed, frozen account or content policy',
  404: 'Model not in the catalog reachable by the key, or unknown path',
  408: 'Client-facing deadline exceeded',
  413: 'Prompt, image or SVG input too large',
  429: 'Capacity exhausted',
  500: 'Unexpected failure',
  502: 'Model returned an invalid or failed response',
  503: 'Model temporarily unavailable',
  504: 'Model execution exceeded the server deadline',
};

function codesFor(status: number): ErrorCode[] {
  return (Object.keys(ERROR_REGISTRY) as ErrorCode[]).filter((code) =>
    (ERROR_REGISTRY[code].statuses as readonly number[]).includes(status),
  );
}

const COMMON_HEADERS = ['X-Request-ID', 'X-Trace-ID'];
const RATE_HEADERS = Object.keys(RESPONSE_HEADERS).filter((name) => name.startsWith('X-RateLimit-'));

function schemaName(endpoint: Endpoint, schema: TSchema, suffix: string): string {
  return typeof schema.title === 'string' ? schema.title : `${endpoint.operationId}${suffix}`;
}

function operation(endpoint: Endpoint, schemas: Json): Json {
  const authenticated = endpoint.auth.kind !== 'public';
  const successHeaders = [...COMMON_HEADERS, ...(authenticated ? ['X-Inkwell-Environment', ...RATE_HEADERS] : []), ...(endpoint.events ? ['X-Inkwell-Model'] : [])];
  const name = (schema: TSchema, suffix: string) => {
    const key = schemaName(endpoint, schema, suffix);
    schemas[key] = hoist(plain(schema), schemas, true);
    return { $ref: `#/components/schemas/${key}` };
  };

  const content: Json = { 'application/json': { schema: name(endpoint.response, 'Response') } };
  let description = 'Success';
  if (endpoint.events) {
    content['text/event-stream'] = { schema: name(endpoint.events, 'StreamEvent') };
    description =
      'Success: JSON, or with `stream: true` an event stream (one SSE message per event, `event:` naming it and ' +
      '`data:` carrying the JSON payload, then `data: [DONE]`; `[DONE]` ends the transport only, the last event ' +
      'decides the outcome).';
  }
  const responses: Json = {
    200: { description, headers: headerRefs(successHeaders), content },
  };
  for (const status of endpoint.errorStatuses) {
    const headers = [...COMMON_HEADERS, ...(status === 429 ? [...RATE_HEADERS, 'Retry-After'] : [])];
    responses[status] = {
      description: `${STATUS_TEXT[status]}. Codes: ${codesFor(status).join(', ')}.`,
      headers: headerRefs(headers),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }

  const parameters: Json[] = [{ $ref: '#/components/parameters/TraceId' }];
  if (endpoint.params) {
    const properties = (endpoint.params as unknown as { properties: Record<string, TSchema> }).properties;
    for (const [param, schema] of Object.entries(properties)) {
      parameters.push({ name: param, in: 'path', required: true, schema: plain(schema) });
    }
  }

  const op: Json = {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    tags: [endpoint.tag],
    parameters,
    responses,
  };
  if (endpoint.description) op.description = endpoint.description;
  if (!authenticated) op.security = [];
  if (endpoint.body) {
    const media = { schema: name(endpoint.body, 'Request'), ...requestExamplesOf(endpoint.operationId) };
    op.requestBody = { required: true, content: { 'application/json': media } };
  }
  return op;
}

/** The OpenAPI 3.1 document of the whole API, generated from the schemas that validate requests. */
export function buildOpenApiDocument(): Json {
  const schemas: Json = { ErrorEnvelope: hoist(plain(ErrorEnvelope), {}, true) };
  const paths: Record<string, Json> = {};
  for (const endpoint of Object.values(ENDPOINTS) as Endpoint[]) {
    paths[endpoint.path] ??= {};
    paths[endpoint.path]![endpoint.method.toLowerCase()] = operation(endpoint, schemas);
  }
  paths['/v1/openapi.json'] = {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI document',
      tags: ['Meta'],
      security: [],
      responses: {
        200: {
          description: 'The OpenAPI 3.1 document',
          headers: headerRefs(COMMON_HEADERS),
          content: { 'application/json': { schema: { type: 'object' } } },
        },
      },
    },
  };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Inkwell SVG API',
      version: '1.0.0',
      description:
        'Text to SVG, image to SVG, SVG edit and animation, a model catalog, stateless Open Responses and ' +
        'organization balance. Test keys (sk_test_) run against a sandbox that bills nothing.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'SVG' },
      { name: 'Models' },
      { name: 'Responses' },
      { name: 'Organization' },
      { name: 'Meta' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'Project keys sk_test_… / sk_live_…; organization admin keys sk_admin_….',
        },
      },
      parameters: {
        TraceId: {
          name: 'x-trace-id',
          in: 'header',
          required: false,
          description: 'Caller trace identifier (1 to 256 characters), echoed in X-Trace-ID.',
          schema: { type: 'string', minLength: 1, maxLength: 256 },
        },
      },
      headers: RESPONSE_HEADERS,
      schemas,
    },
  };
}
