// Finds the SVG in what a chat model wrote: prose before and after, code fences with any
// language tag (or none), an SVG inside a JSON string, several drafts in one answer. Reasoning
// has already been separated out by the engine, so nothing here can come from it.
//
// Which candidate wins: the last complete `<svg …>…</svg>` in the answer (a model that revises
// itself writes its final version last); with none complete, the last one started (an answer
// cut short). An SVG inside a JSON string is decoded first.
//
// Where a document ends. `<svg>` and `</svg>` are matched like brackets, so an `<svg>` nested
// in a document (a legitimate element) stays inside it. A document that never closes, though,
// may be a draft the model abandoned ("Sorry, let me rewrite that") before starting again. A
// new `<svg` starts a document of its own, ending the earlier one there, when:
//  - it stands inside a tag of the earlier document (an attribute value, or a start tag never
//    finished with `>`): markup cannot go there, so the earlier document was cut. This holds
//    even when a stray `</svg>` later would have closed the earlier one;
//  - or the earlier document never closes, and the new `<svg` carries an `xmlns` attribute
//    (the root of a document, which a nested `<svg>` rarely repeats), or a code fence (```),
//    an XML declaration or a DOCTYPE stands between the two (prose and markdown, not markup).
// A truncated document that holds a complete nested `<svg x=…>` without any of these keeps it
// as its own content.
//
// Every scan is one pass over the text: searches resume where the previous one stopped.

/** One SVG found in an answer: its markup as written, and whether it is complete. */
export interface SvgCandidate {
  markup: string;
  /** False when the text ends before the root element closes (a truncated answer). */
  complete: boolean;
}

/** A candidate before its markup is cut out of its source (only the winner's ever is). */
interface Span {
  source: string;
  start: number;
  end: number;
  complete: boolean;
  /**
   * Where it stands in the answer: for a decoded JSON string's candidates, the string's quote
   * plus their place in the decoded text (which is never longer than the string).
   */
  at: number;
}

/** Every SVG in the text, in order of appearance. */
export function svgCandidates(text: string): SvgCandidate[] {
  return spans(text).map(markupOf);
}

/** The candidate a model meant as its answer, or undefined when it wrote no SVG at all. */
export function extractSvg(text: string): SvgCandidate | undefined {
  const all = spans(text);
  let winner: Span | undefined;
  for (const span of all) if (span.complete) winner = span;
  winner ??= all.at(-1);
  return winner && markupOf(winner);
}

function markupOf(span: Span): SvgCandidate {
  const markup = span.source.slice(span.start, span.end);
  // A document cut short may be followed by a closing fence and prose: drop them.
  return { markup: span.complete ? markup : cutProse(markup), complete: span.complete };
}

function cutProse(tail: string): string {
  const fence = tail.indexOf('```');
  return fence >= 0 ? tail.slice(0, fence) : tail;
}

/** The candidates of the raw text and of its JSON strings, in order of appearance. */
function spans(text: string): Span[] {
  const { decoded, covered } = jsonStringSpans(text);
  // Raw candidates found inside a JSON string are that string's escaped form: its decoded
  // candidates stand for them. Both lists are in order, so one merge pass drops and interleaves.
  const merged: Span[] = [];
  let range = 0;
  let next = 0;
  for (const span of documentSpans(text, 0)) {
    while (range < covered.length && covered[range]![1] <= span.at) range++;
    if (range < covered.length && covered[range]![0] <= span.at) continue;
    while (next < decoded.length && decoded[next]!.at < span.at) merged.push(decoded[next++]!);
    merged.push(span);
  }
  while (next < decoded.length) merged.push(decoded[next++]!);
  return merged;
}

/**
 * SVGs inside JSON strings: a quote directly before `<svg`, escaped quotes inside. Each string
 * is read once: the search resumes after it.
 */
