/** Median of a list of numbers (the list is sorted in place). */
export function median(values: number[]): number {
  values.sort((a, b) => a - b);
  const middle = values.length >> 1;
  return values.length % 2 ? values[middle]! : (values[middle - 1]! + values[middle]!) / 2;
}

/** Milliseconds one call of `work` takes, as a median over `runs` calls after `warmup` untimed ones. */
export async function medianMs(work: () => Promise<unknown> | unknown, runs: number, warmup: number): Promise<number> {
  for (let i = 0; i < warmup; i++) await work();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return median(times);
}

/**
 * Medians of several contenders timed in turns — a block of consecutive calls of each, in a
 * rotating order — so a change in the machine's load falls on all of them alike, while each call
 * still follows one of its own kind (as in a server that does one kind of job at a time).
 */
export async function interleavedMedians<Name extends string>(
  contenders: Record<Name, () => Promise<unknown>>,
  runs: number,
  warmup: number,
  block = 10,
): Promise<Record<Name, number>> {
  const names = Object.keys(contenders) as Name[];
  const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Name, number[]>;
  for (const name of names) for (let i = 0; i < warmup; i++) await contenders[name]();
  for (let round = 0; round * block < runs; round++) {
    for (let turn = 0; turn < names.length; turn++) {
      const name = names[(round + turn) % names.length]!;
      for (let i = 0; i < Math.min(block, runs - round * block); i++) {
        const start = performance.now();
        await contenders[name]();
        times[name].push(performance.now() - start);
      }
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(times[name])])) as Record<Name, number>;
}
