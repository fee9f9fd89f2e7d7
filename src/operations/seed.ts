import { createHash, type Hash } from 'node:crypto';

/** What JSON.stringify would escape in a string: quotes, backslashes, controls, lone surrogates. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f]|[\ud800-\udfff]/u;

/** Punctuation written as is, as opposed to a value still to serialize. */
class Raw {
  constructor(readonly text: string) {}
}
const OPEN_ARRAY = new Raw('[');
const CLOSE_ARRAY = new Raw(']');
const OPEN_OBJECT = new Raw('{');
const CLOSE_OBJECT = new Raw('}');
const COLON = new Raw(':');
const COMMA = new Raw(',');

/** Pieces are gathered into chunks of about this many characters; each hash.update has a cost. */
const CHUNK = 65_536;

/**
 * Feeds `hash` the JSON text of `root` with object keys sorted, chunk by chunk: a generation body
 * may hold 16 base64 references of 16 MiB, too much to copy into one string. An explicit stack
 * rather than recursion, so no nesting depth can overflow the call stack.
 */
function updateCanonical(hash: Hash, root: unknown): void {
  let chunk = '';
  const write = (text: string) => {
    chunk += text;
    if (chunk.length >= CHUNK) {
      hash.update(chunk);
      chunk = '';
    }
  };
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value instanceof Raw) write(value.text);
    else if (typeof value === 'string') {
      if (value.length < CHUNK || NEEDS_ESCAPE.test(value)) write(JSON.stringify(value));
      else {
        // A long string with nothing to escape goes to the hash as is, without a JSON copy.
        hash.update(chunk).update('"').update(value);
        chunk = '"';
      }
    } else if (Array.isArray(value)) {
      stack.push(CLOSE_ARRAY);
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push(value[i] === undefined ? null : value[i]);
        if (i > 0) stack.push(COMMA);
      }
      stack.push(OPEN_ARRAY);
    } else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
      stack.push(CLOSE_OBJECT);
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push(record[keys[i]!], COLON, keys[i]);
        if (i > 0) stack.push(COMMA);
      }
      stack.push(OPEN_OBJECT);
    } else write(String(JSON.stringify(value)));
  }
  hash.update(chunk);
}

/**
 * A seed that depends only on the key and the request body (not on `stream`), so the sandbox
 * answers the same body with the same documents, streamed or not, across restarts.
 */
export function requestSeed(keyId: string, body: object): string {
  const { stream: _stream, ...rest } = body as Record<string, unknown>;
  const hash = createHash('sha256').update(keyId).update('\0');
  updateCanonical(hash, rest);
  return hash.digest('hex');
}
