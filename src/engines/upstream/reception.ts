import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import { ChunkTemplate, type TextSlot } from './chunk-template.ts';

/** How one endpoint's answers are read: a whole JSON body, or one SSE chunk at a time. */
export interface Reader<T> {
  json(body: unknown): T;
  /** The delta of one parsed chunk; throws UpstreamError for an error frame. */
  chunk(chunk: unknown): T;
  /**
   * Where a chunk keeps the model's text, for a reader whose `chunk()` keeps nothing of the
   * chunk it reads: its streams' chunks are then read from a template (ChunkTemplate).
   */
  textSlot?(chunk: unknown): TextSlot | undefined;
  /** Whether this delta is the model answering (ends the first-token wait). */
  isToken(delta: T): boolean;
  /** A fresh count for one call: the bytes of text the model wrote in each delta (max_output_bytes). */
  meter(): (delta: T) => number;
}

/** What one call may receive; each crossing fails it as oversize, the connection closed at once. */
export interface ReceptionLimits {
  /** The model's text (answer, reasoning, refusal, tool arguments) in UTF-8 bytes, counted as deltas arrive. */
  outputBytes: number;
  /** One SSE event, or a whole JSON body, on the wire before it is parsed: the most an answer within outputBytes takes. */
  frameBytes: number;
  /** The whole response on the wire: the last guard. */
  responseBytes: number;
}

/** What the caller is told as a response arrives, and how it names the failures the reception finds. */
export interface ReceptionHooks {
  /** The request went out on a connection. */
  connected(): void;
  /** The first delta that is the model answering. */
  firstToken(): void;
  /** Data of an event arrived (once per socket read, not per event), or a paused upstream was resumed. */
  activity(): void;
  oversize(limitBytes: number): Error;
  /** A body or event that is not what the reader expects (`cause` is the parse or shape error); `sample` is for the log. */
  malformed(cause: unknown, sample: string): Error;
}

/** Error bodies are read only this far: they are for logs, never shown to clients. */
const ERROR_BODY_BYTES = 8192;

/** Events queued beyond this pause the upstream socket until the caller takes them. */
const QUEUE_HIGH_WATER = 256;

/** A queue array of up to this many slots is kept for the next events; a larger one (after a burst) is let go. */
const KEPT_QUEUE_SLOTS = 64;

/** Events read into deltas per take(): a few hundred microseconds of work. */
const TAKE_BATCH = 128;

/** Why a reception stops reading by itself (an error body read far enough, a drain cut short). */
const ENOUGH = new Error('read far enough');

/** The first bytes of an unreadable answer that go to the log. */
const SAMPLE_BYTES = 200;

const LF = 0x0a;
const CR = 0x0d;
const BLANK_LINE_LF = Buffer.from('\n\n');
const BLANK_LINE_CRLF = Buffer.from('\n\r\n');

