import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CatalogEntry } from '../../../../src/config/schema.ts';
import { ApiError } from '../../../../src/contract/errors.ts';
import type { ResponsesRequest } from '../../../../src/contract/responses.ts';
import { toChatRequest } from '../../../../src/engines/openai-compatible/responses/chat-request.ts';
import { CustomInputReader } from '../../../../src/engines/openai-compatible/responses/custom-input.ts';
import { ResponseBuilder } from '../../../../src/engines/openai-compatible/responses/builder.ts';
import { ChatAnswerReader } from '../../../../src/engines/openai-compatible/responses/chat-answer.ts';
import { parseOptions } from '../../../../src/engines/openai-compatible/options.ts';
import { checkResponsesRequest } from '../../../../src/operations/respond.ts';
import { assertOpenStream } from './open-responses.ts';

const entry = {
  id: 'm',
  engine: 'openai-compatible',
  operations: ['open_responses'],
  billing: { kind: 'token_usage', rates: { input: 1, cached_input: 1, cache_write: 1, output: 1 } },
  supported_sampling_parameters: ['temperature'],
  max_references: 0,
  owned_by: 'x',
  created: 0,
  options: { base_url: 'http://127.0.0.1:1/v1', model: 'up' },
} as unknown as CatalogEntry;
const options = parseOptions(entry);
const request = (body: Partial<ResponsesRequest>) => ({ model: 'm', input: 'x', ...body }) as ResponsesRequest;

describe('Responses → Chat Completions request translation', () => {
  it('replays a history: calls grouped into one assistant turn, outputs as tool messages after it, reasoning dropped', () => {
    const chat = toChatRequest(
      request({
        instructions: 'Sys',
        input: [
          { type: 'message', role: 'developer', content: 'Dev note' },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'a' }, { type: 'input_text', text: 'b' }] },
          { type: 'reasoning', id: 'rs_1' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"x":1}' },
          { type: 'custom_tool_call', call_id: 'c2', name: 'sh', input: 'ls' },
          { type: 'custom_tool_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'a.svg' }] },
          { type: 'function_call_output', call_id: 'c1', output: '{"ok":true}' },
          { type: 'message', role: 'user', content: 'thanks' },
        ] as ResponsesRequest['input'],
        tools: [{ type: 'function', name: 'f' }, { type: 'custom', name: 'sh' }],
        temperature: 0.5,
        top_p: 0.5,
      }),
      entry,
      options,
      new Map(),
    );
    assert.deepEqual(chat.messages, [
      { role: 'system', content: 'Sys' },
      { role: 'system', content: 'Dev note' },
      { role: 'user', content: 'a\nb' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
          { id: 'c2', type: 'function', function: { name: 'sh', arguments: '{"input":"ls"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' },
      { role: 'tool', tool_call_id: 'c2', content: 'a.svg' },
      { role: 'user', content: 'thanks' },
    ]);
    assert.deepEqual([...chat.customTools], ['sh']);
    assert.deepEqual((chat.body.tools as { function: { parameters: unknown } }[])[0]!.function.parameters, { type: 'object', properties: {} });
    assert.equal(chat.body.temperature, 0.5);
    assert.equal(chat.body.top_p, undefined, 'not listed by the entry');
  });

  it('refuses images where Chat Completions takes none (assistant turns, tool outputs), naming the part', () => {
    const attempt = (input: unknown) => () => toChatRequest(request({ input: input as ResponsesRequest['input'] }), entry, options, new Map());
    assert.throws(attempt([{ type: 'message', role: 'assistant', content: [{ type: 'input_image', image_url: 'https://x/a.png' }] }]), (e: ApiError) => e.param === 'input[0].content[0]');
    assert.throws(
      attempt([
        { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_text', text: 'x' }, { type: 'input_image', image_url: 'https://x/a.png' }] },
      ]),
      (e: ApiError) => e.param === 'input[1].output[1]',
    );
  });
});

describe('custom tool input, unwrapped while it streams', () => {
  const read = (pieces: string[]) => {
    const reader = new CustomInputReader();
    const out = pieces.map((piece) => reader.push(piece));
    return { out, ...reader.finish() };
  };

  it('decodes escapes split anywhere and holds half a surrogate pair', () => {
    const input = 'a "quoted" line\nnext\ttab \\ back é 🦊 end';
    const json = JSON.stringify({ input }).replace('é', '\\u00e9').replace('🦊', '\\ud83e\\udd8a');
    for (let size = 1; size <= 7; size++) {
      const pieces = json.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!;
      const result = read(pieces);
      assert.equal(result.out.join('') + result.rest, input, `pieces of ${size}`);
      assert.equal(result.input, input);
      assert.ok(result.out.every((piece) => !/[\ud800-\udbff]$/.test(piece)), `no half pair at size ${size}`);
    }
  });

  it('falls back to reading the whole arguments when they do not open with {"input":"', () => {
    assert.deepEqual(read(['{"cmd":', '"x", "input": "ls"}']), { out: ['', ''], input: 'ls', rest: 'ls' });
    assert.deepEqual(read(['"just a ', 'JSON string"']), { out: ['', ''], input: 'just a JSON string', rest: 'just a JSON string' });
    assert.deepEqual(read(['plain text']), { out: [''], input: 'plain text', rest: 'plain text' });
  });

  it('an answer cut inside the string keeps what was read', () => {
    const result = read(['{"input": "echo hel', 'lo\\']);
    assert.equal(result.input, 'echo hello');
    assert.equal(result.out.join('') + result.rest, 'echo hello');
  });
});

describe('the event builder over a scripted chat answer', () => {
  it('reasoning, text, then two calls (one custom): valid events, one id per item throughout', () => {
    const builder = new ResponseBuilder(request({ tools: [{ type: 'function', name: 'f' }, { type: 'custom', name: 'sh' }] }), 'm');
    const reader = new ChatAnswerReader(builder, new Set(['sh']), false);
    const events = [
      ...builder.start(),
      ...reader.take({ reasoning: 'hmm' }),
      ...reader.take({ content: 'Hi ' }),
      ...reader.take({ content: '<think>more</think>there' }),
      ...reader.take({ toolCalls: [{ index: 0, id: 'c1', name: 'f', arguments: '{"a"' }, { index: 1, id: 'c2', name: 'sh', arguments: '{"input":"l' }] }),
      ...reader.take({ toolCalls: [{ index: 0, arguments: ':1}' }, { index: 1, arguments: 's"}' }] }),
      ...reader.take({ finishReason: 'tool_calls', usage: { promptTokens: 5, completionTokens: 7, cachedTokens: 0 } }),
    ];
    const { events: tail, end } = reader.end();
    events.push(...tail, ...builder.finish({ status: end.status, usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } }));
    assertOpenStream(events as never, { customTools: true });
    const output = (events.at(-1) as { response: { output: { type: string; arguments?: string; input?: string }[] } }).response.output;
    assert.deepEqual(output.map((item) => item.type), ['reasoning', 'message', 'function_call', 'custom_tool_call']);
    assert.equal(output[2]!.arguments, '{"a":1}');
    assert.equal(output[3]!.input, 'ls');
    assert.equal((output[1] as unknown as { content: { text: string }[] }).content[0]!.text, 'Hi there');
  });
});

