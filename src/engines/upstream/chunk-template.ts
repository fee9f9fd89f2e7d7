/**
 * Where a parsed chunk keeps its streamed text: `holder[key]` is a string (a delta's `content`,
 * say). A reader that names it lets its stream's chunks be read from a template.
 */
export interface TextSlot {
  holder: Record<string, unknown>;
  key: string;
}

/**
 * The literal put in place of a template's text to check where that text lands once parsed. It
 * starts with a NUL, which no server sends in a model's text.
 */
const PROBE_LITERAL = '"\\u0000inkwell chunk template"';
const PROBE_VALUE = '\u0000inkwell chunk template';

/**
 * Chunks longer than this are parsed whole and never learned from: a model server's token chunk
 * is a few hundred characters, and learning costs a second parse of the chunk (the probe), which
 * for an answer sent in one event of megabytes would double the event loop's time on it.
 */
const MOST_CHARS_LEARNED = 8192;

/** A template that read no chunk doubles the chunks parsed whole before the next is learned, up to this. */
const MOST_CHUNKS_BEFORE_LEARNING = 64;

/** Where a literal may stand for one key: `"key"`, a colon, its opening quote (whitespace allowed). */
const literalStarts = new Map<string, RegExp>();

/**
 * Parses one stream's chunks, most without `JSON.parse`. A model server writes every chunk of a
 * stream alike but for the few characters of text it carries (the same id, model and fields, in
 * the same order), so once one chunk is parsed, the next that is the same text around a different
 * string in the same place is that chunk with the string replaced. The parsed chunk is then the
 * template's own object with its slot set to the new text: the same value `JSON.parse` would
 * give, not a copy of it, so the reader must not keep the chunks it reads.
 *
 * Exact by construction: a template is learned only after a probe (the chunk's text with its
 * slot's literal replaced) parses to the same place, and a chunk is read from it only when
 * everything around that literal is the same characters and what stands in its place is one
 * whole JSON value (a text, as a rule), which then lands where the probe did. Anything else is
 * parsed whole, as before. A server whose chunks differ elsewhere
 * (a timestamp that ticks, a random padding field) costs one extra parse now and then: a
 * template that read nothing waits twice as long before the next.
 */
export class ChunkTemplate {
  private prefix = '';
  private suffix = '';
  private parsed?: unknown;
  private slot?: TextSlot;
  /** Chunks the current template read, and all templates of this stream. */
  private hits = 0;
  private read = 0;
  /** Chunks to parse whole before learning a template again, and that wait after the next one reads none. */
  private wait = 0;
  private nextWait = 1;

  constructor(private readonly slotOf: (chunk: unknown) => TextSlot | undefined) {}

  /** The chunk, parsed: from the template when it fits, else by `JSON.parse` (which throws as it does). */
  parse(data: string): unknown {
    const slot = this.slot;
    if (slot !== undefined) {
      const value = this.valueIn(data);
      if (value !== undefined) {
        slot.holder[slot.key] = value;
        this.hits++;
        this.read++;
        return this.parsed;
      }
      this.forget();
    }
    const chunk = JSON.parse(data) as unknown;
    if (this.wait > 0) this.wait--;
    else if (data.length <= MOST_CHARS_LEARNED) this.learn(data, chunk);
    return chunk;
  }

  /**
   * The chunk last parsed has been read: its text is let go. The template is old by the time a
   * model's next token comes, and an old object keeps what it points to through every scavenge,
   * so a token left in its slot until the next would be promoted, for every stream open.
   */
  letGo(): void {
    if (this.slot !== undefined) this.slot.holder[this.slot.key] = '';
  }

  /** How the template did so far (for tests and benchmarks). */
  get readFromTemplate(): number {
    return this.read;
  }

  /** The value in the template's place (JSON.parse never gives undefined), if the chunk is the template around it. */
  private valueIn(data: string): unknown {
    const end = data.length - this.suffix.length;
    // Compared as slices: `startsWith` on the parser's sliced strings costs several times more.
    if (end - this.prefix.length < 2 || data.slice(0, this.prefix.length) !== this.prefix || data.slice(end) !== this.suffix) return undefined;
    const literal = data.slice(this.prefix.length, end);
    // JSON.parse rather than a slice, even of text with nothing to unescape: a slice of 13 or more
    // characters would keep the whole read it came from alive as long as the answer keeps the text,
    // and JSON.parse shares short strings (a model's tokens) as one copy.
    try {
      return JSON.parse(literal) as unknown;
    } catch {
      return undefined;
    }
  }

  private forget(): void {
    this.slot = this.parsed = undefined;
    this.prefix = this.suffix = '';
    if (this.hits > 0) {
      this.nextWait = 1;
      this.wait = 0;
    } else {
      this.wait = this.nextWait;
      this.nextWait = Math.min(this.nextWait * 2, MOST_CHUNKS_BEFORE_LEARNING);
    }
    this.hits = 0;
  }

  private learn(data: string, chunk: unknown): void {
    const slot = this.slotOf(chunk);
    if (slot === undefined || slot.holder[slot.key] === PROBE_VALUE) return;
    let pattern = literalStarts.get(slot.key);
    if (pattern === undefined) literalStarts.set(slot.key, (pattern = new RegExp(`"${slot.key}"\\s*:\\s*"`, 'g')));
    pattern.lastIndex = 0;
    // The key may appear more than once (another object's field of that name): the probe tells which.
    for (let tries = 0; tries < 3; tries++) {
      const found = pattern.exec(data);
      if (found === null) return;
      const start = found.index + found[0].length - 1;
      const end = closingQuote(data, start);
      if (end < 0) return;
      const prefix = data.slice(0, start);
      const suffix = data.slice(end + 1);
      let probe: unknown;
      try {
        probe = JSON.parse(prefix + PROBE_LITERAL + suffix);
      } catch {
        continue;
      }
      const probed = this.slotOf(probe);
      if (probed !== undefined && probed.key === slot.key && probed.holder[probed.key] === PROBE_VALUE) {
        this.prefix = ownCopy(prefix);
        this.suffix = ownCopy(suffix);
        this.parsed = probe;
        this.slot = probed;
        return;
      }
    }
  }
}

/**
 * The text as a string of its own. A slice is a view that keeps the string it was cut from alive,
 * and a template lives as long as its stream: kept as slices, its two parts would keep the whole
 * socket read they came in (up to 64 KB of events) for that long. Joining flattens the text into
 * a new string, and the slice of that keeps only it.
 */
function ownCopy(text: string): string {
  return ` ${text}`.slice(1);
}

/** The index of the quote that closes the string opened at `open`, or -1. */
function closingQuote(data: string, open: number): number {
  for (let at = data.indexOf('"', open + 1); at >= 0; at = data.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (data.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}