function jsonStringSpans(text: string): { decoded: Span[]; covered: [number, number][] } {
  const decoded: Span[] = [];
  const covered: [number, number][] = [];
  const quoted = /"\s*<svg[\s>/\\]/gi;
  for (let match = quoted.exec(text); match; match = quoted.exec(text)) {
    const at = match.index;
    const literal = jsonStringAt(text, at);
    if (!literal) continue;
    quoted.lastIndex = at + literal.text.length;
    const value = decodeJsonString(literal.text, literal.closed);
    // Prose may quote raw SVG ("<svg xmlns="…">…"): that is no JSON string unless it holds
    // escapes or the whole document.
    if (value === undefined || !(literal.text.includes('\\') || value.includes('</svg>'))) continue;
    for (const span of documentSpans(value, at)) decoded.push(span);
    covered.push([at, at + literal.text.length]);
  }
  return { decoded, covered };
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

/** One `<svg` start tag met by the scan. */
interface Opening {
  at: number;
  /** Just past its matching `</svg>` (or its own `/>`), or -1 when it never closes. */
  end: number;
  /** Whether it may start a document of its own (see the rules at the top). */
  restart: boolean;
}

/**
 * The top-level documents of a text, in order: a matched opening spans to its `</svg>`; an
 * unmatched one is a document cut short, which ends where the next opening that may restart
 * begins (or at the end of the text).
 */
function documentSpans(source: string, at: number): Span[] {
  const openings = scanOpenings(source);
  const found: Span[] = [];
  for (let k = 0; k < openings.length; ) {
    const opening = openings[k]!;
    if (opening.end >= 0) {
      found.push({ source, start: opening.at, end: opening.end, complete: true, at: at + opening.at });
      while (k < openings.length && openings[k]!.at < opening.end) k++;
      continue;
    }
    let next = k + 1;
    while (next < openings.length && !openings[next]!.restart) next++;
    const end = next < openings.length ? openings[next]!.at : source.length;
    found.push({ source, start: opening.at, end, complete: false, at: at + opening.at });
    k = next;
  }
  return found;
}

const OPEN = /<svg[\s>/]/gi;
const XMLNS = /[\s"']xmlns\s*=/;
/** Text that belongs to prose or a new file, never to the inside of a document. */
const OUTSIDE_MARKUP = /```|<\?xml[\s?]|<!DOCTYPE/gi;

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const isLetter = (code: number) => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d || code === 0x0c;

/**
 * Every `<svg` opening inside documents (prose between documents is skipped), with its
 * matching close and whether it may restart. One pass: the tags of a document are read with
 * their quoted values, so that a `<svg` inside a value or an unfinished tag is seen as such.
 * Character codes rather than regular expressions per tag: this runs once per element.
 */
function scanOpenings(text: string): Opening[] {
  const openings: Opening[] = [];
  const open: Opening[] = []; // the stack of openings not closed yet
  const nextOpening = resumableSearch(text, OPEN);
  const lastOutside = lastMatchBefore(text, OUTSIDE_MARKUP);

  /**
   * Reads the start tag of the opening at `at`, and of every opening found inside it (a `<svg`
   * inside a tag is a restart); returns where the scan goes on.
   */
  const startSvg = (at: number, insideTag: boolean): number => {
    for (;;) {
      const earlier = open[0];
      const opening: Opening = { at, end: -1, restart: insideTag };
      // Inside a tag, the documents open so far were all cut: none can close any more.
      if (insideTag) open.length = 0;
      else if (earlier && lastOutside(at) > earlier.at) opening.restart = true;
      openings.push(opening);
      const tag = readTag(text, at + 4, nextOpening);
      if (tag.interrupted === 'svg') {
        at = tag.end;
        insideTag = true;
        continue;
      }
      if (earlier && XMLNS.test(text.slice(at + 4, tag.end))) opening.restart = true;
      // A start tag cut by another `<` still opens its element, as an HTML parser reads it.
      if (tag.selfClosed) opening.end = tag.end;
      else open.push(opening);
      return tag.end;
    }
  };

  for (let i = nextOpening(0); i >= 0 && i < text.length; ) {
    if (open.length === 0) {
      // Between documents: prose, skipped up to the next opening.
      const next = nextOpening(i);
      if (next < 0) break;
      i = startSvg(next, false);
      continue;
    }
    const lt = text.indexOf('<', i);
    if (lt < 0) break;
    const after = text.charCodeAt(lt + 1);
    if (after === BANG || after === QUESTION) {
      i = skipDeclaration(text, lt);
    } else if (after === SLASH) {
      const close = svgEndTag(text, lt);
      if (close >= 0) {
        open.pop()!.end = close;
        i = close;
      } else {
        i = isLetter(text.charCodeAt(lt + 2)) ? readTag(text, lt + 2, nextOpening).end : lt + 1;
      }
    } else if (!isLetter(after)) {
      i = lt + 1; // a `<` in text (a stray comparison): not markup
    } else if (nextOpening(lt) === lt) {
      i = startSvg(lt, false);
    } else {
      const tag = readTag(text, lt + 1, nextOpening);
      i = tag.interrupted === 'svg' ? startSvg(tag.end, true) : tag.end;
    }
  }
  return openings;
}

/** Just past a comment, CDATA section, declaration or processing instruction at `lt`. */
function skipDeclaration(text: string, lt: number): number {
  const end = text.startsWith('<!--', lt) ? '-->' : text.startsWith('<![CDATA[', lt) ? ']]>' : '>';
  const close = text.indexOf(end, lt + 2);
  return close < 0 ? text.length : close + end.length;
}

/** Just past the `</svg>` at `lt`, or -1 when the end tag there is another one. */
function svgEndTag(text: string, lt: number): number {
  if ((text.charCodeAt(lt + 2) | 0x20) !== 0x73 || (text.charCodeAt(lt + 3) | 0x20) !== 0x76 || (text.charCodeAt(lt + 4) | 0x20) !== 0x67) return -1;
  let i = lt + 5;
  while (isSpace(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === GT ? i + 1 : -1;
}

interface Tag {
  /** Just past its `>`, or where the scan goes on when it was interrupted. */
  end: number;
  selfClosed: boolean;
  /** A `<svg` inside it (`end` is then that opening), or another `<` or the end of the text. */
  interrupted?: 'svg' | 'other';
}

/** A start or end tag, read from inside its name. */
function readTag(text: string, from: number, nextOpening: (at: number) => number): Tag {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === GT) return { end: i + 1, selfClosed: text.charCodeAt(i - 1) === SLASH };
    if (code === LT) return { end: i, selfClosed: false, interrupted: nextOpening(i) === i ? 'svg' : 'other' };
    if (code !== DOUBLE_QUOTE && code !== SINGLE_QUOTE) continue;
    // A quoted value holds no markup: a `<svg` before its closing quote means the document
    // was cut inside the value.
    const close = text.indexOf(code === DOUBLE_QUOTE ? '"' : "'", i + 1);
    const opening = nextOpening(i + 1);
    if (opening >= 0 && (close < 0 || opening < close)) return { end: opening, selfClosed: false, interrupted: 'svg' };
    if (close < 0) break;
    i = close;
  }
  return { end: text.length, selfClosed: false, interrupted: 'other' };
}

/**
 * `search(at)`: the index of the first match at or after `at`, or -1. Positions asked for only
 * grow, so the regex runs again only once its last match is passed: one pass in all.
 */
function resumableSearch(text: string, pattern: RegExp): (at: number) => number {
  let found = -2;
  let from = -1;
  return (at: number) => {
    if (found === -1 && at >= from) return -1;
    if (found >= at && at >= from) return found;
    pattern.lastIndex = at;
    found = pattern.exec(text)?.index ?? -1;
    from = at;
    return found;
  };
}

/** `before(at)`: where the last match starting before `at` starts, or -1; `at` only grows. */
function lastMatchBefore(text: string, pattern: RegExp): (at: number) => number {
  let last = -1;
  let next = -2;
  return (at: number) => {
    for (;;) {
      if (next === -2) {
        pattern.lastIndex = last + 1;
        next = pattern.exec(text)?.index ?? -1;
      }
      if (next < 0 || next >= at) return last;
      last = next;
      next = -2;
    }
  };
}
