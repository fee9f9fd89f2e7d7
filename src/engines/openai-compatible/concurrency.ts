/**
 * At most `limit` upstream calls at once for one upstream; the others wait in order. A waiter
 * whose request goes away leaves the queue at once.
 */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: { resolve: () => void; reject: (reason: unknown) => void; signal: AbortSignal; onAbort: () => void }[] = [];

  constructor(private readonly limit: number) {}

  /** Resolves with a release function once a slot is free. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.active < this.limit) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal.reason);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) {
        next.signal.removeEventListener('abort', next.onAbort);
        next.resolve(); // the slot passes on: `active` stays
      } else {
        this.active--;
      }
    };
  }
}