/**
 * One upstream response, read as undici delivers it (a dispatch handler): no body stream, no
 * async iteration per chunk, no AbortSignal. SSE frames are split as bytes arrive and queued;
 * the caller waits with `changed()` and takes them, read into deltas, with `take()`.
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
  /**
   * What arrived and is not read yet: SSE events' data, or (`body`) a whole JSON answer. Reading
   * them (JSON, the reader, the output limit) waits until the caller takes them, so the work an
   * answer costs runs where the caller shares the event loop's turn with every other answer
   * (upstream-client's turn budget), not in the I/O callback, where ten answers that arrive
   * together would run back to back.
   *
   * The events waiting are `queue[head..size)`. The array is kept and its slots reused: with one
   * token every few dozen milliseconds, a new array per take would live until the next one and
   * so outlast the young generation, to die in the old one (a major collection's work).
   */
  private queue: string[] = [];
  private head = 0;
  private size = 0;
  private body?: Buffer;
  private wake?: () => void;
  private sse?: { parser: EventSourceParser; decoder: StringDecoder; pending: string[] };
  private chunks?: Buffer[];
  /** Bytes of the body received so far. */
  private received = 0;
  /** Bytes of the SSE stream since its last blank line: the event not finished yet. */
  private eventBytes = 0;
  /** The reads of an event that has not ended yet (fed to the parser once it does). */
  private readonly unfinished: Buffer[] = [];
  private endedWithLf = false;
  /** Bytes of text the model wrote so far, by the reader's meter. */
  private output = 0;
  private readonly meter: (delta: T) => number;
  private tokenSeen = false;
  private readonly template?: ChunkTemplate;

  constructor(
    private readonly reader: Reader<T>,
    private readonly limits: ReceptionLimits,
    private readonly hooks: ReceptionHooks,
  ) {
    this.meter = reader.meter();
    if (reader.textSlot) this.template = new ChunkTemplate(reader.textSlot);
  }

  /** Arrivals wait to be taken. */
  get queued(): boolean {
    return this.size > this.head || this.body !== undefined;
  }

  /** The upstream is paused until the caller takes the queue. */
  get paused(): boolean {
    return this.controller?.paused ?? false;
  }

  /** Resolves at the next change: a status, deltas queued, the end, or an error. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.whenChanged(resolve));
  }

  /** Calls `wake` once, at the next change (changed() without a promise). */
  whenChanged(wake: () => void): void {
    this.wake = wake;
  }

  /**
   * The deltas of what arrived so far, read now (the upstream resumes if the queue had paused
   * it). A reading that fails the call (an error frame, an unreadable body, the output limit)
   * ends it there: the deltas before it are the caller's, nothing after it is read, and the
   * connection is closed.
   */
  take(): T[] {
    // At most a batch at a time: one socket read can hold thousands of events, and the caller
    // gives the event loop a turn between batches.
    const deltas: T[] = [];
    const before = this.error;
    if (this.body) {
      const delta = this.deltaOfBody(this.body);
      this.body = undefined;
      if (delta !== undefined) deltas.push(delta);
    }
    const { queue } = this;
    const stop = Math.min(this.size, this.head + TAKE_BATCH);
    while (this.head < stop && this.error === before) {
      const data = queue[this.head]!;
      queue[this.head++] = '';
      const delta = this.deltaOf(data);
      if (delta !== undefined && this.error === before) deltas.push(delta);
    }
    if (this.error !== before || this.head === this.size) this.emptyQueue();
    if (this.error !== before) {
      if (!this.closed) this.controller?.abort(ENOUGH);
    } else if (this.controller?.paused && !this.complete && this.size - this.head < QUEUE_HIGH_WATER) {
      // The wait was ours, not the upstream's: it does not count as a gap in its answer.
      this.hooks.activity();
      this.controller.resume();
    }
    return deltas;
  }

  /** The error body read so far (a failed status), as text. */
  errorText(): string {
    return this.chunks ? Buffer.concat(this.chunks).subarray(0, ERROR_BODY_BYTES).toString('utf8') : '';
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
    if (this.abortReason) return controller.abort(this.abortReason);
    this.hooks.connected();
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: the real status follows
    this.status = statusCode;
    this.headers = headers;
    if (statusCode === 200 && String(headers['content-type'] ?? '').includes('text/event-stream')) {
      const pending: string[] = [];
      this.sse = { parser: createParser({ onEvent: (event) => pending.push(event.data) }), decoder: new StringDecoder('utf8'), pending };
    } else {
      this.chunks = [];
    }
    this.notify();
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.complete || this.error) return; // draining after [DONE], or failing
    this.received += chunk.length;
    if (this.status === 200 && this.received > this.limits.responseBytes) return this.oversized(controller, this.limits.responseBytes);
    if (this.sse) return this.frames(controller, chunk);
    // A JSON answer is parsed whole: one larger than an answer within the limit can be is refused before it is all held.
    if (this.status === 200 && this.received > this.limits.frameBytes) return this.oversized(controller, this.limits.outputBytes);
    this.chunks!.push(chunk);
    if (this.status !== 200 && this.received >= ERROR_BODY_BYTES) {
      this.finish();
      controller.abort(ENOUGH);
    }
  }

  onResponseEnd(): void {
    this.closed = true;
    if (this.complete || this.error) return;
    // One JSON completion (asked for without streaming, or a server that ignored `stream`), read when taken.
    if (this.status === 200 && this.chunks) this.body = Buffer.concat(this.chunks);
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
    const before = this.eventBytes;
    this.eventBytes = this.bytesSinceBlankLine(bytes);
    // Checked before the parser holds these bytes: an event larger than any answer within the limit is never buffered whole.
    if (this.eventBytes > this.limits.frameBytes) return this.oversized(controller, this.limits.outputBytes);
    if (this.eventBytes === before + bytes.length) {
      // No event ends in these bytes: they wait for the one that does, so a long event is decoded
      // and split into lines once, not once per read (the parser would rescan what it holds).
      this.unfinished.push(bytes);
      this.hooks.activity();
      return;
    }
    const whole = this.unfinished.length > 0 ? Buffer.concat([...this.unfinished.splice(0), bytes]) : bytes;
    const { parser, decoder, pending } = this.sse!;
    // StringDecoder keeps a character split across chunks whole, at a third of TextDecoder's cost per chunk.
    parser.feed(decoder.write(whole));
    // Keep-alive comments are not activity; an event, or part of one, is. Once per read, whatever it held.
    if (pending.length > 0 || this.eventBytes > 0) this.hooks.activity();
    let queued = false;
    for (const data of pending) {
      // After [DONE] the rest is drained, not cut: the server ends the response right after it.
      if (data === '[DONE]') {
        this.finish();
        break;
      }
      if (this.size < this.queue.length) this.queue[this.size] = data;
      else this.queue.push(data);
      this.size++;
      queued = true;
    }
    pending.length = 0;
    if (this.size - this.head >= QUEUE_HIGH_WATER && !this.complete) controller.pause();
    if (queued) this.notify();
  }

  /** A whole JSON body's delta, counted against the output limit; undefined when it failed the call. */
  private deltaOfBody(body: Buffer): T | undefined {
    let delta: T;
    try {
      delta = this.reader.json(JSON.parse(body.toString('utf8')));
    } catch (error) {
      this.fail(this.hooks.malformed(error, sampleOf(this.headers!['content-type'], body)));
      return undefined;
    }
    return this.counted(delta);
  }

  /**
   * One event's delta, counted against the output limit; undefined for a keep-alive sent as a
   * `data:` line (not JSON, not content) or when the event failed the call (an error frame, an
   * unreadable chunk, the limit crossed: nothing past it is read).
   */
  private deltaOf(data: string): T | undefined {
    let chunk: unknown;
    try {
      chunk = this.template ? this.template.parse(data) : JSON.parse(data);
    } catch {
      return undefined;
    }
    let delta: T;
    try {
      delta = this.reader.chunk(chunk);
    } catch (error) {
      this.fail(this.hooks.malformed(error, `an event: ${sampleOf(this.headers!['content-type'], data)}`));
      return undefined;
    } finally {
      this.template?.letGo();
    }
    return this.counted(delta);
  }

  /** The delta, if the model's text stays within the output limit with it (else the call fails). */
  private counted(delta: T): T | undefined {
    this.output += this.meter(delta);
    if (this.output > this.limits.outputBytes) {
      this.fail(this.hooks.oversize(this.limits.outputBytes));
      return undefined;
    }
    if (!this.tokenSeen && this.reader.isToken(delta)) {
      this.tokenSeen = true;
      this.hooks.firstToken();
    }
    return delta;
  }

  /**
   * The bytes of the stream after its last blank line (the end of an event or comment), this
   * chunk included: what the parser is holding. A blank line split across chunks is seen; a
   * stream with bare CR line ends (allowed, never seen in practice) is counted long, failing early.
   */
  private bytesSinceBlankLine(bytes: Buffer): number {
    const n = bytes.length;
    // Most reads end where an event does: nothing to search for.
    if (n >= 2 && bytes[n - 1] === LF && (bytes[n - 2] === LF || (n >= 3 && bytes[n - 2] === CR && bytes[n - 3] === LF))) {
      this.endedWithLf = true;
      return 0;
    }
    const lf = bytes.lastIndexOf(BLANK_LINE_LF);
    const crlf = bytes.lastIndexOf(BLANK_LINE_CRLF);
    const end = Math.max(lf < 0 ? -1 : lf + 2, crlf < 0 ? -1 : crlf + 3);
    const endedWithLf = this.endedWithLf;
    this.endedWithLf = bytes.length > 0 && bytes[bytes.length - 1] === LF;
    if (end >= 0) return bytes.length - end;
    if (endedWithLf && bytes[0] === LF) return bytes.length - 1;
    if (endedWithLf && bytes[0] === CR && bytes[1] === LF) return bytes.length - 2;
    return this.eventBytes + bytes.length;
  }

  /**
   * The queue emptied (every event taken, or the rest dropped after a failure): its slots are
   * reused, unless a burst made the array larger than a stream needs to keep.
   */
  private emptyQueue(): void {
    if (this.queue.length > KEPT_QUEUE_SLOTS) this.queue = [];
    else this.queue.fill('', this.head, this.size);
    this.head = this.size = 0;
  }

  private oversized(controller: Dispatcher.DispatchController, limitBytes: number): void {
    this.fail(this.hooks.oversize(limitBytes));
    controller.abort(ENOUGH);
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
    if (wake) wakeThisTurn(wake);
  }
}

