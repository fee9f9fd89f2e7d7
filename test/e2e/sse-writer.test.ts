import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { get } from 'node:http';
import Fastify from 'fastify';
import { writeEventStream, type SseFrame } from '../../src/http/sse.ts';
import { EventPipe } from '../../src/engines/event-pipe.ts';

/** A server whose one route streams what `producer` makes; `onFailure` is the frame a failure becomes. */
async function serveFrames(producer: () => AsyncGenerator<SseFrame>, onFailure: () => SseFrame) {
  const app = Fastify();
  app.get('/', async (_request, reply) => {
    const frames = producer();
    const first = await frames.next();
    await writeEventStream(reply, first.value!, frames, (frame) => frame, onFailure);
    return reply;
  });
  return { app, url: await app.listen({ port: 0, host: '127.0.0.1' }) };
}

describe('the SSE writer', () => {
  it('stops the producer when the client disconnects', async () => {
    let produced = 0;
    let cleanedUp = false;
    async function* producer(): AsyncGenerator<SseFrame> {
      try {
        for (;;) {
          produced++;
          yield { event: 'tick', data: { n: produced } };
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        cleanedUp = true;
      }
    }
    const { app, url } = await serveFrames(producer, () => ({ event: 'error', data: {} }));
    try {
      const controller = new AbortController();
      const response = await fetch(url, { signal: controller.signal });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      const deadline = Date.now() + 2000;
      while (!cleanedUp && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.ok(cleanedUp, 'the producer was closed');
      const stoppedAt = produced;
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(produced, stoppedAt, 'nothing is produced after the disconnect');
    } finally {
      await app.close();
    }
  });

  it('turns a failure of the producer after the first frame into a last frame, then [DONE]', async () => {
    async function* producer(): AsyncGenerator<SseFrame> {
      yield { event: 'a', data: { n: 1 } };
      throw new Error('boom');
    }
    const { app, url } = await serveFrames(producer, () => ({ event: 'error', data: { type: 'error' } }));
    try {
      const text = await (await fetch(url)).text();
      assert.equal(text, 'event: a\ndata: {"n":1}\n\nevent: error\ndata: {"type":"error"}\n\ndata: [DONE]\n\n');
    } finally {
      await app.close();
    }
  });
  it('holds the producer back while the client does not read, then delivers every frame and [DONE]', async () => {
    const FRAMES = 400;
    const payload = 'x'.repeat(64 * 1024);
    let produced = 0;
    async function* producer(): AsyncGenerator<SseFrame> {
      while (produced < FRAMES) yield { event: 'chunk', data: { n: ++produced, payload } };
    }
    const { app, url } = await serveFrames(producer, () => ({ event: 'error', data: {} }));
    try {
      let producedWhileStalled = 0;
      const body = await new Promise<string>((resolve, reject) => {
        get(url, (response) => {
          response.pause();
          setTimeout(() => {
            producedWhileStalled = produced;
            const parts: Buffer[] = [];
            response.on('data', (part: Buffer) => parts.push(part));
            response.on('end', () => resolve(Buffer.concat(parts).toString()));
            response.resume();
          }, 300);
        }).on('error', reject);
      });
      // 25 MB were there to produce; a stalled reader leaves the producer far short of it.
      assert.ok(producedWhileStalled < FRAMES / 2, `the producer waited while nothing was read (${producedWhileStalled} frames)`);
      assert.equal(body.split('event: chunk\n').length - 1, FRAMES);
      assert.ok(body.endsWith('data: [DONE]\n\n'));
    } finally {
      await app.close();
    }
  });

  it('takes each event out of the result that brought it, once its frame is written', async () => {
    const handed: IteratorResult<SseFrame>[] = [];
    let left = 3;
    // The results of the producer, kept here as the promise that carried one keeps it (in the old
    // generation, after a wait for a model's next token): none may still hold its event.
    const rest: AsyncIterator<SseFrame> = {
      next: async () => {
        const result: IteratorResult<SseFrame> = left > 0 ? { value: { event: 'tick', data: { left: left-- } }, done: false } : { value: undefined, done: true };
        handed.push(result);
        return result;
      },
    };
    const app = Fastify();
    app.get('/', async (_request, reply) => {
      await writeEventStream(reply, { event: 'first', data: {} }, rest, (frame) => frame, () => ({ event: 'error', data: {} }));
      return reply;
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const text = await (await fetch(url)).text();
      assert.equal(text, 'event: first\ndata: {}\n\n' + [3, 2, 1].map((n) => `event: tick\ndata: {"left":${n}}\n\n`).join('') + 'data: [DONE]\n\n');
      assert.equal(handed.length, 4);
      for (const result of handed) assert.equal(result.value, undefined, 'no result still holds its event');
    } finally {
      await app.close();
    }
  });

  it('writes a pushing producer\'s events as they come, its failure as the error frame, then [DONE]', async () => {
    const pipe = new EventPipe<SseFrame>();
    const app = Fastify();
    app.get('/', async (_request, reply) => {
      await writeEventStream(reply, { event: 'first', data: {} }, pipe, (frame) => frame, (error) => ({ event: 'error', data: { message: (error as Error).message } }));
      return reply;
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const response = await fetch(url);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const readUntil = async (part: string) => {
        while (!text.includes(part)) {
          const { value, done } = await reader.read();
          if (done) break;
          text += decoder.decode(value);
        }
      };
      await readUntil('event: first');
      pipe.push({ event: 'tick', data: { n: 1 } });
      await readUntil('"n":1');
      assert.ok(text.includes('event: tick\ndata: {"n":1}\n\n'), 'a pushed event is written without any pull');
      pipe.finish(new Error('model went away'));
      await readUntil('[DONE]');
      assert.equal(text, 'event: first\ndata: {}\n\nevent: tick\ndata: {"n":1}\n\nevent: error\ndata: {"message":"model went away"}\n\ndata: [DONE]\n\n');
    } finally {
      await app.close();
    }
  });

  it('tells a pushing producer once when the client leaves', async () => {
    let left = 0;
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const pipe = new EventPipe<SseFrame>({ left: () => void left++ });
    const app = Fastify();
    app.get('/', async (_request, reply) => {
      await writeEventStream(reply, { event: 'first', data: {} }, pipe, (frame) => frame, () => ({ event: 'error', data: {} }));
      written();
      return reply;
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const controller = new AbortController();
      const response = await fetch(url, { signal: controller.signal });
      await response.body!.getReader().read();
      controller.abort();
      await wrote;
      pipe.push({ event: 'tick', data: {} });
      assert.equal(left, 1);
    } finally {
      await app.close();
    }
  });
});

