import { EventPipe } from './event-pipe.ts';

/**
 * Several producers (the outputs of a batch, run in parallel) feeding one consumer (the
 * operation's event stream) in the order events happen. The consumer leaving early aborts the
 * producers through the signal they were given.
 */
export class EventChannel<T> {
  private pipe: EventPipe<T> | undefined;
  private open: number;
  private end: (() => void) | undefined;

  constructor(producers: number) {
    this.open = producers;
  }

  push(event: T): void {
    this.pipe?.push(event);
  }

  /** One producer is done (normally, or with an error that ends the whole stream). */
  done(error?: unknown): void {
    if (error !== undefined) return this.finish(error);
    if (--this.open <= 0) this.finish();
  }

  /**
   * What the producers push, in order, until every one is done: an engine returns it as its own
   * run, and the consumer pulls it or has it pushed (event-pipe.ts). `start` sets the producers
   * going when the consumer first asks, so what it throws is the stream's first failure. `end`
   * runs once however the stream ends, the consumer leaving early included.
   */
  events(start?: () => Promise<void>, end?: () => void): EventPipe<T> {
    this.end = end;
    this.pipe = new EventPipe<T>({
      begin: () => void start?.().catch((error: unknown) => this.finish(error ?? new Error('the run failed to start'))),
      left: () => this.ended(),
    });
    return this.pipe;
  }

  private finish(error?: unknown): void {
    this.ended();
    this.pipe?.finish(error);
  }

  private ended(): void {
    const end = this.end;
    this.end = undefined;
    end?.();
  }
}
