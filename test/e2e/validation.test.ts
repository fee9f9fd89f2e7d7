import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/schemas.ts';
import { base64, SQUARE_SVG, TINY_PNG_BASE64 } from '../helpers/fixtures.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

type Case = [name: string, body: Record<string, unknown>, status: number, code: string, param?: string];

const GEN = { model: 'local-svg', prompt: 'a fox' };
const VEC = { model: 'inkwell-trace', image: { base64: TINY_PNG_BASE64 } };
const EDIT = { model: 'local-svg', prompt: 'bluer', svg: SQUARE_SVG };
const ANIM = { model: 'local-svg', svg_source: { base64: base64(SQUARE_SVG) } };
const vb = (viewBox: unknown) => ({ attributes: { viewBox } });
const ok = (name: string, body: Record<string, unknown>): Case => [name, body, 200, ''];

const GENERATION_CASES: Case[] = [
  ['missing model', { prompt: 'x' }, 400, 'invalid_request', 'model'],
  ['empty model', { ...GEN, model: '' }, 400, 'invalid_request', 'model'],
  ['model not a string', { ...GEN, model: 7 }, 400, 'invalid_request', 'model'],
  ['missing prompt', { model: 'local-svg' }, 400, 'invalid_request', 'prompt'],
  ['empty prompt', { ...GEN, prompt: '' }, 400, 'invalid_request', 'prompt'],
  ['prompt over 100000 characters', { ...GEN, prompt: 'x'.repeat(100_001) }, 413, 'payload_too_large', 'prompt'],
  ['empty instructions', { ...GEN, instructions: '' }, 400, 'invalid_request', 'instructions'],
  ['n = 0', { ...GEN, n: 0 }, 400, 'invalid_request', 'n'],
  ['n = 17', { ...GEN, n: 17 }, 400, 'invalid_request', 'n'],
  ['n = 1.5', { ...GEN, n: 1.5 }, 400, 'invalid_request', 'n'],
  ['n as a string is not coerced', { ...GEN, n: '2' }, 400, 'invalid_request', 'n'],
  ['n null', { ...GEN, n: null }, 400, 'invalid_request', 'n'],
  ['stream as a string', { ...GEN, stream: 'true' }, 400, 'invalid_request', 'stream'],
  ['temperature below 0', { ...GEN, temperature: -0.01 }, 400, 'invalid_request', 'temperature'],
  ['temperature above 2', { ...GEN, temperature: 2.01 }, 400, 'invalid_request', 'temperature'],
  ['top_p above 1', { ...GEN, top_p: 1.5 }, 400, 'invalid_request', 'top_p'],
  ['presence_penalty above 2', { ...GEN, presence_penalty: 2.5 }, 400, 'invalid_request', 'presence_penalty'],
  ['presence_penalty below -2', { ...GEN, presence_penalty: -3 }, 400, 'invalid_request', 'presence_penalty'],
  ['presence_penalty a string', { ...GEN, presence_penalty: 'high' }, 400, 'invalid_request', 'presence_penalty'],
  ['max_output_tokens 0', { ...GEN, max_output_tokens: 0 }, 400, 'invalid_request', 'max_output_tokens'],
  ['max_output_tokens 65537', { ...GEN, max_output_tokens: 65_537 }, 400, 'invalid_request', 'max_output_tokens'],
  ['reasoning_effort outside the enum', { ...GEN, reasoning_effort: 'max' }, 400, 'invalid_request', 'reasoning_effort'],
  ['unknown field', { ...GEN, colour: 'red' }, 400, 'invalid_request', 'colour'],
  ['references not an array', { ...GEN, references: 'https://x.test/a.png' }, 400, 'invalid_request', 'references'],
  ['17 references', { ...GEN, model: 'local-svg-hd', references: Array(17).fill('https://x.test/a.png') }, 400, 'invalid_request', 'references'],
  ['5 references on a standard model', { ...GEN, references: Array(5).fill('https://x.test/a.png') }, 400, 'invalid_request', 'references'],
  ['ftp reference URL', { ...GEN, references: [{ url: 'https://x.test/a.png' }, { url: 'ftp://x.test/a.png' }] }, 400, 'invalid_request', 'references[1].url'],
  ['javascript: reference shorthand', { ...GEN, references: ['javascript:alert(1)'] }, 400, 'invalid_request', 'references[0]'],
  ['reference with url and base64', { ...GEN, references: [{ url: 'https://x.test/a.png', base64: 'AAAA' }] }, 400, 'invalid_request', 'references[0]'],
  ['reference with an unknown field', { ...GEN, references: [{ href: 'https://x.test/a.png' }] }, 400, 'invalid_request', 'references[0]'],
  ['empty base64 reference', { ...GEN, references: [{ base64: '' }] }, 400, 'invalid_request', 'references[0].base64'],
  ['invalid base64 reference', { ...GEN, references: [{ base64: '***' }] }, 400, 'invalid_request', 'references[0].base64'],
  ['base64 reference over the bound', { ...GEN, references: [{ base64: 'A'.repeat(16_777_217) }] }, 413, 'payload_too_large', 'references[0].base64'],
  ['viewBox width 0', { ...GEN, ...vb({ minX: 0, minY: 0, width: 0, height: 1 }) }, 400, 'invalid_request', 'attributes.viewBox.width'],
  ['viewBox negative height', { ...GEN, ...vb({ minX: 0, minY: 0, width: 1, height: -1 }) }, 400, 'invalid_request', 'attributes.viewBox.height'],
  ['viewBox missing minY', { ...GEN, ...vb({ minX: 0, width: 1, height: 1 }) }, 400, 'invalid_request', 'attributes.viewBox.minY'],
  ['viewBox extra property', { ...GEN, ...vb({ minX: 0, minY: 0, width: 1, height: 1, depth: 1 }) }, 400, 'invalid_request', 'attributes.viewBox.depth'],
  ['viewBox as a string', { ...GEN, ...vb('0 0 1 1') }, 400, 'invalid_request', 'attributes.viewBox'],
  ['attributes unknown field', { ...GEN, attributes: { width: 5 } }, 400, 'invalid_request', 'attributes.width'],
  ok('every field at its bound', {
    ...GEN,
    instructions: 'flat',
    references: ['https://x.test/a.png', { url: 'http://x.test/b.png' }, { base64: TINY_PNG_BASE64 }, { base64: `data:image/png;base64,${TINY_PNG_BASE64}` }],
    n: 16,
    stream: false,
    temperature: 2,
    top_p: 0,
    presence_penalty: -2,
    max_output_tokens: 65_536,
    reasoning_effort: 'xhigh',
    attributes: { viewBox: { minX: -5, minY: 0.5, width: 0.001, height: 4096 } },
  }),
  ok('nullable fields as null', { ...GEN, presence_penalty: null, attributes: null }),
  ok('16 references on the high-fidelity model', { ...GEN, model: 'local-svg-hd', references: Array(16).fill('https://x.test/a.png') }),
];

