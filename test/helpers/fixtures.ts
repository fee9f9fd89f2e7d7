/** Small valid inputs shared by the tests. */

export const SQUARE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="#c00"/></svg>';

/** A 1x1 transparent PNG. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export const base64 = (text: string) => Buffer.from(text).toString('base64');

/** One valid request per endpoint, used by the suites that run on every endpoint. */
export const ENDPOINT_CASES = [
  { name: 'list models', method: 'GET', path: '/v1/models' },
  { name: 'get model', method: 'GET', path: '/v1/models/local-svg' },
  {
    name: 'generations',
    method: 'POST',
    path: '/v1/svgs/generations',
    body: { model: 'local-svg', prompt: 'a red fox' },
    capability: 'svg_generate',
  },
  {
    name: 'vectorizations',
    method: 'POST',
    path: '/v1/svgs/vectorizations',
    body: { model: 'inkwell-trace', image: { base64: TINY_PNG_BASE64 } },
    capability: 'svg_vectorize',
  },
  {
    name: 'edits',
    method: 'POST',
    path: '/v1/svgs/edits',
    body: { model: 'local-svg', prompt: 'make it blue', svg: SQUARE_SVG },
    capability: 'svg_edit',
  },
  {
    name: 'animations',
    method: 'POST',
    path: '/v1/svgs/animations',
    body: { model: 'local-svg', svg_source: { base64: base64(SQUARE_SVG) } },
    capability: 'svg_animate',
  },
  { name: 'responses', method: 'POST', path: '/v1/responses', body: { model: 'local-svg-metered', input: 'hello' } },
  { name: 'balance', method: 'GET', path: '/v1/organization/balance' },
] as const;

export type EndpointCase = (typeof ENDPOINT_CASES)[number];
export const PROJECT_CASES = ENDPOINT_CASES.filter((c) => c.name !== 'balance');
export const SVG_CASES = ENDPOINT_CASES.filter((c) => 'capability' in c);
