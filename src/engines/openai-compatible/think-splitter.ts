/**
 * Separates reasoning a server leaves inline in the content from the answer: llama.cpp with
 * `--reasoning-format none` leaves `<think>…</think>`, and models are prompted or trained to
 * wrap it in `<thinking>`, `<reasoning>` or `<reflection>` too. Each block is closed by its own
 * end tag (case-insensitive); whatever it holds — an SVG drafted while thinking included — is
 * reasoning, never the answer.
 *
 * Tags may be split across chunks: a tail that could be the start of a tag is held back until
 * the next chunk tells. The work per chunk is proportional to the chunk (plus the few held
 * characters): every search resumes where the last one stopped, and nothing is sliced off the
 * front of the text as tags are found.
 */
export class ThinkSplitter {
  /** The name of the reasoning block being read (`think`, …), or undefined in the answer. */
  private block: string | undefined;
  private held = '';

  /** The answer and reasoning text in this chunk. */
  push(chunk: string): { content: string; reasoning: string } {
    // Most chunks hold no `<` at all: none of them can begin or end a block.
    if (this.held === '' && !chunk.includes('<')) return this.block === undefined ? { content: chunk, reasoning: '' } : { content: '', reasoning: chunk };
    const text = this.held + chunk;
    this.held = '';
    let content = '';
    let reasoning = '';
    for (let at = 0; ; ) {
      const tag = this.block === undefined ? OPENING : CLOSING.get(this.block)!;
      tag.lastIndex = at;
      const found = tag.exec(text);
      if (found) {
        if (this.block === undefined) content += text.slice(at, found.index);
        else reasoning += text.slice(at, found.index);
        this.block = this.block === undefined ? found[1]!.toLowerCase() : undefined;
        at = found.index + found[0].length;
        continue;
      }
      const keep = this.partialTagLength(text, at);
      const settled = text.slice(at, text.length - keep);
      this.held = text.slice(text.length - keep);
      if (this.block === undefined) content += settled;
      else reasoning += settled;
      return { content, reasoning };
    }
  }

  /** What is left at the end of the stream (a held partial tag is plain text after all). */
  flush(): { content: string; reasoning: string } {
    const rest = this.held;
    this.held = '';
    return this.block === undefined ? { content: rest, reasoning: '' } : { content: '', reasoning: rest };
  }

  /**
   * Length of the longest tail of `text` (from `from` on) that is a proper prefix of a tag that
   * could come next. Such a tail begins at a `<` (every tag has one, at its start), so only the
   * last `<` among the final characters is looked at.
   */
  private partialTagLength(text: string, from: number): number {
    const tags = this.block === undefined ? OPENING_TAGS : [`</${this.block}>`];
    let lt = text.length - 1;
    const start = Math.max(from, text.length - LONGEST_TAG + 1);
    while (lt >= start && text[lt] !== '<') lt--;
    if (lt < start) return 0;
    // ASCII folding only, as the patterns below do.
    const tail = text.slice(lt).replace(/[A-Z]/g, (c) => c.toLowerCase());
    return tags.some((tag) => tag.length > tail.length && tag.startsWith(tail)) ? tail.length : 0;
  }
}

/** The wrappers models put their reasoning in, each closed by its own end tag. */
const NAMES = ['think', 'thinking', 'reasoning', 'reflection'];
const OPENING_TAGS = NAMES.map((name) => `<${name}>`);
const LONGEST_TAG = Math.max(...NAMES.map((name) => `</${name}>`.length));

/**
 * The tags, case-insensitively. Without the `u` flag, `i` never folds a non-ASCII character
 * into an ASCII one, so `<ſ>`-like look-alikes do not match.
 */
const OPENING = new RegExp(`<(${NAMES.join('|')})>`, 'gi');
const CLOSING = new Map(NAMES.map((name) => [name, new RegExp(`</${name}>`, 'gi')]));