const VECTORIZATION_CASES: Case[] = [
  ['missing image', { model: 'inkwell-trace' }, 400, 'invalid_request', 'image'],
  ['image as a string', { ...VEC, image: 'https://x.test/a.png' }, 400, 'invalid_request', 'image'],
  ['empty image object', { ...VEC, image: {} }, 400, 'invalid_request', 'image'],
  ['image base64 empty', { ...VEC, image: { base64: '' } }, 400, 'invalid_request', 'image.base64'],
  ['image base64 over 16777216', { ...VEC, image: { base64: 'A'.repeat(16_777_217) } }, 413, 'payload_too_large', 'image.base64'],
  ['image URL with a file scheme', { ...VEC, image: { url: 'file:///etc/passwd' } }, 400, 'invalid_request', 'image.url'],
  ['image URL not a URL', { ...VEC, image: { url: 'not a url' } }, 400, 'invalid_request', 'image.url'],
  ['target_size 127', { ...VEC, target_size: 127 }, 400, 'invalid_request', 'target_size'],
  ['target_size 4097', { ...VEC, target_size: 4097 }, 400, 'invalid_request', 'target_size'],
  ['auto_crop as a number', { ...VEC, auto_crop: 1 }, 400, 'invalid_request', 'auto_crop'],
  ['reasoning_effort outside the enum', { ...VEC, reasoning_effort: 'none' }, 400, 'invalid_request', 'reasoning_effort'],
  ['max_output_tokens 131072', { ...VEC, max_output_tokens: 131_072 }, 400, 'invalid_request', 'max_output_tokens'],
  ['a model without svg_vectorize', { ...VEC, model: 'local-svg' }, 400, 'invalid_request', 'model'],
  ['unknown field', { ...VEC, prompt: 'x' }, 400, 'invalid_request', 'prompt'],
  ok('every field at its bound', {
    ...VEC,
    auto_crop: true,
    target_size: 4096,
    reasoning_effort: 'low',
    stream: false,
    temperature: 0,
    top_p: 1,
    presence_penalty: 2,
    max_output_tokens: 1,
    attributes: { viewBox: null },
  }),
  ok('an image URL', { ...VEC, image: { url: 'https://images.example/cat.png' } }),
];

