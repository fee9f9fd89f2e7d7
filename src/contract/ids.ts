import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * Every identifier Inkwell mints carries a prefix naming what it identifies, followed by a
 * 26-character ULID body: 48 bits of millisecond time then 80 random bits, in Crockford base32,
 * so identifiers sort by creation time.
 */
export const ID_PREFIX = {
  request: 'req',
  svgResponse: 'svg',
  svgOutput: 'out',
  response: 'resp',
  responseItem: 'item',
  /** Output items of a response, and the call id minted when an upstream gives none. */
  responseMessage: 'msg',
  functionCall: 'fc',
  customToolCall: 'ctc',
  reasoning: 'rs',
  toolCall: 'call',
  organization: 'org',
  apiKey: 'key',
  ledgerEntry: 'led',
  reservation: 'rsv',
  instance: 'ins',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/**
 * One generator for every kind: within a millisecond it increments the random part instead of
 * drawing a new one, so ids sort in the order they were minted (key list, ledger). A `now`
 * earlier than the last id's time mints with that later time, which keeps the order; nothing
 * reads a time back out of an id (rows carry created_at).
 */
const nextBody = monotonicFactory(pooledRandom());

/**
 * ulid's default source asks the OS for one byte per character (16 calls per id); this one
 * draws from a 4 KiB pool of the same cryptographic randomness, refilled when spent.
 */
function pooledRandom(): () => number {
  const pool = new Uint8Array(4096);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++]! / 256;
  };
}

export function newId(kind: IdKind, now: number = Date.now()): string {
  return `${ID_PREFIX[kind]}_${nextBody(now)}`;
}
