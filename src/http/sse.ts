import type { FastifyReply } from 'fastify';

export interface SseFrame {
  event?: string;
  data: unknown;
}

const HEARTBEAT_MS = 15_000;

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
 * Writes an event stream. The first frame has already been produced (so a failure before it
 * was answered as a normal JSON error); from here on the response is SSE: each frame is written
 * and flushed at once, a comment line keeps idle connections alive, and `data: [DONE]` closes
 * the transport. A client that disconnects stops the producer.
 */
export async function writeEventStream(
  reply: FastifyReply,
  first: SseFrame,
  rest: AsyncIterator<SseFrame>,
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

  // Frames made in the same tick leave in one packet (each still whole): the socket is corked
  // until the next tick instead of sending every frame on its own.
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  const write = async (text: string) => {
    if (closed) return;
    if (!corked) {
      corked = true;
      res.cork();
      process.nextTick(uncork);
    }
    if (!res.write(text)) await drainedOrClosed(res);
  };

  observer?.streamOpened();
  try {
    await write(formatFrame(first));
    while (!closed) {
      let next: IteratorResult<SseFrame>;
      try {
        next = await rest.next();
      } catch (error) {
        if (!closed) await write(formatFrame(onFailure(error)));
        break;
      }
      if (next.done) break;
      await write(formatFrame(next.value));
    }
    // The last frame and the end of the body in one write.
    if (!closed) res.end(DONE_FRAME);
  } finally {
    clearInterval(heartbeat);
    observer?.streamClosed();
    // Ends the producer however the loop ended (a no-op once it finished): its finally settles billing.
    await rest.return?.(undefined);
    if (!res.writableEnded) res.end();
  }
}
