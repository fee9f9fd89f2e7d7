/**
 * Finds the SVG in what a chat model wrote: prose before and after, code fences with any
 * language tag (or none), an SVG inside a JSON string, several drafts in one answer. Reasoning
 * has already been separated out by the engine, so nothing here can come from it.
 *
 * Which candidate wins: the last complete `<svg …>…</svg>` in the answer (a model that revises
 * itself writes its final version last); with none complete, the last one started (an answer
 * cut short). An SVG inside a JSON string is decoded first.
 */
export interface SvgCandidate {
  markup: string;
  /** False when the text ends before the root element closes (a truncated answer). */
  complete: boolean;
}

const OPEN = /<svg[\s>/]/gi;

/** Every SVG in the text, in order of appearance. Linear: one pass over the text per kind of scan. */
export function svgCandidates(text: string): SvgCandidate[] {
  const candidates: { at: number; candidate: SvgCandidate }[] = [];
  const covered: [number, number][] = [];
  // SVGs inside JSON strings: a quote directly before `<svg`, escaped quotes inside. Each
  // string is read once: the search resumes after it.
  const quoted = /"\s*<svg[\s>/\\]/gi;
  for (let match = quoted.exec(text); match; match = quoted.exec(text)) {
    const at = match.index;
    const literal = jsonStringAt(text, at);
    if (!literal) continue;
    quoted.lastIndex = at + literal.text.length;
    const decoded = decodeJsonString(literal.text, literal.closed);
    // Prose may quote raw SVG ("<svg xmlns="…">…"): that is no JSON string unless it holds
    // escapes or the whole document.
    if (decoded === undefined || !(literal.text.includes('\\') || decoded.includes('</svg>'))) continue;
    for (const inner of rawCandidates(decoded)) candidates.push({ at, candidate: inner.candidate });
    covered.push([at, at + literal.text.length]);
  }
  for (const found of rawCandidates(text)) {
    if (covered.some(([start, end]) => found.at >= start && found.at < end)) continue;
    candidates.push(found);
  }
  return candidates.sort((a, b) => a.at - b.at).map((c) => c.candidate);
}

/** The candidate a model meant as its answer, or undefined when it wrote no SVG at all. */
export function extractSvg(text: string): SvgCandidate | undefined {
  const candidates = svgCandidates(text);
  return candidates.filter((c) => c.complete).at(-1) ?? candidates.at(-1);
}

/** Top-level `<svg …>…</svg>` spans of plain text (nested <svg> elements stay inside their parent). */
function rawCandidates(text: string): { at: number; candidate: SvgCandidate }[] {
  const found: { at: number; candidate: SvgCandidate }[] = [];
  let from = 0;
  for (;;) {
    OPEN.lastIndex = from;
    const start = OPEN.exec(text);
    if (!start) return found;
    const end = closingOf(text, start.index);
    if (end < 0) {
      found.push({ at: start.index, candidate: { markup: cutProse(text.slice(start.index)), complete: false } });
      return found;
    }
    found.push({ at: start.index, candidate: { markup: text.slice(start.index, end), complete: true } });
    from = end;
  }
}

/** The index just past the `</svg>` that closes the <svg> opening at `start`, or -1. */
function closingOf(text: string, start: number): number {
  const tags = /<svg[\s>/]|<\/svg\s*>/gi;
  tags.lastIndex = start;
  let depth = 0;
  let close = -2; // the next '>', searched again only once passed
  for (let tag = tags.exec(text); tag; tag = tags.exec(text)) {
    if (tag[0][1] === '/') {
      depth--;
      if (depth === 0) return tag.index + tag[0].length;
    } else {
      // `<svg … />` opens and closes at once.
      if (close !== -1 && close < tag.index) close = text.indexOf('>', tag.index);
      if (close > 0 && text[close - 1] === '/') {
        if (depth === 0) return close + 1;
        continue;
      }
      depth++;
    }
  }
  return -1;
}

/** A truncated SVG at the end of an answer may be followed by a closing fence: drop it. */
function cutProse(tail: string): string {
  const fence = tail.indexOf('```');
  return fence >= 0 ? tail.slice(0, fence) : tail;
}

/** The JSON string literal whose opening quote is at `at` (possibly unterminated). */
function jsonStringAt(text: string, at: number): { text: string; closed: boolean } | undefined {
  if (text[at] !== '"') return undefined;
  for (let i = at + 1; i < text.length; i++) {
    const char = text[i];
    if (char === '\\') {
      i++;
      continue;
    }
    if (char === '"') return { text: text.slice(at, i + 1), closed: true };
    if (char === '\n') return undefined; // a raw newline: not a JSON string, an attribute's quote
  }
  return { text: text.slice(at), closed: false };
}

function decodeJsonString(literal: string, closed: boolean): string | undefined {
  let source = literal;
  if (!closed) {
    // Cut short: drop a dangling escape, then close the string.
    source = source.replace(/\\u[0-9a-fA-F]{0,3}$|\\$/, '') + '"';
  }
  try {
    const value: unknown = JSON.parse(source);
    return typeof value === 'string' && /<svg[\s>/]/i.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
