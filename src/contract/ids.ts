import { randomBytes } from 'node:crypto';

/**
 * Every identifier Inkwell mints carries a prefix naming what it identifies, followed by a
 * 26-character ULID-style body: 48 bits of millisecond time then 80 random bits, in Crockford
 * base32, so identifiers sort by creation time.
 */
export const ID_PREFIX = {
  request: 'req',
  svgResponse: 'svg',
  svgOutput: 'out',
  response: 'resp',
  responseItem: 'item',
  organization: 'org',
  apiKey: 'key',
  ledgerEntry: 'led',
  reservation: 'rsv',
  instance: 'ins',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

function encodeRandom(): string {
  const bytes = randomBytes(16);
  let out = '';
  for (let i = 0; i < 16; i++) out += ALPHABET[bytes[i]! & 31];
  return out;
}

export function newId(kind: IdKind, now: number = Date.now()): string {
  return `${ID_PREFIX[kind]}_${encodeTime(now)}${encodeRandom()}`;
}
