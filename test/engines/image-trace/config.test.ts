import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startHarness } from '../../helpers/harness.ts';

// An image-trace entry is checked when the service starts, like the chat engine's: a mistake
// stops the start with a message naming the entry and the field, never a request.

const entry = (options: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: 'draw',
  engine: 'image-trace',
  operations: ['svg_generate'],
  billing: { kind: 'fixed_credit', credits: { svg_generate: 5 } },
  input_modalities: ['text'],
  ...extra,
  options: { base_url: 'http://127.0.0.1:9/v1', model: 'gpt-image-1', ...options },
});

const refused = async (model: Record<string, unknown>, message: RegExp) =>
  assert.rejects(startHarness({ config: { catalog: { models: [model] } } }), (error: Error) => {
    assert.equal(error.name, 'ConfigError');
    assert.match(error.message, message);
    return true;
  });

describe('an image-trace entry is checked at start', () => {
  it('refuses operations other than generations, saying why', () =>
    refused(entry({}, { operations: ['svg_generate', 'svg_edit'] }), /draw: the image-trace engine only generates \(svg_generate\); remove svg_edit/));
  it('refuses vision that input_modalities do not agree with', () => refused(entry({ vision: true }), /draw: options.vision is true, but input_modalities does not list image/));
  it('refuses a size that is not WIDTHxHEIGHT', () => refused(entry({ sizes: ['1024 x 1024'] }), /draw: options.sizes\[0\] is invalid/));
  it('refuses an unknown option', () => refused(entry({ colour: 'blue' }), /draw: options is invalid \(unknown field 'colour'|draw: options.* is invalid/));
  it('refuses a missing model, and a key variable that is not set', async () => {
    await refused(entry({ model: undefined }), /draw: options.model is required/);
    await refused(entry({ api_key_env: 'INKWELL_TEST_NO_SUCH_KEY' }), /draw: options.api_key_env names INKWELL_TEST_NO_SUCH_KEY, which is not set/);
  });
  it('starts with the defaults, token-priced too (the engine measures tokens)', async () => {
    const harness = await startHarness({
      config: { catalog: { models: [entry({}, { billing: { kind: 'token_usage', rates: { input: 1, cached_input: 1, cache_write: 1, output: 1 } } })] } },
    });
    const models = await harness.request('GET', '/v1/models');
    assert.ok(models.json.data.some((m: { id: string }) => m.id === 'draw'));
    await harness.close();
  });
});
