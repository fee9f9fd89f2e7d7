/**
 * Several producers (the outputs of a batch, run in parallel) feeding one consumer (the
 * operation's event stream) in the order events happen. The consumer leaving early aborts the
 * producers through the signal they were given.
 */
export class EventChannel<T> {
  private readonly queue: T[] = [];
  private wake: (() => void) | undefined;
  private open: number;
  private failure: { error: unknown } | undefined;

  constructor(producers: number) {
    this.open = producers;
  }

  push(event: T): void {
    this.queue.push(event);
    this.wake?.();
  }

  /** One producer is done (normally, or with an error that ends the whole stream). */
  done(error?: unknown): void {
    if (error !== undefined) this.failure ??= { error };
    this.open--;
    this.wake?.();
  }

  /**
   * What the producers push, in order, until every one is done. `start` sets them going: it runs
   * at the first step, so what it throws is the stream's first failure. `end` runs however the
   * stream ends, the consumer leaving early included. An engine returns this generator as its
   * own: each layer of generators an event passes through costs a promise and a step per event.
   */
  async *drain(start?: () => Promise<void>, end?: () => void): AsyncGenerator<T> {
    try {
      await start?.();
      for (;;) {
        while (this.queue.length > 0) yield this.queue.shift()!;
        if (this.failure) throw this.failure.error;
        if (this.open <= 0) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      end?.();
    }
  }
}