const EDIT_CASES: Case[] = [
  ['missing prompt', { model: 'local-svg', svg: SQUARE_SVG }, 400, 'invalid_request', 'prompt'],
  ['prompt over 4000 characters', { ...EDIT, prompt: 'x'.repeat(4001) }, 413, 'payload_too_large', 'prompt'],
  ['neither svg nor svg_source', { model: 'local-svg', prompt: 'x' }, 400, 'invalid_request'],
  ['svg_source null and no svg', { model: 'local-svg', prompt: 'x', svg_source: null }, 400, 'invalid_request'],
  ['both svg and svg_source', { ...EDIT, svg_source: { base64: base64(SQUARE_SVG) } }, 400, 'invalid_request'],
  ['empty svg', { ...EDIT, svg: '' }, 400, 'invalid_request', 'svg'],
  ['svg null', { ...EDIT, svg: null }, 400, 'invalid_request', 'svg'],
  ['svg over 200000 characters', { ...EDIT, svg: 'x'.repeat(200_001) }, 413, 'payload_too_large', 'svg'],
  ['svg that is not SVG', { ...EDIT, svg: '<html><body/></html>' }, 400, 'invalid_request', 'svg'],
  ['svg that is not XML', { ...EDIT, svg: '<svg><g></svg>' }, 400, 'invalid_request', 'svg'],
  ['svg with a DOCTYPE', { ...EDIT, svg: '<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>' }, 400, 'invalid_request', 'svg'],
  ['svg_source base64 over 1066668', { model: 'local-svg', prompt: 'x', svg_source: { base64: 'A'.repeat(1_066_669) } }, 413, 'payload_too_large', 'svg_source.base64'],
  ['svg_source base64 not base64', { model: 'local-svg', prompt: 'x', svg_source: { base64: '%%%' } }, 400, 'invalid_request', 'svg_source.base64'],
  ['svg_source base64 not SVG', { model: 'local-svg', prompt: 'x', svg_source: { base64: TINY_PNG_BASE64 } }, 400, 'invalid_request', 'svg_source.base64'],
  ['svg_source URL with a data scheme', { model: 'local-svg', prompt: 'x', svg_source: { url: 'data:image/svg+xml,<svg/>' } }, 400, 'invalid_request', 'svg_source.url'],
  ['5 reference_images', { ...EDIT, reference_images: Array(5).fill({ url: 'https://x.test/a.png' }) }, 400, 'invalid_request', 'reference_images'],
  ['reference_images item a string', { ...EDIT, reference_images: ['https://x.test/a.png'] }, 400, 'invalid_request', 'reference_images[0]'],
  ['max_review_steps 6', { ...EDIT, max_review_steps: 6 }, 400, 'invalid_request', 'max_review_steps'],
  ['max_review_steps -1', { ...EDIT, max_review_steps: -1 }, 400, 'invalid_request', 'max_review_steps'],
  ['settings.max_output_tokens 0', { ...EDIT, settings: { max_output_tokens: 0 } }, 400, 'invalid_request', 'settings.max_output_tokens'],
  ['settings.orchestrator_max_output_tokens 65537', { ...EDIT, settings: { orchestrator_max_output_tokens: 65_537 } }, 400, 'invalid_request', 'settings.orchestrator_max_output_tokens'],
  ['settings.shallow_max_output_tokens a string', { ...EDIT, settings: { shallow_max_output_tokens: '5' } }, 400, 'invalid_request', 'settings.shallow_max_output_tokens'],
  ['settings.temperature 2.5', { ...EDIT, settings: { temperature: 2.5 } }, 400, 'invalid_request', 'settings.temperature'],
  ['settings unknown field', { ...EDIT, settings: { top_k: 5 } }, 400, 'invalid_request', 'settings.top_k'],
  ['temperature at the top level is not an edit field', { ...EDIT, temperature: 1 }, 400, 'invalid_request', 'temperature'],
  ['a model without svg_edit', { ...EDIT, model: 'inkwell-trace' }, 400, 'invalid_request', 'model'],
  ok('every field at its bound', {
    ...EDIT,
    svg_source: null,
    reference_images: [{ url: 'https://x.test/a.png' }, { base64: TINY_PNG_BASE64 }, { url: 'https://x.test/b.png' }, { url: 'https://x.test/c.png' }],
    max_review_steps: 5,
    reasoning_effort: 'medium',
    settings: { max_output_tokens: 65_536, orchestrator_max_output_tokens: 1, shallow_max_output_tokens: null, temperature: 2 },
    stream: false,
  }),
  ok('svg_source by base64 data: URL', { model: 'local-svg', prompt: 'x', svg_source: { base64: `data:image/svg+xml;base64,${base64(SQUARE_SVG)}` } }),
  ok('reference_images null and settings null', { ...EDIT, reference_images: null, settings: null }),
];

