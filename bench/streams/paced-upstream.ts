/**
 * A paced OpenAI-compatible upstream, as a process of its own: every completion streams the
 * gateway benchmark's 2 KB SVG (bench/gateway/svg.ts) a token at a time — `CHARS` characters a
 * chunk, `RATE` chunks a second, as a model server streams — and then its usage and [DONE]. One
 * timer drives every stream (a tick every 1000/RATE ms writes each open stream's next chunk), so
 * thousands of streams cost the upstream one timer, not thousands. At `RATE` 0 every chunk is written
 * at once, one write each (as bench/side-by-side's upstream does): the unpaced answer.
 * Usage: node --import tsx bench/streams/paced-upstream.ts RATE CHARS   (prints its URL on stdout)
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ANSWER_SVG, USAGE } from '../gateway/svg.ts';

const rate = Number(process.argv[2] ?? 30);
const chars = Number(process.argv[3] ?? 4);
const pieces: string[] = [];
for (let i = 0; i < ANSWER_SVG.length; i += chars) pieces.push(ANSWER_SVG.slice(i, i + chars));

interface Open {
  res: ServerResponse;
  next: number;
  model: string;
  usage: boolean;
}
const open = new Set<Open>();
const frame = (model: string, payload: object) => `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model, ...payload })}\n\n`;

/** Writes the stream's next chunk, or its end; false once it ended. */
function writeNext(stream: Open): boolean {
  const { res, model } = stream;
  if (stream.next < pieces.length) {
    const i = stream.next++;
    res.write(frame(model, { choices: [{ index: 0, delta: { ...(i === 0 ? { role: 'assistant' } : {}), content: pieces[i] }, finish_reason: null }] }));
    return true;
  }
  open.delete(stream);
  res.write(frame(model, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  if (stream.usage) res.write(frame(model, { choices: [], usage: USAGE }));
  res.end('data: [DONE]\n\n');
  return false;
}

if (rate > 0) {
  setInterval(() => {
    for (const stream of open) writeNext(stream);
  }, 1000 / rate);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; stream_options?: { include_usage?: boolean } };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const stream: Open = { res, next: 0, model: body.model, usage: Boolean(body.stream_options?.include_usage) };
    if (rate === 0) {
      while (writeNext(stream));
      return;
    }
    open.add(stream);
    res.once('close', () => open.delete(stream));
  });
});
server.maxConnections = 100_000;
server.listen(0, '127.0.0.1', 4096, () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, chunks: pieces.length }));
});
