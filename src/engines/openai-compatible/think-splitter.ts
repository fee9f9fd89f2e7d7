/**
 * Separates reasoning a server leaves inline in the content (`<think>…</think>`, as llama.cpp
 * does with `--reasoning-format none`) from the answer. Tags may be split across chunks: a tail
 * that could be the start of a tag is held back until the next chunk tells.
 */
export class ThinkSplitter {
  private inThink = false;
  private held = '';

  /** The answer and reasoning text in this chunk. */
  push(chunk: string): { content: string; reasoning: string } {
    let text = this.held + chunk;
    this.held = '';
    let content = '';
    let reasoning = '';
    for (;;) {
      const tag = this.inThink ? '</think>' : '<think>';
      const at = indexOfIgnoringCase(text, tag);
      if (at >= 0) {
        if (this.inThink) reasoning += text.slice(0, at);
        else content += text.slice(0, at);
        text = text.slice(at + tag.length);
        this.inThink = !this.inThink;
        continue;
      }
      const keep = partialTagLength(text, tag);
      const settled = text.slice(0, text.length - keep);
      this.held = text.slice(text.length - keep);
      if (this.inThink) reasoning += settled;
      else content += settled;
      return { content, reasoning };
    }
  }

  /** What is left at the end of the stream (a held partial tag is plain text after all). */
  flush(): { content: string; reasoning: string } {
    const rest = this.held;
    this.held = '';
    return this.inThink ? { content: '', reasoning: rest } : { content: rest, reasoning: '' };
  }
}

/**
 * The tags, case-insensitively. Without the `u` flag, `i` never folds a non-ASCII character
 * into an ASCII one, so `<ſ>`-like look-alikes do not match.
 */
const TAG_PATTERNS: Record<string, RegExp> = { '<think>': /<think>/i, '</think>': /<\/think>/i };

function indexOfIgnoringCase(text: string, tag: string): number {
  return text.search(TAG_PATTERNS[tag]!);
}

/** Length of the longest tail of `text` that is a proper prefix of `tag`. */
function partialTagLength(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (text.slice(text.length - length).toLowerCase() === tag.slice(0, length)) return length;
  }
  return 0;
}
