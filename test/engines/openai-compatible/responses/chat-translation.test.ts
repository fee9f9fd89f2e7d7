import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import OpenAI from 'openai';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { ledgerTotals } from '../../../helpers/billing.ts';
import { assertError } from '../../../helpers/schemas.ts';
import { assertOpenResponse, assertOpenStream } from './open-responses.ts';
import { collect, payloads, responsesSuite, type ResponsesSetup } from './setup.ts';

const USAGE = { prompt_tokens: 120, completion_tokens: 80 };
/** 120 input tokens at 1 millicent, 80 output tokens at 2. */
const USAGE_COST = 280;
const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};
const TIME = { type: 'function' as const, name: 'get_time', description: null, parameters: { type: 'object', properties: { tz: { type: 'string' } } }, strict: false };

/**
 * POST /v1/responses on a Chat Completions upstream, driven by the openai SDK's
 * client.responses.create (JSON and streamed) and a raw SSE reader. Every response and event
 * is validated against the Open Responses document.
 */
describe('Responses translated to Chat Completions, through the openai SDK', () => {
  let s: ResponsesSetup;
  let client: OpenAI;
  responsesSuite(
    () => ({ kind: 'stream', content: 'A sheep stands in a meadow.', usage: USAGE }),
    (setup) => {
      s = setup;
      client = setup.client();
    },
  );

  it('answers a string input with an assistant message, usage with its details, billed by tokens', async () => {
    const start = await s.balance();
    // frequency_penalty is Open Responses' (the SDK's types lack it), sent as any client would.
    const params = { model: 'chat', input: 'Describe a sheep', instructions: 'Be brief.', temperature: 0.3, frequency_penalty: 0.5, metadata: { run: '1' } };
    const response = await client.responses.create(params as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    assertOpenResponse(response);
    assert.equal(response.status, 'completed');
    assert.equal(response.model, 'chat');
    assert.match(response.id, /^resp_[0-9A-Z]{26}$/);
    assert.equal(response.output_text, 'A sheep stands in a meadow.');
    assert.equal(response.output.length, 1);
    const message = response.output[0]!;
    assert.equal(message.type, 'message');
    assert.match(message.id, /^msg_/);
    assert.equal(message.status, 'completed');
    assert.deepEqual(response.usage, { input_tokens: 120, output_tokens: 80, total_tokens: 200, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
    assert.equal(response.instructions, 'Be brief.');
    assert.equal(response.temperature, 0.3);
    assert.deepEqual(response.metadata, { run: '1' });
    assert.ok(typeof response.completed_at === 'number');
    assert.equal(start - (await s.balance()), USAGE_COST, 'the measured usage at the model rates');
    assert.equal((await ledgerTotals(s.h.store, s.h.organizationId)).reserved, 0);

    const sent = s.upstream.requests[0]!;
    assert.equal(sent.path, '/v1/chat/completions');
    assert.equal(sent.body.model, 'fake-model');
    assert.deepEqual(sent.body.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Describe a sheep' },
    ]);
    assert.equal(sent.body.max_tokens, 4096, 'the entry\'s cap when the request names none');
    assert.equal(sent.body.stream, true);
    assert.deepEqual(sent.body.stream_options, { include_usage: true });
    assert.equal(sent.body.temperature, 0.3);
    assert.equal(sent.body.frequency_penalty, 0.5, 'sent with presence_penalty, which the entry lists');
    assert.equal(sent.body.tools, undefined);
  });

  it('streams Open Responses events: created, in_progress, the item, text deltas, done, completed, then [DONE]', async () => {
    s.upstream.reply = () => ({ kind: 'stream', content: 'Wool, four legs, a friendly face.', chunks: 6, usage: USAGE });
    const events = await collect(await client.responses.create({ model: 'chat', input: 'Describe a sheep', stream: true }));
    assertOpenStream(events);
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        ...Array(6).fill('response.output_text.delta'),
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ],
    );
    const completed = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    assert.equal(completed.response.output_text ?? completed.response.output.map((o) => (o.type === 'message' ? o.content.map((c) => (c.type === 'output_text' ? c.text : '')).join('') : '')).join(''), 'Wool, four legs, a friendly face.');
    assert.equal(completed.response.usage?.total_tokens, 200);

    // The SDK's own stream helper rebuilds the response from the events and finds nothing amiss.
    const helper = client.responses.stream({ model: 'chat', input: 'Describe a sheep' });
    const final = await helper.finalResponse(); // a ParsedResponse: the SDK adds output_parsed and parsed
    assert.equal(final.output_text, 'Wool, four legs, a friendly face.');
    assert.equal(final.status, 'completed');

    // On the wire: one `event:` + `data:` message per event, named by its type, then [DONE].
    const raw = await s.raw({ model: 'chat', input: 'Describe a sheep' });
    assert.equal(raw.status, 200);
    assert.match(raw.headers.get('content-type') ?? '', /^text\/event-stream/);
    assertOpenStream(payloads(raw));
    assert.ok(raw.raw.endsWith('data: [DONE]\n\n'));
    for (const frame of raw.raw.split('\n\n').filter(Boolean)) {
      if (frame.startsWith(':')) continue;
      assert.match(frame, /^(event: [a-z_.]+\ndata: \{.*\}|data: \[DONE\])$/s, frame.slice(0, 80));
    }
  });

  it('a two-turn tool loop: function_call items, then the replayed call and its output (JSON)', async () => {
    const start = await s.balance();
    s.upstream.reply = () => ({ kind: 'stream', content: '', toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: '{"city":"Paris"}', pieces: 5 }], usage: USAGE });
    const input: ResponseInputItem[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const first = await client.responses.create({ model: 'chat', input, tools: [WEATHER], tool_choice: { type: 'function', name: 'get_weather' }, parallel_tool_calls: false });
    assertOpenResponse(first);
    assert.equal(first.output.length, 1);
    const call = first.output[0]!;
    assert.equal(call.type, 'function_call');
    if (call.type !== 'function_call') return;
    assert.match(call.id!, /^fc_/);
    assert.equal(call.call_id, 'call_w1');
    assert.notEqual(call.id, call.call_id);
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
    assert.equal(call.status, 'completed');
    const sent = s.upstream.requests[0]!.body;
    assert.deepEqual(sent.tools, [{ type: 'function', function: { name: 'get_weather', description: 'Current weather of a city', parameters: WEATHER.parameters, strict: true } }]);
    assert.deepEqual(sent.tool_choice, { type: 'function', function: { name: 'get_weather' } });
    assert.equal(sent.parallel_tool_calls, false);

    // The caller runs the tool (the service never does) and replays the whole history.
    s.upstream.reply = () => ({ kind: 'stream', content: 'It is 18 °C and sunny in Paris.', usage: USAGE });
    const second = await client.responses.create({
      model: 'chat',
      input: [...input, ...(first.output as ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '{"celsius":18,"sky":"sunny"}' }],
      tools: [WEATHER],
    });
    assertOpenResponse(second);
    assert.equal(second.output_text, 'It is 18 °C and sunny in Paris.');
    assert.deepEqual(s.upstream.requests[1]!.body.messages, [
      { role: 'user', content: 'What is the weather in Paris?' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_w1', content: '{"celsius":18,"sky":"sunny"}' },
    ]);
    assert.equal(start - (await s.balance()), 2 * USAGE_COST, 'each request of the loop is billed on its own');
  });

  it('a streamed tool loop with parallel calls: interleaved deltas, arguments split across chunks, a call without an upstream id', async () => {
    s.upstream.reply = () => ({
      kind: 'stream',
      content: 'Let me check both.',
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}', pieces: 4 },
        { name: 'get_time', arguments: '{"tz":"Europe/Oslo"}', pieces: 5 },
      ],
      interleaveToolCalls: true,
      usage: USAGE,
    });
    const input: ResponseInputItem[] = [{ role: 'user', content: 'Weather and time in Oslo?' }];
    const events = await collect(await client.responses.create({ model: 'chat', input, tools: [WEATHER, TIME], stream: true }));
    assertOpenStream(events);
    const deltas = events.filter((e) => e.type === 'response.function_call_arguments.delta') as Extract<ResponseStreamEvent, { type: 'response.function_call_arguments.delta' }>[];
    assert.ok(deltas.length >= 9, 'arguments arrive in pieces');
    assert.ok(new Set(deltas.slice(0, 2).map((d) => d.item_id)).size === 2, 'the two calls stream interleaved');
    const completed = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    const output = completed.response.output;
    assert.deepEqual(output.map((item) => item.type), ['message', 'function_call', 'function_call']);
    const calls = output.filter((item) => item.type === 'function_call');
    assert.deepEqual(calls.map((c) => JSON.parse(c.arguments)), [{ city: 'Oslo' }, { tz: 'Europe/Oslo' }]);
    assert.equal(calls[0]!.call_id, 'call_a');
    assert.match(calls[1]!.call_id, /^call_[0-9A-Z]{26}$/, 'minted when the upstream gave none');

    s.upstream.reply = () => ({ kind: 'stream', content: 'Oslo: 4 °C, 14:05.', chunks: 3, usage: USAGE });
    const outputs: ResponseInputItem[] = calls.map((c) => ({ type: 'function_call_output', call_id: c.call_id, output: c.name === 'get_weather' ? '{"celsius":4}' : '"14:05"' }));
    // Outputs pair with their calls by call_id alone, in any order.
    const replay = [...input, ...output, outputs[1]!, outputs[0]!] as ResponseInputItem[];
    const second = await collect(await client.responses.create({ model: 'chat', input: replay, tools: [WEATHER, TIME], stream: true }));
    assertOpenStream(second);
    const messages = s.upstream.requests[1]!.body.messages;
    assert.deepEqual(messages.slice(1).map((m: { role: string }) => m.role), ['assistant', 'tool', 'tool']);
    assert.equal(messages[1].content, 'Let me check both.');
    assert.deepEqual(messages[1].tool_calls.map((c: { id: string }) => c.id), calls.map((c) => c.call_id));
    assert.deepEqual(messages.slice(2).map((m: { tool_call_id: string }) => m.tool_call_id), calls.map((c) => c.call_id), 'tool messages follow the order of the calls');
  });

  it('tool calls from servers that number none of them, or answer with one JSON completion', async () => {
    s.upstream.reply = () => ({
      kind: 'stream',
      content: '',
      toolCalls: [
        { id: 'call_1', name: 'get_weather', arguments: '{"city":"Bern"}', pieces: 3 },
        { id: 'call_2', name: 'get_time', arguments: '{"tz":"CET"}', pieces: 2 },
      ],
      toolCallsWithoutIndex: true,
      usage: USAGE,
    });
    const unnumbered = await client.responses.create({ model: 'chat', input: 'x', tools: [WEATHER, TIME] });
    assertOpenResponse(unnumbered);
    assert.deepEqual(unnumbered.output.map((item) => (item.type === 'function_call' ? [item.call_id, item.arguments] : item.type)), [
      ['call_1', '{"city":"Bern"}'],
      ['call_2', '{"tz":"CET"}'],
    ]);
    s.upstream.reply = () => ({ kind: 'json', content: 'Checking.', toolCalls: [{ id: 'call_j', name: 'get_weather', arguments: '{"city":"Riga"}' }], usage: USAGE });
    const events = await collect(await client.responses.create({ model: 'chat', input: 'x', tools: [WEATHER], stream: true }));
    assertOpenStream(events);
    const output = (events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>).response.output;
    assert.deepEqual(output.map((item) => item.type), ['message', 'function_call']);
  });

  it('parallel_tool_calls: false keeps only the first call; allowed_tools sends only those tools with its mode', async () => {
    s.upstream.reply = () => ({ kind: 'stream', content: '', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Rome"}' }, { id: 'c2', name: 'get_time', arguments: '{}' }], usage: USAGE });
    const single = await client.responses.create({ model: 'chat', input: 'x', tools: [WEATHER, TIME], parallel_tool_calls: false });
    assertOpenResponse(single);
    assert.deepEqual(single.output.map((item) => (item.type === 'function_call' ? item.call_id : item.type)), ['c1']);

    await client.responses.create({ model: 'chat', input: 'x', tools: [WEATHER, TIME], tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'get_time' }] } });
    const sent = s.upstream.requests.at(-1)!.body;
    assert.deepEqual(sent.tools.map((t: { function: { name: string } }) => t.function.name), ['get_time']);
    assert.equal(sent.tool_choice, 'required');

    await client.responses.create({ model: 'chat', input: 'x', tools: [WEATHER], tool_choice: 'none', text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } } });
    const none = s.upstream.requests.at(-1)!.body;
    assert.equal(none.tool_choice, 'none');
    assert.deepEqual(none.response_format, { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } });
  });

  it('custom tools: sent as a one-string function, returned as custom_tool_call with the input streamed as it is decoded', async () => {
    const input = 'echo "héllo"\nls -la 🦊';
    const args = JSON.stringify({ input });
    // Pieces split inside escapes (\" and \n) and between the halves of the emoji's \u escapes.
    const escaped = args.replace('🦊', '\\ud83e\\udd8a');
    s.upstream.reply = () => ({ kind: 'stream', content: '', toolCalls: [{ id: 'call_sh', name: 'shell', arguments: escaped, pieces: 17 }], usage: USAGE });
    const tools = [{ type: 'custom' as const, name: 'shell', description: 'Runs a shell command', format: { type: 'grammar' as const, syntax: 'lark' as const, definition: 'start: /.+/' } }];
    const events = await collect(await client.responses.create({ model: 'chat', input: 'list files', tools, stream: true }));
    assertOpenStream(events, { customTools: true });
    const sentTool = s.upstream.requests[0]!.body.tools[0];
    assert.equal(sentTool.function.name, 'shell');
    assert.deepEqual(sentTool.function.parameters.required, ['input']);
    assert.match(sentTool.function.description, /Runs a shell command[\s\S]*lark grammar:\nstart: \/\.\+\//);
    const deltas = events.filter((e) => e.type === 'response.custom_tool_call_input.delta') as { delta: string }[];
    assert.ok(deltas.length > 3, 'the input streams in pieces');
    assert.ok(deltas.every((d) => !/[\ud800-\udbff]$/.test(d.delta)), 'no delta ends with half a surrogate pair');
    const done = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    const call = done.response.output[0]!;
    assert.equal(call.type, 'custom_tool_call');
    if (call.type !== 'custom_tool_call') return;
    assert.equal(call.input, input);
    assert.match(call.id!, /^ctc_/);

    s.upstream.reply = () => ({ kind: 'stream', content: 'Listed.', usage: USAGE });
    const second = await client.responses.create({ model: 'chat', input: ['list files', call, { type: 'custom_tool_call_output', call_id: call.call_id, output: 'a.svg b.svg' }].map((item) => (typeof item === 'string' ? { role: 'user' as const, content: item } : item)) as ResponseInputItem[], tools });
    assertOpenResponse(second, { customTools: true });
    const messages = s.upstream.requests[1]!.body.messages;
    assert.deepEqual(messages[1].tool_calls[0], { id: 'call_sh', type: 'function', function: { name: 'shell', arguments: JSON.stringify({ input }) } });
    assert.deepEqual(messages[2], { role: 'tool', tool_call_id: 'call_sh', content: 'a.svg b.svg' });
  });

  it('reasoning becomes a reasoning item with an empty summary; its text is never sent; reasoning tokens reported', async () => {
    const secret = 'PRIVATE-CHAIN-OF-THOUGHT';
    s.upstream.reply = () => ({ kind: 'stream', reasoning: `${secret} about sheep`, content: 'Baa.', usage: { ...USAGE, completion_tokens_details: { reasoning_tokens: 30 } } });
    const raw = await s.raw({ model: 'thinker', input: 'Say it like a sheep', reasoning: { effort: 'low', summary: 'auto' } });
    const events = payloads(raw);
    assertOpenStream(events);
    assert.ok(!raw.raw.includes(secret), 'reasoning text never reaches the client');
    const completed = events.at(-1);
    assert.deepEqual(completed.response.output.map((item: { type: string }) => item.type), ['reasoning', 'message']);
    const reasoning = completed.response.output[0];
    assert.deepEqual([reasoning.summary, reasoning.status], [[], 'completed']);
    assert.match(reasoning.id, /^rs_/);
    assert.equal(completed.response.usage.output_tokens_details.reasoning_tokens, 30);
    assert.deepEqual(completed.response.reasoning, { effort: 'low', summary: null });
    const sent = s.upstream.requests[0]!.body;
    assert.equal(sent.reasoning_effort, 'low');
    assert.equal(sent.max_tokens, 4096 + 100, 'the entry cap plus the reasoning budget');

    // Inline <think> (llama.cpp without a reasoning parser) is reasoning too; the item replays as a bare reference.
    s.upstream.reply = () => ({ kind: 'stream', pieces: ['<thi', `nk>${secret}</th`, 'ink>Baa', ' again.'], usage: USAGE });
    const inline = await client.responses.create({ model: 'chat', input: 'again' });
    assertOpenResponse(inline);
    assert.ok(!JSON.stringify(inline).includes(secret));
    assert.equal(inline.output_text, 'Baa again.');
    s.upstream.reply = () => ({ kind: 'stream', content: 'ok', usage: USAGE });
    const replayed = await client.responses.create({ model: 'chat', input: [{ role: 'user', content: 'again' }, ...inline.output, { role: 'user', content: 'more' }] as ResponseInputItem[] });
    assert.equal(replayed.status, 'completed');
    assert.deepEqual(s.upstream.requests.at(-1)!.body.messages.map((m: { role: string }) => m.role), ['user', 'assistant', 'user'], 'reasoning items carry nothing upstream');
  });

  it('finish_reason length ends with response.incomplete (max_output_tokens), items incomplete, and is billed', async () => {
    const start = await s.balance();
    s.upstream.reply = () => ({ kind: 'stream', content: 'A very long', finishReason: 'length', usage: USAGE });
    const events = await collect(await client.responses.create({ model: 'chat', input: 'x', max_output_tokens: 16, stream: true }));
    assertOpenStream(events);
    const last = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.incomplete' }>;
    assert.equal(last.type, 'response.incomplete');
    assert.deepEqual(last.response.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(last.response.completed_at, null);
    assert.equal((last.response.output[0] as { status: string }).status, 'incomplete');
    assert.equal(s.upstream.requests[0]!.body.max_tokens, 16);
    assert.equal(start - (await s.balance()), USAGE_COST);
  });

  it('a refusal is a refusal content part, streamed with refusal events', async () => {
    s.upstream.reply = () => ({ kind: 'stream', content: 'Well.', refusal: 'I cannot help with that.', usage: USAGE });
    const events = payloads(await s.raw({ model: 'chat', input: 'x' }));
    assertOpenStream(events);
    assert.ok(events.some((e) => e.type === 'response.refusal.delta'));
    assert.deepEqual(events.at(-1).response.output[0].content, [
      { type: 'output_text', text: 'Well.', annotations: [] },
      { type: 'refusal', refusal: 'I cannot help with that.' },
    ]);
  });

  it('counts usage locally when the upstream reports none, and bills that', async () => {
    const start = await s.balance();
    s.upstream.reply = () => ({ kind: 'stream', content: 'Counted, not reported.', usageIn: 'none' });
    const response = await client.responses.create({ model: 'chat', input: 'Please count me' });
    assertOpenResponse(response);
    const usage = response.usage!;
    assert.ok(usage.input_tokens > 0 && usage.output_tokens > 0, JSON.stringify(usage));
    assert.equal(start - (await s.balance()), usage.input_tokens + 2 * usage.output_tokens);
  });

  it('upstream failures before the stream starts are plain JSON errors, mapped as for SVG calls, and cost nothing', async () => {
    const start = await s.balance();
    s.upstream.reply = () => ({ kind: 'error', status: 429, headers: { 'retry-after': '30' } });
    const busy = await s.h.request('POST', '/v1/responses', { key: s.h.keys.live, body: { model: 'chat', input: 'x', stream: true } });
    assertError(busy, { status: 503, code: 'model_unavailable' });
    assert.equal(busy.json.retry_after, 30);
    await assert.rejects(client.responses.create({ model: 'chat', input: 'x' }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 503);
      return true;
    });
    s.upstream.requests.length = 0;
    s.upstream.reply = () => ({ kind: 'error', status: 500 });
    assertError(await s.h.request('POST', '/v1/responses', { key: s.h.keys.live, body: { model: 'chat', input: 'x' } }), { status: 502, code: 'model_error' });
    assert.equal(s.upstream.requests.length, 2, 'a 5xx is retried once');
    s.upstream.reply = (_request, index) => (index === 0 ? { kind: 'error', status: 502 } : { kind: 'stream', content: 'recovered', usage: USAGE });
    s.upstream.requests.length = 0;
    assert.equal((await client.responses.create({ model: 'chat', input: 'x' })).output_text, 'recovered');
    assert.equal(start - (await s.balance()), USAGE_COST, 'only the request that answered is charged');
  });

  it('a failure after the stream began is an error event with its status code, then [DONE]; nothing is charged', async () => {
    const start = await s.balance();
    s.upstream.reply = () => ({ kind: 'stream', content: 'Half an answer that never ends', chunks: 6, dropAfter: 3, usage: USAGE });
    const raw = await s.raw({ model: 'chat', input: 'x' });
    const events = payloads(raw);
    assertOpenStream(events);
    const error = events.at(-1);
    assert.equal(error.type, 'error');
    assert.equal(raw.events.at(-2)!.event, 'error');
    assert.deepEqual([error.error.code, error.error.status_code, error.error.param], ['model_error', 502, null]);
    assert.equal(error.error.request_id, raw.headers.get('x-request-id'));
    assert.ok(events.some((e) => e.type === 'response.output_text.delta'), 'text had been streamed');

    s.upstream.reply = () => ({ kind: 'stream', content: 'Half an answer', chunks: 4, errorFrame: { after: 2, style: 'vllm' } });
    await assert.rejects(collect(await client.responses.create({ model: 'chat', input: 'x', stream: true })), (e: unknown) => e instanceof OpenAI.APIError);
    // Without streaming the same failure is the JSON envelope.
    assertError(await s.h.request('POST', '/v1/responses', { key: s.h.keys.live, body: { model: 'chat', input: 'x' } }), { status: 502, code: 'model_error' });
    assert.equal(await s.balance(), start);
    assert.equal((await ledgerTotals(s.h.store, s.h.organizationId)).reserved, 0);
  });

  it('images: checked and sent as data: URLs to a vision model; refused for a model without image input', async () => {
    const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const input = [{ role: 'user' as const, content: [{ type: 'input_text' as const, text: 'What is this?' }, { type: 'input_image' as const, image_url: png, detail: 'low' as const }] }];
    const response = await client.responses.create({ model: 'chat', input });
    assertOpenResponse(response);
    const content = s.upstream.requests[0]!.body.messages[0].content;
    assert.equal(content[0].text, 'What is this?');
    assert.match(content[1].image_url.url, /^data:image\/(png|jpeg);base64,/);
    assert.equal(content[1].image_url.detail, 'low');
    assertError(await s.h.request('POST', '/v1/responses', { key: s.h.keys.live, body: { model: 'blind', input } }), { status: 400, code: 'invalid_request', param: 'input[0].content[1].image_url' });
    const broken = [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA' }] }];
    assertError(await s.h.request('POST', '/v1/responses', { key: s.h.keys.live, body: { model: 'chat', input: broken } }), { status: 400, code: 'invalid_request', param: 'input[0].content[0].image_url' });
  });
});
