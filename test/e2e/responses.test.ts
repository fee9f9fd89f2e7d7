import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/schemas.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

type Case = [name: string, body: Record<string, unknown>, status: number, code: string, param?: string];

const BASE = { model: 'local-svg', input: 'Draw me a sheep' };
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
  ['an unknown model', { ...BASE, model: 'nope' }, 404, 'model_not_found', 'model'],
];

describe('POST /v1/responses validation (before any model work)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  for (const [name, body, status, code, param] of CASES) {
    it(`${name} → ${status} ${code}${param ? ` (${param})` : ''}`, async () => {
      assertError(await h.request('POST', '/v1/responses', { key: h.keys.live, body }), { status, code, param });
    });
  }

  it('rule 1 applies to test keys only after the 404: the sandbox does not serve Responses at all', async () => {
    assertError(await h.request('POST', '/v1/responses', { key: h.keys.test, body: { ...BASE, store: true } }), { status: 404, code: 'invalid_request' });
  });

  it('a valid stateless request with tools and a replayed history passes validation (execution: 503 in this release)', async () => {
    for (const body of [
      BASE,
      { ...BASE, store: false, previous_response_id: null, stream: true },
      { model: 'local-svg-metered', input: HISTORY, tools: [...TOOLS, { type: 'custom', name: 'shell' }], tool_choice: { type: 'function', name: 'render_svg' }, parallel_tool_calls: false },
      { ...BASE, tool_choice: 'auto', instructions: 'be brief', temperature: 0.2, top_p: 0.9, max_output_tokens: 1024, reasoning: { effort: 'low' }, text: { format: { type: 'text' } }, metadata: { a: 'b' } },
    ]) {
      assertError(await h.request('POST', '/v1/responses', { key: h.keys.live, body }), { status: 503, code: 'model_unavailable' }, JSON.stringify(body).slice(0, 60));
    }
  });
});
