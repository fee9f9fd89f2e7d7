import { pino } from 'pino';

// Logs never hold an API key, wherever a caller put one (query, path, a malformed Authorization
// header, text echoed into an error message). Every log line passes through redactKeys; request
// URLs are additionally logged without their query string.

export const REDACTED = '[redacted]';

/**
 * Anything shaped like a key: its prefix, then word characters. `%5F` is an encoded underscore,
 * `%XX` any encoded byte. No nested or overlapping quantifiers, so the scan is linear.
 */
const KEY_SHAPE = /sk(?:_|%5f)(?:test|live|admin)(?:_|%5f)(?:\w|%[0-9a-f]{2})+/gi;
const ENCODED_BYTE = /%([0-9a-f]{2})/gi;

export function redactKeys(text: string): string {
  return text.replace(KEY_SHAPE, REDACTED);
}

/**
 * A request URL as logged: the query string (where keys and other secrets travel) is dropped, and
 * a path whose percent-decoded form carries a key is logged decoded, with the key redacted.
 */
export function loggableUrl(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const decoded = path.includes('%') ? path.replace(ENCODED_BYTE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : path;
  const redacted = redactKeys(decoded);
  return (redacted === decoded ? redactKeys(path) : redacted) + (query === -1 ? '' : `?${REDACTED}`);
}

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: { host?: string };
  socket?: { remoteAddress?: string; remotePort?: number };
}

export const logSerializers = {
  /** A Fastify request (or a raw one) as logged: no query string, no header values. */
  req: (request: LoggedRequest) => ({
    method: request.method,
    url: request.url === undefined ? undefined : loggableUrl(request.url),
    host: request.host ?? request.headers?.host,
    remoteAddress: request.ip ?? request.socket?.remoteAddress,
    remotePort: request.socket?.remotePort,
  }),
  /** Node's HTTP parse errors carry the raw request bytes (`rawPacket`), Authorization header included. */
  err: (error: Error) => {
    const serialized: unknown = pino.stdSerializers.err(error);
    if (typeof serialized !== 'object' || serialized === null) return serialized;
    const { rawPacket: _dropped, ...rest } = serialized as Record<string, unknown>;
    return rest;
  },
};
