/**
 * A custom tool reaches a Chat Completions server as a function taking one string, `input`
 * (Chat Completions has no free-form tools). The model writes `{"input":"…"}` a few characters
 * at a time; this streams the decoded string as it arrives, so custom-input deltas flow like
 * function arguments do. Escapes split across chunks wait for their end; a trailing high
 * surrogate waits for its pair. Each character is read once (linear in the arguments).
 *
 * Arguments that do not start as `{"input":"` are not streamed: at the end they are read as
 * JSON (`{"input": …}` or a JSON string) or, failing that, taken as the input text itself.
 */
const OPENING = /^\s*\{\s*"input"\s*:\s*"/;
/** Text that could still grow into OPENING. */
const OPENING_PREFIX = /^\s*(?:\{\s*(?:"(?:i(?:n(?:p(?:u(?:t(?:"\s*(?::\s*)?)?)?)?)?)?)?)?)?$/;
/** Past this many characters without the opening, the arguments are not streamed. */
const UNDECIDED_MAX = 256;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

export class CustomInputReader {
  private raw = '';
  /** Where the reading stands in `raw`; -1 while the opening is undecided, -2 when not streaming. */
  private cursor = -1;
  private decoded = '';
  private emitted = 0;
  private closed = false;

  /** Adds a piece of the arguments; returns the input text it completes (possibly empty). */
  push(piece: string): string {
    this.raw += piece;
    if (this.cursor === -1) {
      const opening = OPENING.exec(this.raw);
      if (opening) this.cursor = opening[0].length;
      else if (this.raw.length > UNDECIDED_MAX || !OPENING_PREFIX.test(this.raw)) this.cursor = -2;
    }
    if (this.cursor >= 0 && !this.closed) this.scan();
    return this.take(false);
  }

  /** The whole input and the part of it not yet returned by push(). */
  finish(): { input: string; rest: string } {
    if (this.cursor >= 0) {
      // Streamed: the input is what was read (cut short when the answer was).
      const rest = this.take(true);
      return { input: this.decoded, rest };
    }
    const input = readWhole(this.raw);
    return { input, rest: input };
  }

  private scan(): void {
    const raw = this.raw;
    let at = this.cursor;
    while (at < raw.length) {
      const char = raw[at]!;
      if (char === '"') {
        this.closed = true;
        at++;
        break;
      }
      if (char !== '\\') {
        this.decoded += char;
        at++;
        continue;
      }
      const next = raw[at + 1];
      if (next === undefined) break;
      if (next === 'u') {
        const hex = raw.slice(at + 2, at + 6);
        if (hex.length < 4) break;
        const code = /^[0-9a-fA-F]{4}$/.test(hex) ? Number.parseInt(hex, 16) : 0xfffd;
        this.decoded += String.fromCharCode(code);
        at += 6;
        continue;
      }
      this.decoded += ESCAPES[next] ?? next;
      at += 2;
    }
    this.cursor = at;
  }

  private take(all: boolean): string {
    let end = this.decoded.length;
    if (!all && !this.closed && end > this.emitted) {
      const last = this.decoded.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff) end--; // wait for the low surrogate
    }
    const out = this.decoded.slice(this.emitted, end);
    this.emitted = end;
    return out;
  }
}

function readWhole(raw: string): string {
  try {
    const value = JSON.parse(raw) as unknown;
    if (typeof value === 'string') return value;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const input = (value as { input?: unknown }).input;
      if (typeof input === 'string') return input;
    }
  } catch {
    // not JSON: the model wrote the input itself
  }
  return raw;
}
