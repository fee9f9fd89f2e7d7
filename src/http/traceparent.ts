/**
 * The W3C Trace Context `traceparent` header: `version-traceid-parentid-flags` in lowercase hex.
 * Fixed widths, no nested quantifiers: a linear match whatever the caller sends.
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$/;
const ZEROS_32 = '0'.repeat(32);
const ZEROS_16 = '0'.repeat(16);

/**
 * The trace id of a valid `traceparent`, or undefined: an absent or invalid header only means
 * the request is not part of a trace (the specification says to ignore it, never to refuse it).
 */
export function traceIdOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || header.length > 512) return undefined;
  const match = TRACEPARENT.exec(header);
  if (!match) return undefined;
  const [, version, traceId, parentId, rest] = match;
  // Version ff is invalid; version 00 has nothing after the flags (later versions may).
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZEROS_32 || parentId === ZEROS_16) return undefined;
  return traceId;
}