describe('checkResponsesRequest: pairing by call_id only, tools and tool_choice', () => {
  const refused = (body: Partial<ResponsesRequest>) => {
    try {
      checkResponsesRequest(request(body));
    } catch (error) {
      return (error as ApiError).param;
    }
    return 'accepted';
  };
  const call = (id: string) => ({ type: 'function_call', call_id: id, name: 'f', arguments: '{}' });
  const output = (id: string) => ({ type: 'function_call_output', call_id: id, output: 'x' });

  it('accepts outputs in any order after their calls, and refuses duplicates, orphans and unanswered calls', () => {
    const input = (items: object[]) => ({ input: items as ResponsesRequest['input'] });
    assert.equal(refused(input([call('a'), call('b'), output('b'), output('a')])), 'accepted');
    assert.equal(refused(input([call('a'), call('a'), output('a')])), 'input[1].call_id');
    assert.equal(refused(input([call('a'), output('a'), output('a')])), 'input[2].call_id');
    assert.equal(refused(input([output('a'), call('a')])), 'input[0].call_id');
    assert.equal(refused(input([call('a'), output('a'), call('b')])), 'input[2].call_id');
    assert.equal(refused(input([{ type: 'reasoning', id: 'rs', summary: [{ type: 'summary_text', text: 'x' }] }])), 'input[0].summary');
    assert.equal(refused(input([{ type: 'reasoning', id: 'rs', summary: [], status: 'completed' }])), 'accepted');
  });

  it('tool names are unique; tool_choice names declared tools; required needs a tool', () => {
    const f = { type: 'function' as const, name: 'f' };
    assert.equal(refused({ tools: [f, { type: 'custom', name: 'f' }] }), 'tools[1].name');
    assert.equal(refused({ tool_choice: 'required' }), 'tool_choice');
    assert.equal(refused({ tools: [f], tool_choice: 'required' }), 'accepted');
    assert.equal(refused({ tools: [f], tool_choice: { type: 'custom', name: 'f' } }), 'tool_choice.name');
    assert.equal(refused({ tools: [f], tool_choice: { type: 'allowed_tools', tools: [f, { type: 'function', name: 'g' }] } }), 'tool_choice.tools[1].name');
  });
});
