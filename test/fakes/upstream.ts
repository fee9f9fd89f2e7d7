import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A scripted OpenAI-compatible upstream on 127.0.0.1 that behaves like the real servers do
 * (vLLM, SGLang, llama.cpp, Ollama, hosted providers): token streaming, usage in the last chunk
 * or in a chunk with choices, reasoning deltas under either name or inline <think>, error frames
 * inside a 200 stream, 4xx/5xx with Retry-After, a slow first token, dropped connections, a
 * stream that stalls mid-answer, 200s that are no completion (`raw`: HTML, JSON cut short, the
 * wrong shape), answers of any size in one chunk or many, `tool_calls` deltas (arguments split
 * across chunks, parallel calls, interleaved or not), and a native Responses endpoint
 * (`POST /v1/responses`, reply kind `responses`).
 * Each test sets `reply` to decide what the next request gets.
 */

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

/** A tool call the scripted model makes; its arguments stream in `pieces` chunks. */
export interface FakeToolCall {
  /** Omitted: the server sends no id (some do not), and the client must mint one. */
  id?: string;
  name: string;
  arguments: string;
  pieces?: number;
}

export interface StreamReply {
  kind: 'stream';
  /** The content, split into this many chunks (or given as explicit pieces). */
  content?: string;
  pieces?: string[];
  chunks?: number;
  /** Reasoning text sent before the content, under this delta field. */
  reasoning?: string;
  reasoningField?: 'reasoning_content' | 'reasoning';
  finishReason?: string | null;
  usage?: Usage;
  /** Where usage travels: a last chunk with empty choices (default), on the finishing chunk, or nowhere. */
  usageIn?: 'last' | 'with-choices' | 'none';
  firstTokenDelayMs?: number;
  chunkDelayMs?: number;
  /** Ends the connection abruptly after this many content chunks. */
  dropAfter?: number;
  /**
   * Stops after this many content chunks (all of them, if it is as many or more) and keeps the
   * connection open until the client closes it (sending `: keep-alive` comments every
   * `stallKeepAliveMs`, if set). Unstreamed, the answer never comes.
   */
  stallAfter?: number;
  stallKeepAliveMs?: number;
  /** An error frame sent after this many content chunks (OpenAI/SGLang or vLLM style). */
  errorFrame?: { after: number; style: 'openai' | 'vllm'; message?: string };
  /** Keep-alives between chunks: SSE comments, or (badly behaved) a data line that is not JSON. */
  keepAlive?: 'comment' | 'data';
  /** Refuse `stream_options` with a 400, as some providers do. */
  rejectStreamOptions?: boolean;
  /** Never send [DONE]. */
  noDone?: boolean;
  /** A refusal after the content, as `refusal` deltas in two pieces. */
  refusal?: string;
  /** Tool calls after the content, as `tool_calls` deltas (finish_reason then defaults to tool_calls). */
  toolCalls?: FakeToolCall[];
  /** Parallel calls' argument pieces interleaved (call 0 piece 0, call 1 piece 0, …) rather than one call after the other. */
  interleaveToolCalls?: boolean;
  /** Tool call deltas without `index` (as some servers send them). */
  toolCallsWithoutIndex?: boolean;
}

export interface JsonReply {
  kind: 'json';
  content: string;
  reasoning?: string;
  finishReason?: string;
  usage?: Usage;
  delayMs?: number;
  toolCalls?: FakeToolCall[];
}

/**
 * An answer of the native Responses endpoint (`POST /v1/responses`), streamed the way OpenAI and
 * vLLM stream it: the server's own ids and sequence numbers, a reasoning item with its text and
 * summary, the message's text deltas, function and custom tool calls with argument deltas,
 * `response.completed` (or `.incomplete`) with usage.
 */
export interface ResponsesReply {
  kind: 'responses';
  reasoning?: string;
  text?: string;
  chunks?: number;
  toolCalls?: (FakeToolCall & { custom?: boolean })[];
  status?: 'completed' | 'incomplete';
  usage?: { input_tokens: number; output_tokens: number; cached_tokens?: number; reasoning_tokens?: number } | null;
  /** Events of types Open Responses does not define, sent between the others. */
  vendorEvents?: boolean;
  /** An `error` event (or `response.failed`) after this many text deltas. */
  failAfter?: { deltas: number; style: 'error' | 'failed' };
  /** The connection cut after this many text deltas. */
  dropAfter?: number;
  /** Answer with one JSON response object, ignoring `stream: true`. */
  json?: boolean;
  /** No argument or text deltas: only added/done events carry the content. */
  noDeltas?: boolean;
}