const ANIMATION_CASES: Case[] = [
  ['missing svg_source', { model: 'local-svg' }, 400, 'invalid_request', 'svg_source'],
  ['svg_source null', { model: 'local-svg', svg_source: null }, 400, 'invalid_request', 'svg_source'],
  ['inline svg is not an animation field', { model: 'local-svg', svg: SQUARE_SVG }, 400, 'invalid_request', 'svg_source'],
  ['empty prompt', { ...ANIM, prompt: '' }, 400, 'invalid_request', 'prompt'],
  ['temperature 3', { ...ANIM, temperature: 3 }, 400, 'invalid_request', 'temperature'],
  ['max_output_tokens 65537', { ...ANIM, max_output_tokens: 65_537 }, 400, 'invalid_request', 'max_output_tokens'],
  ['top_p is not an animation field', { ...ANIM, top_p: 0.5 }, 400, 'invalid_request', 'top_p'],
  ['a model without svg_animate', { ...ANIM, model: 'local-svg-hd' }, 400, 'invalid_request', 'model'],
  ok('every field at its bound', { ...ANIM, prompt: 'spin', reasoning_effort: 'high', temperature: 2, max_output_tokens: 65_536, stream: false }),
  ok('an SVG URL', { model: 'local-svg', svg_source: { url: 'https://images.example/logo.svg' } }),
];

const suites: [string, string, Case[]][] = [
  ['generations', '/v1/svgs/generations', GENERATION_CASES],
  ['vectorizations', '/v1/svgs/vectorizations', VECTORIZATION_CASES],
  ['edits', '/v1/svgs/edits', EDIT_CASES],
  ['animations', '/v1/svgs/animations', ANIMATION_CASES],
];

describe('request validation: every field, type, default and bound', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  for (const [endpoint, path, cases] of suites) {
    describe(endpoint, () => {
      for (const [name, body, status, code, param] of cases) {
        it(`${name} → ${status}${code ? ` ${code}` : ''}${param ? ` (${param})` : ''}`, async () => {
          const response = await h.request('POST', path, { body });
          if (status === 200) {
            assert.equal(response.status, 200, JSON.stringify(response.json));
            return;
          }
          assertError(response, { status, code, param });
          assert.ok(!response.text.includes('javascript:alert'), 'the submitted value is never echoed');
        });
      }
    });
  }

  it('an unknown model is 404 model_not_found with param model, on every operation', async () => {
    for (const [, path, cases] of suites) {
      const valid = cases.find((c) => c[2] === 200)![1];
      assertError(await h.request('POST', path, { body: { ...valid, model: 'no-such-model' } }), {
        status: 404,
        code: 'model_not_found',
        param: 'model',
      });
    }
  });

  it('unknown fields are named in the message', async () => {
    const response = await h.request('POST', '/v1/svgs/generations', { body: { ...GEN, colour: 'red' } });
    assert.equal(response.json.message, 'Unrecognized request argument supplied: colour');
  });

  it('defaults apply when fields are omitted (n = 1, no stream)', async () => {
    const response = await h.request('POST', '/v1/svgs/generations', { body: GEN });
    assert.equal(response.status, 200);
    assert.equal(response.json.data.length, 1);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  });
});
