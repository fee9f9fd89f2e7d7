import { ApiError } from '../contract/errors.ts';

export interface DecodedBase64 {
  bytes: Buffer;
  /** Media type declared by a `data:` URL prefix, if there was one (never trusted for sniffing). */
  declaredType?: string;
}

/** Longest `data:…;base64,` prefix read; real ones are a few dozen characters. */
export const DATA_URL_PREFIX_MAX_LENGTH = 1024;

const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)?((?:;[a-z0-9-]+=[^;,]*)*);base64,$/i;

/** Alphabet (standard or URL-safe) and whitespace, then at most two padding characters. */
const SHAPE = /^[A-Za-z0-9+/_\-\t\n\r ]*(?:=[\t\n\r ]*){0,2}$/;
const WHITESPACE = /[\t\n\r ]/;

/**
 * Characters that are not whitespace, in a string SHAPE accepted. One pass with no allocation:
 * replace() of whitespace costs a match per run, seconds for a 16 MiB `a a a …`.
 */
function significantLength(text: string): number {
  if (!WHITESPACE.test(text)) return text.length;
  let whitespace = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) <= 0x20) whitespace++;
  }
  return text.length - whitespace;
}

/**
 * Decodes a base64 input strictly: standard or URL-safe alphabet, padding optional, line breaks
 * and spaces ignored, and an optional `data:<type>;base64,` prefix. Anything else is a 400 that
 * names the field, rather than the silent garbage a lenient decoder would return.
 */
export function decodeBase64Input(value: string, param: string): DecodedBase64 {
  let start = 0;
  let declaredType: string | undefined;
  if (/^data:/i.test(value)) {
    // The prefix ends at the first comma; looking for it in a bounded slice keeps this O(1).
    const comma = value.slice(0, DATA_URL_PREFIX_MAX_LENGTH).indexOf(',');
    const match = comma === -1 ? null : DATA_URL.exec(value.slice(0, comma + 1));
    if (!match) {
      throw new ApiError('invalid_request', { param, message: `Invalid value for '${param}': a data: URL must be base64-encoded (data:<type>;base64,…).` });
    }
    declaredType = match[1]?.toLowerCase();
    start = comma + 1;
  }
  const payload = start === 0 ? value : value.slice(start);
  const length = SHAPE.test(payload) ? significantLength(payload) : 0;
  // Padding, when present, must complete the last 4-character group: Buffer.from would otherwise
  // silently decode 'aGVs==' or drop the last character of 'aGVsb='.
  const padded = length > 0 && payload.trimEnd().endsWith('=');
  if (length === 0 || length % 4 === 1 || (padded && length % 4 !== 0)) {
    throw new ApiError('invalid_request', { param, message: `Invalid value for '${param}': not valid base64.` });
  }
  // Node's decoder skips the whitespace SHAPE allowed and reads both alphabets.
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length === 0) {
    throw new ApiError('invalid_request', { param, message: `Invalid value for '${param}': the decoded data is empty.` });
  }
  return declaredType === undefined ? { bytes } : { bytes, declaredType };
}
