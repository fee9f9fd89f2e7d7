import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import OpenAI from 'openai';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { ledgerTotals } from '../../../helpers/billing.ts';
import { assertError } from '../../../helpers/schemas.ts';
import { assertOpenResponse, assertOpenStream } from './open-responses.ts';
import { collect, payloads, responsesSuite, type ResponsesSetup } from './setup.ts';

const WEATHER = { type: 'function' as const, name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false };

/**
 * An entry with `options.responses_api: true`: the request goes to the upstream's own
 * POST /v1/responses, and its events are rebuilt as ours (ids, sequence numbers, reasoning
 * without text, no vendor events).
 */
describe('Responses passed through to an upstream that speaks Responses', () => {
  let s: ResponsesSetup;
  let client: OpenAI;
  responsesSuite(
    () => ({ kind: 'responses', text: 'Hello from upstream.', usage: { input_tokens: 40, output_tokens: 10 } }),
    (setup) => {
      s = setup;
      client = setup.client();
    },
  );

  it('sends the request stateless and streamed, and answers with our own ids and usage', async () => {
    const start = await s.balance();
    const response = await client.responses.create({ model: 'native', input: 'Hi', instructions: 'Be kind.', metadata: { a: 'b' }, prompt_cache_key: 'k1' });
    assertOpenResponse(response);
    assert.equal(response.output_text, 'Hello from upstream.');
    assert.match(response.id, /^resp_[0-9A-Z]{26}$/);
    assert.match(response.output[0]!.id!, /^msg_[0-9A-Z]{26}$/, 'our id, not the upstream\'s msg_up…');
    assert.deepEqual(response.usage, { input_tokens: 40, output_tokens: 10, total_tokens: 50, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
    assert.equal(start - (await s.balance()), 40 + 2 * 10);
    const sent = s.upstream.requests[0]!;
    assert.equal(sent.path, '/v1/responses');
    assert.equal(sent.body.model, 'fake-model');
    assert.equal(sent.body.store, false);
    assert.equal(sent.body.stream, true);
    assert.equal(sent.body.max_output_tokens, 4096);
    assert.equal(sent.body.instructions, 'Be kind.');
    assert.equal(sent.body.prompt_cache_key, 'k1');
    assert.equal(sent.body.metadata, undefined, 'metadata stays with us');
  });

  it('streams: reasoning without its text or summary, vendor events dropped, items and deltas renumbered', async () => {
    s.upstream.reply = () => ({ kind: 'responses', reasoning: 'SECRET-REASONING', text: 'Answer.', vendorEvents: true, usage: { input_tokens: 40, output_tokens: 30, reasoning_tokens: 20, cached_tokens: 8 } });
    const raw = await s.raw({ model: 'native', input: 'Hi' });
    const events = payloads(raw);
    assertOpenStream(events);
    assert.ok(!raw.raw.includes('SECRET-REASONING') && !raw.raw.includes('Thought about it') && !raw.raw.includes('gAAAA'), 'no reasoning text, summary or encrypted content');
    assert.ok(!raw.raw.includes('vendor') && !raw.raw.includes('codex'), 'no vendor events');
    assert.ok(!raw.raw.includes('_up'), 'no upstream ids');
    const done = events.at(-1).response;
    assert.deepEqual(done.output.map((item: { type: string }) => item.type), ['reasoning', 'message']);
    assert.deepEqual(done.output[0].summary, []);
    assert.deepEqual(done.usage.input_tokens_details, { cached_tokens: 8 });
    assert.deepEqual(done.usage.output_tokens_details, { reasoning_tokens: 20 });
  });

  it('a two-turn tool loop through the SDK: reasoning and item ids are not sent upstream, call_ids are', async () => {
    s.upstream.reply = () => ({ kind: 'responses', reasoning: 'think', toolCalls: [{ id: 'call_up_1', name: 'get_weather', arguments: '{"city":"Lima"}' }] });
    const input: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Lima?' }];
    const events = await collect(await client.responses.create({ model: 'native', input, tools: [WEATHER], stream: true }));
    assertOpenStream(events);
    const first = (events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>).response;
    const call = first.output.find((item) => item.type === 'function_call');
    assert.ok(call && call.type === 'function_call');
    assert.equal(call.call_id, 'call_up_1');
    assert.match(call.id!, /^fc_[0-9A-Z]{26}$/);
    assert.deepEqual(s.upstream.requests[0]!.body.tools, [WEATHER]);

    s.upstream.reply = () => ({ kind: 'responses', text: 'Mild, 20 °C.' });
    const second = await client.responses.create({ model: 'native', input: [...input, ...first.output, { type: 'function_call_output', call_id: call.call_id, output: '20' }] as ResponseInputItem[], tools: [WEATHER] });
    assertOpenResponse(second);
    assert.equal(second.output_text, 'Mild, 20 °C.');
    const replayed = s.upstream.requests[1]!.body.input;
    assert.deepEqual(replayed.map((item: { type?: string }) => item.type ?? 'message'), ['message', 'function_call', 'function_call_output']);
    assert.ok(replayed.every((item: { id?: string }) => item.id === undefined), 'our item ids mean nothing upstream');
    assert.equal(replayed[1].call_id, 'call_up_1');
  });

  it('custom tool calls pass through with their input streamed', async () => {
    s.upstream.reply = () => ({ kind: 'responses', toolCalls: [{ name: 'shell', arguments: 'ls -la', custom: true }] });
    const tools = [{ type: 'custom' as const, name: 'shell' }];
    const events = await collect(await client.responses.create({ model: 'native', input: 'list', tools, stream: true }));
    assertOpenStream(events, { customTools: true });
    const output = (events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>).response.output;
    assert.equal(output[0]!.type, 'custom_tool_call');
    assert.equal((output[0] as { input: string }).input, 'ls -la');
    assert.ok(events.some((e) => e.type === 'response.custom_tool_call_input.delta'));
  });

  it('an upstream that sends no deltas, or answers with one JSON object, still streams every item', async () => {
    for (const reply of [{ noDeltas: true }, { json: true }]) {
      s.upstream.reply = () => ({ kind: 'responses', text: 'Whole.', toolCalls: [{ name: 'get_weather', arguments: '{"city":"Ys"}' }], ...reply });
      const events = payloads(await s.raw({ model: 'native', input: 'x', tools: [WEATHER] }));
      assertOpenStream(events);
      const output = events.at(-1).response.output;
      assert.deepEqual(output.map((item: { type: string }) => item.type), ['message', 'function_call'], JSON.stringify(reply));
      assert.equal(output[0].content[0].text, 'Whole.');
      assert.equal(output[1].arguments, '{"city":"Ys"}');
    }
  });

  it('an incomplete upstream response is response.incomplete', async () => {
    s.upstream.reply = () => ({ kind: 'responses', text: 'Cut', status: 'incomplete' });
    const response = await client.responses.create({ model: 'native', input: 'x' });
    assertOpenResponse(response);
    assert.equal(response.status, 'incomplete');
    assert.deepEqual(response.incomplete_details, { reason: 'max_output_tokens' });
  });

  it('upstream failures: an error event or response.failed mid-stream is our error event (502); a cut stream too; nothing charged', async () => {
    const start = await s.balance();
    for (const reply of [{ failAfter: { deltas: 2, style: 'error' as const } }, { failAfter: { deltas: 2, style: 'failed' as const } }, { dropAfter: 2 }]) {
      s.upstream.reply = () => ({ kind: 'responses', text: 'one two three four five six', chunks: 6, ...reply });
      const events = payloads(await s.raw({ model: 'native', input: 'x' }));
      assertOpenStream(events);
      assert.deepEqual([events.at(-1).type, events.at(-1).error.status_code, events.at(-1).error.code], ['error', 502, 'model_error'], JSON.stringify(reply));
    }
    s.upstream.reply = () => ({ kind: 'error', status: 500, headers: { 'retry-after': '1' } });
    assertError(await s.h.request('POST', '/v1/responses', { key: s.h.keys.live, body: { model: 'native', input: 'x' } }), { status: 502, code: 'model_error' });
    s.upstream.reply = () => ({ kind: 'error', status: 503, headers: { 'retry-after': '1' } });
    assertError(await s.h.request('POST', '/v1/responses', { key: s.h.keys.live, body: { model: 'native', input: 'x' } }), { status: 503, code: 'model_unavailable' });
    s.upstream.reply = () => ({ kind: 'error', status: 401 });
    assertError(await s.h.request('POST', '/v1/responses', { key: s.h.keys.live, body: { model: 'native', input: 'x' } }), { status: 503, code: 'model_unavailable' });
    assert.equal(await s.balance(), start);
    assert.equal((await ledgerTotals(s.h.store, s.h.organizationId)).reserved, 0);
  });
});
