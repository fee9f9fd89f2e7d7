import { ApiError } from '../contract/errors.ts';

export interface DecodedBase64 {
  bytes: Buffer;
  /** Media type declared by a `data:` URL prefix, if there was one (never trusted for sniffing). */
  declaredType?: string;
}

const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)?((?:;[a-z0-9-]+=[^;,]*)*);base64,/i;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * Decodes a base64 input strictly: standard or URL-safe alphabet, padding optional, line breaks
 * and spaces ignored, and an optional `data:<type>;base64,` prefix. Anything else is a 400 that
 * names the field, rather than the silent garbage a lenient decoder would return.
 */
export function decodeBase64Input(value: string, param: string): DecodedBase64 {
  let payload = value;
  let declaredType: string | undefined;
  if (/^data:/i.test(value)) {
    const match = DATA_URL.exec(value);
    if (!match) {
      throw new ApiError('invalid_request', { param, message: `Invalid value for '${param}': a data: URL must be base64-encoded (data:<type>;base64,…).` });
    }
    declaredType = match[1]?.toLowerCase();
    payload = value.slice(match[0].length);
  }
  payload = payload.replace(/[\t\n\r ]+/g, '');
  // Padding, when present, must complete the last 4-character group: Buffer.from would otherwise
  // silently decode 'aGVs==' or drop the last character of 'aGVsb='.
  const padded = payload.endsWith('=');
  if (payload.length === 0 || payload.length % 4 === 1 || (padded && payload.length % 4 !== 0) || !BASE64.test(payload)) {
    throw new ApiError('invalid_request', { param, message: `Invalid value for '${param}': not valid base64.` });
  }
  const bytes = Buffer.from(payload, payload.includes('-') || payload.includes('_') ? 'base64url' : 'base64');
  if (bytes.length === 0) {
    throw new ApiError('invalid_request', { param, message: `Invalid value for '${param}': the decoded data is empty.` });
  }
  return declaredType === undefined ? { bytes } : { bytes, declaredType };
}