export interface ErrorReply {
  kind: 'error';
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface DropReply {
  kind: 'drop';
}

/** Any body with any status and content type, streamed or not: an HTML page, JSON cut short, JSON of the wrong shape. */
export interface RawReply {
  kind: 'raw';
  status?: number;
  contentType?: string;
  body: string;
  /** The response is not ended after the body: only the client can close it. */
  keepOpen?: boolean;
}

/** Headers sent, then nothing until the client gives up. */
export interface HangReply {
  kind: 'hang';
}

export type Reply = StreamReply | JsonReply | ErrorReply | DropReply | HangReply | ResponsesReply | RawReply;

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** True once the client closed the connection before the reply was complete. */
  aborted: boolean;
}

export interface FakeUpstream {
  url: string;
  /** Decides the reply for each request (called with the request's number, from 0). */
  reply: (request: RecordedRequest, index: number) => Reply | Promise<Reply>;
  requests: RecordedRequest[];
  /** Requests being answered right now. */
  active: number;
  close(): Promise<void>;
}

const encoder = (id: string, model: string) => (delta: object) =>
  `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;

export function splitInto(text: string, count: number): string[] {
  if (count <= 1 || text.length <= 1) return [text];
  const size = Math.ceil(text.length / count);
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

async function writeStream(res: ServerResponse, reply: StreamReply, body: any, record: RecordedRequest): Promise<void> {
  if (reply.rejectStreamOptions && body.stream_options !== undefined) {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: "Unrecognized request argument supplied: stream_options", type: 'invalid_request_error', param: 'stream_options' } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = encoder('chatcmpl-1', String(body.model));
  const pause = (ms?: number) => (ms ? sleep(ms) : Promise.resolve());
  const keepAlive = () => {
    if (reply.keepAlive === 'comment') res.write(': keep-alive\n\n');
    if (reply.keepAlive === 'data') res.write('data: keep-alive\n\n');
  };
  await pause(reply.firstTokenDelayMs);
  if (record.aborted) return;
  if (reply.reasoning) {
    for (const piece of splitInto(reply.reasoning, 3)) {
      res.write(chunk({ [reply.reasoningField ?? 'reasoning_content']: piece }));
      await pause(reply.chunkDelayMs);
    }
  }
  const pieces = reply.pieces ?? splitInto(reply.content ?? '', reply.chunks ?? 8);
  for (let i = 0; i < pieces.length; i++) {
    if (record.aborted) return;
    if (reply.dropAfter !== undefined && i >= reply.dropAfter) {
      // Let what was written reach the client first: a real server dies mid-stream, not before it.
      await sleep(30);
      res.socket?.destroy();
      return;
    }
    if (reply.stallAfter !== undefined && i >= reply.stallAfter) return stall(res, reply.stallKeepAliveMs);
    if (reply.errorFrame && i === reply.errorFrame.after) {
      const message = reply.errorFrame.message ?? 'The model crashed.';
      const frame = reply.errorFrame.style === 'openai'
        ? { error: { message, type: 'server_error', code: 500 } }
        : { object: 'error', message, type: 'InternalServerError', code: 500 };
      res.write(`data: ${JSON.stringify(frame)}\n\n`);
      res.end();
      return;
    }
    res.write(chunk({ ...(i === 0 ? { role: 'assistant' } : {}), content: pieces[i] }));
    keepAlive();
    await pause(reply.chunkDelayMs);
  }
  if (reply.stallAfter !== undefined && reply.stallAfter >= pieces.length) return stall(res, reply.stallKeepAliveMs);
  if (reply.refusal) for (const piece of splitInto(reply.refusal, 2)) res.write(chunk({ refusal: piece }));
  if (reply.toolCalls) {
    for (const delta of toolCallDeltas(reply)) {
      if (record.aborted) return;
      res.write(chunk({ tool_calls: [delta] }));
      await pause(reply.chunkDelayMs);
    }
  }
  const usage = reply.usage && { ...reply.usage, total_tokens: reply.usage.total_tokens ?? reply.usage.prompt_tokens + reply.usage.completion_tokens };
  const usageIn = reply.usageIn ?? 'last';
  const wantsUsage = body.stream_options?.include_usage === true;
  const finish = reply.finishReason === undefined ? (reply.toolCalls ? 'tool_calls' : 'stop') : reply.finishReason;
  if (finish !== null) {
    const final: Record<string, unknown> = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: {}, finish_reason: finish }] };
    if (usage && usageIn === 'with-choices') final.usage = usage;
    res.write(`data: ${JSON.stringify(final)}\n\n`);
  }
  if (usage && usageIn === 'last' && wantsUsage) {
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [], usage })}\n\n`);
  }
  if (!reply.noDone) res.write('data: [DONE]\n\n');
  res.end();
}

