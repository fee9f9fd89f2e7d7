import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';

/** How one endpoint's answers are read: a whole JSON body, or one SSE chunk at a time. */
export interface Reader<T> {
  json(body: unknown): T;
  /** The delta of one parsed chunk; throws UpstreamError for an error frame. */
  chunk(chunk: unknown): T;
  /** Whether this delta is the model answering (ends the first-token wait). */
  isToken(delta: T): boolean;
}

/** Error bodies are read only this far: they are for logs, never shown to clients. */
const ERROR_BODY_BYTES = 8192;

/** Deltas queued beyond this pause the upstream socket until the caller takes them. */
const QUEUE_HIGH_WATER = 256;

/** Why a reception stops reading by itself (an error body read far enough, a drain cut short). */
const ENOUGH = new Error('read far enough');

/**
 * One upstream response, read as undici delivers it (a dispatch handler): no body stream, no
 * async iteration per chunk, no AbortSignal. SSE frames are parsed as bytes arrive and queued as
 * deltas for the caller, who waits with `changed()` and takes them with `take()`.
 */
export class Reception<T> implements Dispatcher.DispatchHandler {
  status?: number;
  headers?: Record<string, string | string[] | undefined>;
  /** The answer is complete (`[DONE]`, or the end of a JSON or error body): nothing more will be queued. */
  complete = false;
  /** The response ended on the wire too: nothing is left to cancel. */
  closed = false;
  /** Why the call failed (a transport error, an error frame, the caller's abort); set once. */
  error?: { reason: unknown };

  private controller?: Dispatcher.DispatchController;
  private abortReason?: Error;
  private queue: T[] = [];
  private wake?: () => void;
  private sse?: { parser: EventSourceParser; decoder: StringDecoder; pending: string[] };
  private body?: Buffer[];
  /** Bytes of the body received so far. */
  private received = 0;

  constructor(
    private readonly reader: Reader<T>,
    private readonly gotToken: () => void,
    /** A 200 answer beyond this many bytes fails with `oversize()`. */
    private readonly maxBytes: number,
    private readonly oversize: () => Error,
  ) {}

  /** Resolves at the next change: a status, deltas queued, the end, or an error. */
  changed(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }

  /** The deltas queued so far (the upstream resumes if the queue had paused it). */
  take(): T[] {
    const taken = this.queue;
    this.queue = [];
    if (this.controller?.paused) this.controller.resume();
    return taken;
  }

  /** The error body read so far (a failed status), as text. */
  errorText(): string {
    return this.body ? Buffer.concat(this.body).subarray(0, ERROR_BODY_BYTES).toString('utf8') : '';
  }

  /** Stops the call; `reason` becomes its error unless it already ended or failed. */
  abort(reason: Error): void {
    if (!this.complete) this.fail(reason);
    if (this.closed) return;
    if (this.controller) this.controller.abort(reason);
    else this.abortReason = reason;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortReason) controller.abort(this.abortReason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: the real status follows
    this.status = statusCode;
    this.headers = headers;
    if (statusCode === 200 && String(headers['content-type'] ?? '').includes('text/event-stream')) {
      const pending: string[] = [];
      this.sse = { parser: createParser({ onEvent: (event) => pending.push(event.data) }), decoder: new StringDecoder('utf8'), pending };
    } else {
      this.body = [];
    }
    this.notify();
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.complete || this.error) return; // draining after [DONE], or failing
    this.received += chunk.length;
    if (this.status === 200 && this.received > this.maxBytes) {
      this.fail(this.oversize());
      controller.abort(ENOUGH);
      return;
    }
    if (this.sse) return this.frames(controller, chunk);
    this.body!.push(chunk);
    if (this.status !== 200 && this.received >= ERROR_BODY_BYTES) {
      this.finish();
      controller.abort(ENOUGH);
    }
  }

  onResponseEnd(): void {
    this.closed = true;
    if (this.complete || this.error) return;
    if (this.status === 200 && this.body) {
      // One JSON completion: asked for without streaming, or a server that ignored `stream`.
      let delta: T;
      try {
        delta = this.reader.json(JSON.parse(Buffer.concat(this.body).toString('utf8')));
      } catch (error) {
        return this.fail(error);
      }
      this.gotToken();
      this.queue.push(delta);
    }
    // A stream that ends without [DONE] ends all the same: what came is the answer.
    this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.closed = true;
    // After [DONE], or after enough of an error body, a cut connection lost nothing.
    if (this.complete) return;
    this.fail(error);
  }

  private frames(controller: Dispatcher.DispatchController, bytes: Buffer): void {
    const { parser, decoder, pending } = this.sse!;
    // StringDecoder keeps a character split across chunks whole, at a third of TextDecoder's cost per chunk.
    parser.feed(decoder.write(bytes));
    let queued = false;
    for (const data of pending) {
      // After [DONE] the rest is drained, not cut: the server ends the response right after it.
      if (data === '[DONE]') {
        this.finish();
        break;
      }
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        continue; // a keep-alive sent as a data line: not JSON, not content
      }
      let delta: T;
      try {
        delta = this.reader.chunk(chunk);
      } catch (error) {
        this.fail(error);
        controller.abort(ENOUGH);
        break;
      }
      if (this.reader.isToken(delta)) this.gotToken();
      this.queue.push(delta);
      queued = true;
    }
    pending.length = 0;
    if (this.queue.length >= QUEUE_HIGH_WATER && !this.complete) controller.pause();
    if (queued) this.notify();
  }

  private finish(): void {
    this.complete = true;
    this.notify();
  }

  private fail(reason: unknown): void {
    this.error ??= { reason };
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
