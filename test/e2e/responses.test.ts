import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream.ts';
import { assertError } from '../helpers/schemas.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { assertOpenResponse } from '../engines/openai-compatible/responses/open-responses.ts';

type Case = [name: string, body: Record<string, unknown>, status: number, code: string, param?: string];

/** The built-in token-priced entry (Responses are billed by tokens); its upstream is scripted here. */
const BASE = { model: 'local-svg-metered', input: 'Draw me a sheep' };
const TOOLS = [{ type: 'function', name: 'render_svg', description: 'Render', parameters: { type: 'object' }, strict: true }];
const HISTORY = [
  { role: 'user', content: 'draw' },
  { type: 'reasoning', id: 'rs_1' },
  { type: 'function_call', call_id: 'call_1', name: 'render_svg', arguments: '{"w":1}' },
  { type: 'function_call_output', call_id: 'call_1', output: '{"ok":true}' },
  { type: 'custom_tool_call', call_id: 'call_2', name: 'shell', input: 'ls' },
  { type: 'custom_tool_call_output', call_id: 'call_2', output: 'a.svg' },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] },
];

const CASES: Case[] = [
  ['store: true', { ...BASE, store: true }, 400, 'invalid_request', 'store'],
  ['a previous_response_id', { ...BASE, previous_response_id: 'resp_123' }, 400, 'invalid_request', 'previous_response_id'],
  ['background', { ...BASE, background: false }, 400, 'invalid_request', 'background'],
  ['include', { ...BASE, include: ['reasoning.encrypted_content'] }, 400, 'invalid_request', 'include'],
  ['websocket', { ...BASE, websocket: true }, 400, 'invalid_request', 'websocket'],
  ['an unknown top-level field', { ...BASE, colour: 'red' }, 400, 'invalid_request', 'colour'],
  ['missing model', { input: 'x' }, 400, 'invalid_request', 'model'],
  ['missing input', { model: 'local-svg' }, 400, 'invalid_request', 'input'],
  ['input a number', { ...BASE, input: 5 }, 400, 'invalid_request', 'input'],
  ['an empty input list (nothing to ask the model)', { ...BASE, input: [] }, 400, 'invalid_request', 'input'],
  ['an empty input string', { ...BASE, input: '' }, 400, 'invalid_request', 'input'],
  ['an item of unknown type', { ...BASE, input: [{ type: 'item_reference', id: 'msg_1' }] }, 400, 'invalid_request', 'input[0].type'],
  ['a message with an unknown role', { ...BASE, input: [{ type: 'message', role: 'critic', content: 'x' }] }, 400, 'invalid_request', 'input[0].role'],
  ['a content part missing its text', { ...BASE, input: [{ role: 'user', content: [{ type: 'input_text' }] }] }, 400, 'invalid_request', 'input[0].content[0].text'],
  ['encrypted reasoning', { ...BASE, input: [{ type: 'reasoning', id: 'rs_1', encrypted_content: 'gAAA' }] }, 400, 'invalid_request', 'input[0].encrypted_content'],
  ['private reasoning text', { ...BASE, input: [{ type: 'reasoning', id: 'rs_1', content: [{ type: 'reasoning_text', text: 'x' }] }] }, 400, 'invalid_request', 'input[0].content'],
  ['a reasoning item without id', { ...BASE, input: [{ type: 'reasoning' }] }, 400, 'invalid_request', 'input[0].id'],
  ['a function_call_output without its call', { ...BASE, input: [{ type: 'function_call_output', call_id: 'c9', output: 'x' }] }, 400, 'invalid_request', 'input[0].call_id'],
  ['a custom output answering a function call', { ...BASE, input: [HISTORY[2], { type: 'custom_tool_call_output', call_id: 'call_1', output: 'x' }] }, 400, 'invalid_request', 'input[1].call_id'],
  ['a call_id over 64 characters', { ...BASE, input: [{ ...HISTORY[2], call_id: 'c'.repeat(65) }] }, 400, 'invalid_request', 'input[0].call_id'],
  ['a hosted tool', { ...BASE, tools: [{ type: 'web_search' }] }, 400, 'invalid_request', 'tools[0].type'],
  ['a function name with spaces', { ...BASE, tools: [{ type: 'function', name: 'render svg' }] }, 400, 'invalid_request', 'tools[0].name'],
  ['tool_choice naming an undeclared function', { ...BASE, tools: TOOLS, tool_choice: { type: 'function', name: 'other' } }, 400, 'invalid_request', 'tool_choice.name'],
  ['tool_choice of an unknown mode', { ...BASE, tool_choice: 'sometimes' }, 400, 'invalid_request', 'tool_choice'],
  ['parallel_tool_calls as a string', { ...BASE, parallel_tool_calls: 'yes' }, 400, 'invalid_request', 'parallel_tool_calls'],
  ['temperature 3', { ...BASE, temperature: 3 }, 400, 'invalid_request', 'temperature'],
  ['max_output_tokens 15', { ...BASE, max_output_tokens: 15 }, 400, 'invalid_request', 'max_output_tokens'],
  ['17 metadata entries', { ...BASE, metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 400, 'invalid_request', 'metadata'],
  ['stream as a string', { ...BASE, stream: 'yes' }, 400, 'invalid_request', 'stream'],
  ['a model without open_responses', { ...BASE, model: 'local-svg-hd' }, 400, 'invalid_request', 'model'],
  ['the fixed-credit local-svg (Responses are token-priced)', { ...BASE, model: 'local-svg' }, 400, 'invalid_request', 'model'],
  ['an unknown model', { ...BASE, model: 'nope' }, 404, 'model_not_found', 'model'],
  ['a call_id used by two calls', { ...BASE, input: [HISTORY[2], { ...HISTORY[2] }, HISTORY[3]] }, 400, 'invalid_request', 'input[1].call_id'],
  ['two outputs for one call', { ...BASE, input: [HISTORY[2], HISTORY[3], HISTORY[3]] }, 400, 'invalid_request', 'input[2].call_id'],
  ['a call replayed without its output', { ...BASE, input: [HISTORY[0], HISTORY[2]] }, 400, 'invalid_request', 'input[1].call_id'],
  ['reasoning replayed with summary text', { ...BASE, input: [{ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'x' }] }] }, 400, 'invalid_request', 'input[0].summary'],
  ['two tools of one name', { ...BASE, tools: [...TOOLS, { type: 'custom', name: 'render_svg' }] }, 400, 'invalid_request', 'tools[1].name'],
  ["tool_choice 'required' without tools", { ...BASE, tool_choice: 'required' }, 400, 'invalid_request', 'tool_choice'],
  ['allowed_tools naming an undeclared tool', { ...BASE, tools: TOOLS, tool_choice: { type: 'allowed_tools', tools: [{ type: 'function', name: 'nope' }] } }, 400, 'invalid_request', 'tool_choice.tools[0].name'],
  ['max_output_tokens over the model\'s 16 384', { ...BASE, max_output_tokens: 16_385 }, 400, 'invalid_request', 'max_output_tokens'],
  ['an image_url that is neither http(s) nor data:', { ...BASE, input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x/a.png' }] }] }, 400, 'invalid_request', 'input[0].content[0].image_url'],
];

describe('POST /v1/responses validation (before any model work)', () => {
  let h: Harness;
  let upstream: FakeUpstream;
  before(async () => {
    upstream = await startFakeUpstream(() => ({ kind: 'stream', content: 'Done.', usage: { prompt_tokens: 30, completion_tokens: 5 } }));
    h = await startHarness({ env: { INKWELL_UPSTREAM_BASE_URL: upstream.url } });
  });
  after(async () => {
    await h.close();
    await upstream.close();
  });

  for (const [name, body, status, code, param] of CASES) {
    it(`${name} → ${status} ${code}${param ? ` (${param})` : ''}`, async () => {
      const calls = upstream.requests.length;
      assertError(await h.request('POST', '/v1/responses', { key: h.keys.live, body }), { status, code, param });
      assert.equal(upstream.requests.length, calls, 'no model call');
    });
  }

  it('rule 1 applies to test keys only after the 404: the sandbox does not serve Responses at all', async () => {
    assertError(await h.request('POST', '/v1/responses', { key: h.keys.test, body: { ...BASE, store: true } }), { status: 404, code: 'invalid_request' });
  });

  it('a valid stateless request with tools and a replayed history runs on the model and is billed', async () => {
    const balance = async () => (await h.store.organizations.get(h.organizationId))!.balance_millicents;
    for (const body of [
      BASE,
      { ...BASE, store: false, previous_response_id: null, stream: true },
      { model: 'local-svg-metered', input: HISTORY, tools: [...TOOLS, { type: 'custom', name: 'shell' }], tool_choice: { type: 'function', name: 'render_svg' }, parallel_tool_calls: false },
      { ...BASE, tool_choice: 'auto', instructions: 'be brief', temperature: 0.2, top_p: 0.9, max_output_tokens: 1024, reasoning: { effort: 'low' }, text: { format: { type: 'text' } }, metadata: { a: 'b' } },
    ]) {
      const before = await balance();
      const calls = upstream.requests.length;
      const response = await h.request('POST', '/v1/responses', { key: h.keys.live, body });
      const label = JSON.stringify(body).slice(0, 60);
      assert.equal(response.status, 200, `${label} ${response.text.slice(0, 300)}`);
      assert.equal(upstream.requests.length, calls + 1, label);
      if (!('stream' in body)) assertOpenResponse(response.json, { customTools: true });
      // 30 input tokens at 15 000 and 5 output tokens at 60 000 millicents per million: 0.75 millicent,
      // carried as a remainder until it adds up to a whole one.
      assert.ok(before - (await balance()) <= 1, label);
    }
  });
});
