import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

export interface SseFrame {
  event?: string;
  data: unknown;
}

const HEARTBEAT_MS = 15_000;
/** Characters batched within one tick before they are written without waiting for its end. */
const FLUSH_AT = 64 * 1024;

/** Told when a stream opens and closes (the active-streams gauge). */
export interface StreamObserver {
  streamOpened(): void;
  streamClosed(): void;
}

/** One message in one piece: `event:` and `data:` lines with single-line JSON, `\n` endings. */
export function formatFrame(frame: SseFrame): string {
  const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
  return frame.event ? `event: ${frame.event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}

export const DONE_FRAME = 'data: [DONE]\n\n';

/** Resolves when the response can take more, or is gone; leaves no listener behind either way. */
function drainedOrClosed(res: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Writes an event stream. The first event has already been produced (so a failure before it
 * was answered as a normal JSON error); from here on the response is SSE: each event is framed
 * by `frameOf`, written and flushed at once, a comment line keeps idle connections alive, and
 * `data: [DONE]` closes the transport. A client that disconnects stops the producer. A producer
 * that can push (`listen`) has each event framed and written as it comes: nothing waits between
 * events. Others are pulled. Either way the events are framed here rather than by a generator of
 * frames around `rest`: every generator an event passes through costs a promise and a step.
 */
export async function writeEventStream<E>(
  reply: FastifyReply,
  first: E,
  rest: AsyncIterator<E> | PushingIterator<E>,
  frameOf: (event: E) => SseFrame,
  onFailure: (error: unknown) => SseFrame,
  observer?: StreamObserver,
): Promise<void> {
  const res = reply.raw;
  reply.hijack();
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.socket?.setNoDelay(true);
  let closed = false;
  res.once('close', () => {
    closed = true;
  });
  const heartbeat = setInterval(() => {
    if (!closed) res.write(': keep-alive\n\n');
  }, HEARTBEAT_MS);

  // Frames made in the same tick leave in one write (each still whole), after the tick, instead
  // of a packet each. Batched here rather than with res.cork(): Node 22 drops what a corked
  // response holds when it is ended before the uncork, and may never emit 'drain' after one.
  let pending = '';
  let flushScheduled = false;
  const flush = () => {
    if (closed || pending === '') return;
    const text = pending;
    pending = '';
    res.write(text);
  };
  const flushAtTickEnd = () => {
    flushScheduled = false;
    flush();
  };
  const send = (text: string) => {
    pending += text;
    // A producer that never waits would hold the tick forever: past a bound, the batch goes now.
    if (pending.length >= FLUSH_AT) return flush();
    if (!flushScheduled) {
      flushScheduled = true;
      process.nextTick(flushAtTickEnd);
    }
  };

  observer?.streamOpened();
  try {
    send(formatFrame(frameOf(first)));
    const stream = { res, send, gone: () => closed };
    if (isPushing(rest)) await writePushed(rest, frameOf, onFailure, stream);
    else await writePulled(rest, frameOf, onFailure, stream);
    // What is still batched, the last frame and the end of the body in one write.
    if (!closed) {
      res.end(pending + DONE_FRAME);
      pending = '';
    }
  } finally {
    clearInterval(heartbeat);
    observer?.streamClosed();
    // Ends the producer however the loop ended (a no-op once it finished): its finally settles billing.
    await rest.return?.(undefined);
    if (!res.writableEnded) res.end();
  }
}

/** An open event stream: its response, the batching send, and whether the client is gone. */
interface OpenStream {
  res: ServerResponse;
  send(text: string): void;
  gone(): boolean;
}

/** A producer that pushes (operations' event pipes): its events are written as they come, with no wait between them. */
export interface PushingIterator<E> extends AsyncIterator<E> {
  listen(sink: { event(event: E): void; end(error?: unknown): void }): void;
}

function isPushing<E>(rest: AsyncIterator<E> | PushingIterator<E>): rest is PushingIterator<E> {
  return typeof (rest as Partial<PushingIterator<E>>).listen === 'function';
}

/**
 * Each pushed event framed and sent as it comes, until the producer ends or the client leaves. A
 * client that reads slowly is written to all the same: the producer cannot be held back, and what
 * it sends (a bounded number of drafts and documents) waits in the response's buffer instead.
 */
function writePushed<E>(rest: PushingIterator<E>, frameOf: (event: E) => SseFrame, onFailure: (error: unknown) => SseFrame, { res, send, gone }: OpenStream): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let over = false;
    const stop = (error?: unknown) => {
      if (over) return;
      over = true;
      res.off('close', left);
      if (error === undefined) resolve();
      else reject(error);
    };
    const left = () => stop();
    res.once('close', left);
    rest.listen({
      event: (event) => {
        if (over || gone()) return;
        try {
          send(formatFrame(frameOf(event)));
        } catch (error) {
          stop(error);
        }
      },
      end: (error) => {
        if (over) return;
        try {
          if (error !== undefined && !gone()) send(formatFrame(onFailure(error)));
          stop();
        } catch (framing) {
          stop(framing);
        }
      },
    });
  });
}

/** Each event pulled, framed and sent, the client's reading pacing the pulls (backpressure). */
async function writePulled<E>(rest: AsyncIterator<E>, frameOf: (event: E) => SseFrame, onFailure: (error: unknown) => SseFrame, { res, send, gone }: OpenStream): Promise<void> {
  // `next` is let go before each wait: an async function keeps what its variables last held
  // while it waits, and an event kept from one to the next (a draft's document, for seconds at
  // a model's pace) would outlive the young generation, for every stream open.
  let next: IteratorResult<E> | undefined;
  while (!gone()) {
    try {
      next = await rest.next();
    } catch (error) {
      if (res.writableNeedDrain) await drainedOrClosed(res);
      if (!gone()) send(formatFrame(onFailure(error)));
      return;
    }
    if (next.done) return;
    // Backpressure: a client that reads slowly holds the producer back, not this process's memory.
    if (res.writableNeedDrain) await drainedOrClosed(res);
    if (gone()) return;
    send(formatFrame(frameOf(next.value)));
    // Taken out of its result too: the promise that brought the result waited for it, so it is
    // in the old generation, where even dead it keeps what it reaches through every scavenge
    // until the next full collection (every draft's document, promoted to die there).
    (next as { value: unknown }).value = undefined;
    next = undefined;
  }
}
