/**
 * A paced OpenAI-compatible upstream for the first-draft measurement: it streams the answer in
 * the same chunks and frames as test/fakes/upstream.ts, one chunk every `gapMs`, and notes
 * (performance.now(), the bench process's clock) when the chunk that completes the first drawable
 * element was handed to the socket. The scripted fake has no such hook, hence this small twin.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface PacedUpstream {
  url: string;
  /** When the marked chunk of each request was written, in request order. */
  markedAt: number[];
  close(): Promise<void>;
}

export async function startPacedUpstream(pieces: string[], markChunk: number, gapMs: number, usage: object): Promise<PacedUpstream> {
  const sockets = new Set<Socket>();
  const markedAt: number[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const frame = (payload: object) => `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: body.model, ...payload })}\n\n`;
    let closed = false;
    res.once('close', () => {
      closed = true;
    });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (let i = 0; i < pieces.length && !closed; i++) {
      if (i > 0) await sleep(gapMs);
      res.write(frame({ choices: [{ index: 0, delta: { ...(i === 0 ? { role: 'assistant' } : {}), content: pieces[i] }, finish_reason: null }] }));
      if (i === markChunk) markedAt.push(performance.now());
    }
    if (closed) return;
    res.write(frame({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    if (body.stream_options?.include_usage) res.write(frame({ choices: [], usage }));
    res.end('data: [DONE]\n\n');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    markedAt,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
