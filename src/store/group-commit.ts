/** What one submitted item came to: its own value or its own error. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<T, R> {
  item: T;
  resolve(value: R): void;
  reject(error: unknown): void;
}

interface Lane<T, R> {
  waiting: Waiting<T, R>[];
}

/**
 * Group commit: items submitted under one key while that key is idle are committed together on
 * the next turn of the event loop; items arriving while a batch is committing wait for it and
 * then go together in the next one. A lone item waits one turn at most. `commit` answers each
 * item on its own; if it throws (the transaction failed), every item of that batch gets the error.
 */
export class GroupCommit<T, R> {
  private readonly lanes = new Map<string, Lane<T, R>>();

  constructor(
    private readonly commit: (key: string, items: T[]) => Promise<Outcome<R>[]>,
    private readonly maxBatch = 256,
  ) {}

  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let lane = this.lanes.get(key);
      if (!lane) {
        lane = { waiting: [] };
        this.lanes.set(key, lane);
        setImmediate(() => void this.drain(key, lane!));
      }
      lane.waiting.push({ item, resolve, reject });
    });
  }

  private async drain(key: string, lane: Lane<T, R>): Promise<void> {
    while (lane.waiting.length > 0) {
      const batch = lane.waiting.splice(0, this.maxBatch);
      try {
        const outcomes = await this.commit(
          key,
          batch.map((waiting) => waiting.item),
        );
        batch.forEach((waiting, i) => {
          const outcome = outcomes[i]!;
          if (outcome.ok) waiting.resolve(outcome.value);
          else waiting.reject(outcome.error);
        });
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.lanes.delete(key);
  }
}