/** Sends nothing more (but keep-alive comments, if asked) until the client closes the connection. */
async function stall(res: ServerResponse, keepAliveMs?: number): Promise<void> {
  if (res.closed) return;
  const closed = new Promise((resolve) => res.once('close', resolve));
  const timer = keepAliveMs ? setInterval(() => res.write(': keep-alive\n\n'), keepAliveMs) : undefined;
  try {
    await closed;
  } finally {
    clearInterval(timer);
  }
}

/** The `tool_calls` deltas of a reply: id, type and name first, then the arguments in pieces. */
function toolCallDeltas(reply: StreamReply): object[] {
  const perCall = reply.toolCalls!.map((call, index) => {
    const head = { ...(reply.toolCallsWithoutIndex ? {} : { index }), ...(call.id ? { id: call.id } : {}), type: 'function', function: { name: call.name, arguments: '' } };
    const pieces = splitInto(call.arguments, call.pieces ?? 4).map((piece) => ({ ...(reply.toolCallsWithoutIndex ? {} : { index }), function: { arguments: piece } }));
    return [head, ...pieces];
  });
  if (!reply.interleaveToolCalls) return perCall.flat();
  const out: object[] = [];
  for (let step = 0; perCall.some((deltas) => step < deltas.length); step++) {
    for (const deltas of perCall) if (step < deltas.length) out.push(deltas[step]!);
  }
  return out;
}

const chatToolCalls = (calls: FakeToolCall[]) =>
  calls.map((call, index) => ({ index, id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: call.arguments } }));

let responsesCounter = 0;

