/** Where pushed events go, in order, then their end: once, with the error that ended them if one did. */
export interface EventSink<T> {
  event(event: T): void;
  end(error?: unknown): void;
}

/** What a pipe's producer hears from its consumer. */
export interface PipeHooks {
  /** The consumer asked for the first time (next or listen): the producer may start. */
  begin?(): void;
  /** The consumer left before the end (return): the producer must stop; the return waits for this. */
  left?(): void | Promise<void>;
}

type Waiting<T> = { resolve(result: IteratorResult<T>): void; reject(error: unknown): void };

const DONE: IteratorResult<never> = Object.freeze({ value: undefined, done: true });

/**
 * A stream of events from one producer to one consumer, who pulls them (an async iterator) or,
 * with `listen`, has each pushed to a sink the moment it is produced. Pushed, a wait for the next
 * event costs nothing. Pulled, it costs a promise that lives as long as the wait; at a model's
 * pace that is seconds, so the promise and what it brings outlive the young generation, for every
 * stream open and at every layer an event passes. A consumer may pull first (the first event
 * decides between a JSON error and a stream) and listen after: what was queued comes first.
 */
export class EventPipe<T> implements AsyncIterableIterator<T> {
  private readonly queue: T[] = [];
  private waiting: Waiting<T> | undefined;
  private sink: EventSink<T> | undefined;
  /** How the producer ended, once it has; the consumer hears it after every queued event. */
  private ending: { error?: unknown } | undefined;
  private state: 'new' | 'open' | 'closed' = 'new';

  constructor(private readonly hooks: PipeHooks = {}) {}

  /** Hands an event on: to the sink, to a waiting pull, or into the queue. Ignored once over. */
  push(event: T): void {
    if (this.state === 'closed' || this.ending) return;
    if (this.sink) return this.sink.event(event);
    const waiting = this.waiting;
    if (!waiting) {
      this.queue.push(event);
      return;
    }
    this.waiting = undefined;
    waiting.resolve({ value: event, done: false });
  }

  /** The producer is done (with the error that ends the stream, if any). Ignored once over. */
  finish(error?: unknown): void {
    if (this.state === 'closed' || this.ending) return;
    this.ending = error === undefined ? {} : { error };
    const sink = this.sink;
    if (sink) {
      this.close();
      return sink.end(error);
    }
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      this.settle(waiting);
    }
  }

  /** Puts an event back in front (one read to choose a fallback, then handed on whole). */
  unshift(event: T): void {
    if (this.sink) throw new Error('an event pipe takes an event back only while it is pulled');
    this.queue.unshift(event);
  }

  next(): Promise<IteratorResult<T>> {
    this.open();
    if (this.queue.length > 0) return Promise.resolve({ value: this.queue.shift()!, done: false });
    if (this.state === 'closed') return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      const waiting = { resolve, reject };
      if (this.ending) this.settle(waiting);
      else this.waiting = waiting;
    });
  }

  /** From now on every event goes to `sink` as it comes (what was queued first), then the end. */
  listen(sink: EventSink<T>): void {
    if (this.sink || this.waiting) throw new Error('an event pipe has one consumer');
    this.open();
    while (this.queue.length > 0) sink.event(this.queue.shift()!);
    if (this.state === 'closed') return sink.end();
    if (this.ending) {
      this.close();
      return sink.end(this.ending.error);
    }
    this.sink = sink;
  }

  /** The consumer leaves: nothing more is handed on, and the producer is told to stop (left). */
  async return(): Promise<IteratorResult<T>> {
    if (this.state === 'closed') return DONE;
    const over = this.ending !== undefined;
    this.close();
    this.queue.length = 0;
    this.waiting?.resolve(DONE);
    this.waiting = undefined;
    if (!over) await this.hooks.left?.();
    return DONE;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private open(): void {
    if (this.state !== 'new') return;
    this.state = 'open';
    this.hooks.begin?.();
  }

  private close(): void {
    this.state = 'closed';
    this.sink = undefined;
  }

  private settle(waiting: Waiting<T>): void {
    const error = this.ending!.error;
    this.close();
    if (error === undefined) waiting.resolve(DONE);
    else waiting.reject(error);
  }
}
