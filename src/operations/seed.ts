import { createHash } from 'node:crypto';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/**
 * A seed that depends only on the key and the request body (not on `stream`), so the sandbox
 * answers the same body with the same documents, streamed or not, across restarts.
 */
export function requestSeed(keyId: string, body: object): string {
  const { stream: _stream, ...rest } = body as Record<string, unknown>;
  return createHash('sha256').update(keyId).update('\0').update(JSON.stringify(canonical(rest))).digest('hex');
}