/** The native Responses endpoint's answer, streamed (or as one JSON object). */
async function writeResponses(res: ServerResponse, reply: ResponsesReply, body: any, record: RecordedRequest): Promise<void> {
  const n = ++responsesCounter;
  const usage = reply.usage === null
    ? null
    : {
        input_tokens: reply.usage?.input_tokens ?? 50,
        output_tokens: reply.usage?.output_tokens ?? 20,
        total_tokens: (reply.usage?.input_tokens ?? 50) + (reply.usage?.output_tokens ?? 20),
        input_tokens_details: { cached_tokens: reply.usage?.cached_tokens ?? 0 },
        output_tokens_details: { reasoning_tokens: reply.usage?.reasoning_tokens ?? 0 },
      };
  const items: any[] = [];
  if (reply.reasoning !== undefined) {
    items.push({ type: 'reasoning', id: `rs_up${n}`, summary: [{ type: 'summary_text', text: 'Thought about it.' }], content: [{ type: 'reasoning_text', text: reply.reasoning }], encrypted_content: 'gAAAAsecret' });
  }
  if (reply.text !== undefined) {
    items.push({ type: 'message', id: `msg_up${n}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: reply.text, annotations: [] }] });
  }
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    items.push(
      call.custom
        ? { type: 'custom_tool_call', id: `ctc_up${n}_${i}`, call_id: call.id ?? `call_up${n}_${i}`, name: call.name, input: call.arguments, status: 'completed' }
        : { type: 'function_call', id: `fc_up${n}_${i}`, call_id: call.id ?? `call_up${n}_${i}`, name: call.name, arguments: call.arguments, status: 'completed' },
    );
  }
  const status = reply.status ?? 'completed';
  const response = (state: string, output: any[]) => ({
    id: `resp_up${n}`, object: 'response', created_at: 1, status: state, model: body?.model, output,
    usage: state === 'in_progress' ? null : usage,
    incomplete_details: state === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    error: null,
  });
  if (reply.json || !body?.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(response(status, items)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let seq = 0;
  const send = (event: any) => res.write(`event: ${event.type}
data: ${JSON.stringify({ ...event, sequence_number: seq++ })}

`);
  send({ type: 'response.created', response: response('in_progress', []) });
  send({ type: 'response.in_progress', response: response('in_progress', []) });
  if (reply.vendorEvents) send({ type: 'codex.rate_limits', rate_limits: { primary: 1 } });
  let deltas = 0;
  for (const [index, item] of items.entries()) {
    if (record.aborted) return;
    const added = item.type === 'message' ? { ...item, status: 'in_progress', content: [] }
      : item.type === 'reasoning' ? { type: 'reasoning', id: item.id, summary: [] }
      : { ...item, status: 'in_progress', ...(item.type === 'function_call' ? { arguments: '' } : { input: '' }) };
    send({ type: 'response.output_item.added', output_index: index, item: added });
    if (item.type === 'reasoning') {
      for (const piece of splitInto(reply.reasoning!, 3)) send({ type: 'response.reasoning_text.delta', item_id: item.id, output_index: index, content_index: 0, delta: piece });
      send({ type: 'response.reasoning_summary_text.delta', item_id: item.id, output_index: index, summary_index: 0, delta: 'Thought about it.' });
    } else if (item.type === 'message') {
      send({ type: 'response.content_part.added', item_id: item.id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      if (!reply.noDeltas) {
        for (const piece of splitInto(reply.text!, reply.chunks ?? 4)) {
          if (reply.dropAfter !== undefined && deltas >= reply.dropAfter) {
            await sleep(30);
            res.socket?.destroy();
            return;
          }
          if (reply.failAfter && deltas >= reply.failAfter.deltas) {
            if (reply.failAfter.style === 'error') send({ type: 'error', code: 'server_error', message: 'The model crashed.', param: null });
            else send({ type: 'response.failed', response: { ...response('failed', []), error: { code: 'server_error', message: 'The model crashed.' } } });
            res.end();
            return;
          }
          send({ type: 'response.output_text.delta', item_id: item.id, output_index: index, content_index: 0, delta: piece, logprobs: [] });
          deltas++;
          if (reply.vendorEvents) send({ type: 'response.vendor_note', note: 'x' });
        }
      }
      send({ type: 'response.output_text.done', item_id: item.id, output_index: index, content_index: 0, text: reply.text, logprobs: [] });
      send({ type: 'response.content_part.done', item_id: item.id, output_index: index, content_index: 0, part: item.content[0] });
    } else if (!reply.noDeltas) {
      const value = item.type === 'function_call' ? item.arguments : item.input;
      const type = item.type === 'function_call' ? 'response.function_call_arguments' : 'response.custom_tool_call_input';
      for (const piece of splitInto(value, 3)) send({ type: `${type}.delta`, item_id: item.id, output_index: index, delta: piece });
      send({ type: `${type}.done`, item_id: item.id, output_index: index, ...(item.type === 'function_call' ? { arguments: value } : { input: value }) });
    }
    send({ type: 'response.output_item.done', output_index: index, item });
  }
  send({ type: status === 'incomplete' ? 'response.incomplete' : 'response.completed', response: response(status, items) });
  res.end();
}

function writeJson(res: ServerResponse, reply: JsonReply, body: any): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(completionJson(reply, body));
}

/** A whole chat completion, as a server sends it unstreamed. */
function completionJson(reply: JsonReply, body: any): string {
  const usage = reply.usage && { ...reply.usage, total_tokens: reply.usage.total_tokens ?? reply.usage.prompt_tokens + reply.usage.completion_tokens };
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: body.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content,
          ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
          ...(reply.toolCalls ? { tool_calls: chatToolCalls(reply.toolCalls) } : {}),
        },
        finish_reason: reply.finishReason ?? (reply.toolCalls ? 'tool_calls' : 'stop'),
      },
    ],
    ...(usage ? { usage } : {}),
  });
}

/**
 * A stream reply asked for without streaming: the same answer in one JSON completion, after as
 * long as the stream would have taken; a mid-stream error frame becomes an error body (with
 * 200, as some proxies send), and a dropped stream a connection closed halfway through the body.
 */
async function writeUnstreamed(res: ServerResponse, reply: StreamReply, body: any, record: RecordedRequest): Promise<void> {
  const pieces = reply.pieces ?? splitInto(reply.content ?? '', reply.chunks ?? 8);
  const wait = (reply.firstTokenDelayMs ?? 0) + (reply.chunkDelayMs ?? 0) * pieces.length;
  if (wait > 0) await sleep(wait);
  if (record.aborted) return;
  if (reply.dropAfter !== undefined) {
    const whole = completionJson({ kind: 'json', content: pieces.join('') }, body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(whole)) });
    // Let the first half reach the client: the connection dies mid-body, not before the status.
    res.write(whole.slice(0, whole.length >> 1), () => setTimeout(() => res.socket?.destroy(), 30));
    return;
  }
  if (reply.stallAfter !== undefined) return stall(res);
  if (reply.errorFrame) {
    const message = reply.errorFrame.message ?? 'The model crashed.';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply.errorFrame.style === 'openai' ? { error: { message, type: 'server_error', code: 500 } } : { object: 'error', message, type: 'InternalServerError', code: 500 }));
    return;
  }
  writeJson(res, { kind: 'json', content: pieces.join(''), reasoning: reply.reasoning, finishReason: reply.finishReason ?? undefined, usage: reply.usage, toolCalls: reply.toolCalls }, body);
}

export async function startFakeUpstream(reply: FakeUpstream['reply'] = () => ({ kind: 'stream', content: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>' })): Promise<FakeUpstream> {
  const sockets = new Set<Socket>();
  const upstream: FakeUpstream = {
    url: '',
    reply,
    requests: [],
    active: 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = undefined;
    }
    const record: RecordedRequest = { path: req.url ?? '', headers: req.headers, body, aborted: false };
    res.once('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });
    const index = upstream.requests.length;
    upstream.requests.push(record);
    upstream.active++;
    try {
      const answer = await upstream.reply(record, index);
      switch (answer.kind) {
        case 'stream':
          if (body?.stream) await writeStream(res, answer, body, record);
          else await writeUnstreamed(res, answer, body, record);
          break;
        case 'json':
          if (answer.delayMs) await sleep(answer.delayMs);
          writeJson(res, answer, body);
          break;
        case 'error':
          res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
          res.end(JSON.stringify(answer.body ?? { error: { message: `status ${answer.status}`, type: 'error' } }));
          break;
        case 'drop':
          req.socket.destroy();
          break;
        case 'responses':
          await writeResponses(res, answer, body, record);
          break;
        case 'raw':
          res.writeHead(answer.status ?? 200, answer.contentType === undefined ? {} : { 'content-type': answer.contentType });
          if (!answer.keepOpen) res.end(answer.body);
          else {
            res.write(answer.body);
            await stall(res);
          }
          break;
        case 'hang':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.flushHeaders();
          await new Promise((resolve) => res.once('close', resolve));
          break;
      }
    } finally {
      upstream.active--;
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return upstream;
}

/** A model server's address where a TCP connect hangs (neither accepted nor refused) until the client gives up. */
export interface UnacceptingListener {
  url: string;
  close(): void;
}

/**
 * An address whose connects hang, as with a server that stopped accepting: a child process listens
 * with a backlog of 1 and is stopped (SIGSTOP), and its accept queue is filled, after which Linux
 * drops each new SYN (retransmitted a second later, and dropped again). A child process, because a
 * listener in this process would accept. Throws when connects do not hang here (another kernel).
 */
export async function startUnacceptingListener(): Promise<UnacceptingListener> {
  const listen = "const s = require('net').createServer(); s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => process.stdout.write(s.address().port + '\\n'));";
  const child = spawn(process.execPath, ['-e', listen], { stdio: ['ignore', 'pipe', 'inherit'] });
  const killChild = () => child.kill('SIGKILL');
  process.once('exit', killChild); // a stopped child must not outlive the tests
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const port = Number(String(line).trim());
  child.kill('SIGSTOP');
  const sockets: Socket[] = [];
  const close = () => {
    for (const socket of sockets) socket.destroy();
    killChild();
    process.removeListener('exit', killChild);
  };
  // Connects complete while the accept queue has room; the first one that does not shows it is full.
  for (let attempt = 0; attempt < 16; attempt++) {
    const socket = connect(port, '127.0.0.1').on('error', () => {});
    sockets.push(socket);
    const opened = await Promise.race([once(socket, 'connect').then(() => true), sleep(250).then(() => false)]);
    if (!opened) return { url: `http://127.0.0.1:${port}/v1`, close };
  }
  close();
  throw new Error('connects to a full accept queue do not hang on this system');
}