/** Callers with news, woken together at this turn's check phase (see wakeThisTurn). */
let due: (() => void)[] = [];

const wakeDue = () => {
  const now = due;
  due = [];
  for (const wake of now) wake();
};

/**
 * Wakes a caller once the I/O of this turn has been read, with every other caller that has news:
 * a socket read then costs only its framing, and the answers that arrived in one turn are read
 * back to back (their code and data warm, under one turn budget) instead of one by one between
 * reads. Thousands of streams a token at a time cost about a tenth less CPU per token so
 * (bench/README.md, *Many open streams*).
 */
function wakeThisTurn(wake: () => void): void {
  if (due.push(wake) === 1) setImmediate(wakeDue);
}

/** What an unreadable answer was, for the log: its content type, size and first bytes (quoted, so control characters stay visible). */
function sampleOf(contentType: string | string[] | undefined, text: Buffer | string): string {
  const type = Array.isArray(contentType) ? contentType[0] : contentType;
  const bytes = typeof text === 'string' ? Buffer.from(text.slice(0, SAMPLE_BYTES)) : text;
  const size = typeof text === 'string' ? Buffer.byteLength(text) : text.length;
  return `content-type ${type ?? 'none'}, ${size} bytes, beginning ${JSON.stringify(bytes.subarray(0, SAMPLE_BYTES).toString('utf8'))}`;
}
