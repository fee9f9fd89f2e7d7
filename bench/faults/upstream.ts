/**
 * The fault benchmark's model server, as a process of its own (so writing megabytes of SSE never
 * delays the /healthz poller): an OpenAI-compatible `POST /v1/chat/completions` whose answer is a
 * valid SVG of `BENCH_ANSWER_BYTES` bytes, streamed as the request's model name says —
 * `one-chunk` (the whole answer in one SSE event), `many-chunks` (`BENCH_CHUNKS` events), or as
 * one JSON completion when the request does not stream. Prints its base URL on stdout.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const ANSWER_BYTES = Number(process.env.BENCH_ANSWER_BYTES ?? 790_000);
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 100_000);

/** A drawing of many small shapes, `bytes` long: what a model writing at its limit produces. */
function answerOf(bytes: number): string {
  const open = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">';
  const close = '</svg>';
  let body = '';
  for (let i = 0; open.length + body.length + close.length < bytes - 80; i++) {
    body += `<rect x="${i % 500}" y="${(i * 7) % 500}" width="6" height="6" fill="#${((i * 2654435761) % 0xffffff).toString(16).padStart(6, '0')}"/>`;
  }
  return open + body + close;
}

const ANSWER = answerOf(ANSWER_BYTES);
const frame = (delta: object) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
const END = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

/** The whole stream of an answer in `count` events, built once per mode and written in large pieces. */
function streamOf(count: number): string {
  const size = Math.ceil(ANSWER.length / count);
  const frames: string[] = [];
  for (let at = 0; at < ANSWER.length; at += size) frames.push(frame({ content: ANSWER.slice(at, at + size) }));
  return frames.join('') + END;
}
/** Each answer is serialized when it is asked for, as a real server does (not one string written ten times). */
const STREAMS: Record<string, () => string> = { 'one-chunk': () => streamOf(1), 'many-chunks': () => streamOf(CHUNKS) };

const server = createServer((request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { model: string; stream?: boolean };
    response.on('error', () => undefined); // the server may close an answer it refuses
    if (!body.stream) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }] }));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end((STREAMS[body.model] ?? STREAMS['one-chunk']!)());
  });
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`));
