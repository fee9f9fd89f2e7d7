/**
 * A paced OpenAI-compatible upstream, as a process of its own: every completion streams the
 * gateway benchmark's 2 KB SVG (bench/gateway/svg.ts) a token at a time — `CHARS` characters a
 * chunk, `RATE` chunks a second, as a model server streams — and then its usage and [DONE].
 * Streams come in batches of `BATCH` (default 256), as a model server decodes them: each step of a
 * batch writes the next chunk of every stream in it at once, and a new stream joins the newest batch
 * until it is full. Each batch keeps its own phase (its first stream's arrival), as the batches of
 * separate servers would, so 5 000 streams arrive as 20 bursts spread over each 1000/RATE ms, not
 * one; `BATCH` 0 puts every stream in one batch (the worst case: every chunk of every stream at the
 * same moment). One 1 ms timer drives every batch. At `RATE` 0 every chunk is written at once, one
 * write each (as bench/side-by-side's upstream does): the unpaced answer.
 * `GET /stats` answers how many answers it is sending now and the most at once since the last
 * `GET /stats?reset`: the streams the server in front really carries (the rest wait for it).
 * Usage: node --import tsx bench/streams/paced-upstream.ts RATE CHARS [BATCH]   (prints its URL on stdout)
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ANSWER_SVG, USAGE } from '../gateway/svg.ts';

const rate = Number(process.argv[2] ?? 30);
const chars = Number(process.argv[3] ?? 4);
const batchSize = Number(process.argv[4] ?? 256) || Number.POSITIVE_INFINITY;
const pieces: string[] = [];
for (let i = 0; i < ANSWER_SVG.length; i += chars) pieces.push(ANSWER_SVG.slice(i, i + chars));

interface Open {
  res: ServerResponse;
  next: number;
  model: string;
  usage: boolean;
}
/** A model server's decoding batch: its streams get their next chunk together, every `periodMs`. */
interface Batch {
  streams: Set<Open>;
  /** When its next step is due (performance.now() ms). */
  due: number;
}
const periodMs = rate > 0 ? 1000 / rate : 0;
const batches: Batch[] = [];
const frame = (model: string, payload: object) => `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model, ...payload })}\n\n`;

/** Writes the stream's next chunk, or its end; false once it ended. */
function writeNext(stream: Open): boolean {
  const { res, model } = stream;
  if (stream.next < pieces.length) {
    const i = stream.next++;
    res.write(frame(model, { choices: [{ index: 0, delta: { ...(i === 0 ? { role: 'assistant' } : {}), content: pieces[i] }, finish_reason: null }] }));
    return true;
  }
  res.write(frame(model, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  if (stream.usage) res.write(frame(model, { choices: [], usage: USAGE }));
  res.end('data: [DONE]\n\n');
  return false;
}

/** The newest batch with room, or a new one whose first step is now. */
function batchFor(): Batch {
  const newest = batches.at(-1);
  if (newest && newest.streams.size < batchSize) return newest;
  const batch = { streams: new Set<Open>(), due: performance.now() };
  batches.push(batch);
  return batch;
}

if (rate > 0) {
  setInterval(() => {
    const now = performance.now();
    for (const batch of batches) {
      if (batch.due > now) continue;
      for (const stream of batch.streams) if (!writeNext(stream)) batch.streams.delete(stream);
      // The next step a period on, in phase; a batch this process fell a whole period behind on starts its pace again from now.
      batch.due += periodMs;
      if (batch.due <= now) batch.due = now + periodMs;
    }
    for (let i = batches.length - 2; i >= 0; i--) if (batches[i]!.streams.size === 0) batches.splice(i, 1);
  }, 1);
}

let serving = 0;
let mostServing = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url?.startsWith('/stats')) {
    res.end(JSON.stringify({ serving, most_serving: mostServing }));
    if (req.url.endsWith('?reset')) mostServing = serving;
    return;
  }
  mostServing = Math.max(mostServing, ++serving);
  res.once('close', () => serving--);
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
    const batch = batchFor();
    batch.streams.add(stream);
    res.once('close', () => batch.streams.delete(stream));
  });
});
server.maxConnections = 100_000;
server.listen(0, '127.0.0.1', 4096, () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, chunks: pieces.length }));
});
