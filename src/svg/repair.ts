import { parseFragment } from 'parse5';
import type { DefaultTreeAdapterMap } from 'parse5';
import { ALLOWED_ATTRIBUTES, ALLOWED_ELEMENTS, SMIL_ELEMENTS } from './allowlist.ts';
import { MAX_DEPTH, parseSvg, parseSvgPrefix } from './parse.ts';
import { isElement, walk, type SvgElement, type SvgNode } from './tree.ts';

type ParsedNode = DefaultTreeAdapterMap['childNode'] | DefaultTreeAdapterMap['parentNode'];
type ParsedElement = DefaultTreeAdapterMap['element'];

/**
 * Makes a well-formed SVG tree out of what a model wrote, with a lenient parser (parse5, the
 * HTML5 algorithm browsers use for inline SVG) instead of regular expressions: unclosed and
 * mis-nested tags are closed where a browser would close them, upper-case names get their SVG
 * spelling back (`LINEARGRADIENT` → `linearGradient`, `viewbox` → `viewBox`), unquoted
 * attributes and unescaped `&` are read, HTML named entities (`&nbsp;`, `&copy;`) are decoded,
 * a duplicated attribute keeps its first value, a DOCTYPE is dropped (never followed).
 *
 * An answer cut short (mid-element, mid-attribute, mid-path) keeps what is complete: the last
 * tag is closed where it was cut. Whatever was cut or garbled, no attribute value keeps markup
 * it swallowed: path data and points lists keep their longest valid prefix (what a renderer
 * draws of them), and any other value holding a tag is dropped. A viewBox that is missing or
 * encloses no area (`0 0 0 0`, a zero or negative size, not four numbers) is derived from width
 * and height, else is `fallbackViewBox` (the one the model was asked for).
 *
 * The result still goes through the strict parser and the sanitizer; this only makes it
 * well-formed and meaningful. Undefined when there is no <svg> element at all. Every step is
 * linear in the markup, and none recurses: a hostile answer costs its size, never more.
 */
export function repairSvg(markup: string, options: { truncated: boolean; open?: boolean; fallbackViewBox?: string }): SvgElement | undefined {
  // Most answers are well-formed XML in SVG's own spelling: the strict parser reads them as
  // parse5 would, for a fraction of the cost.
  // An answer cut short is never well-formed: not worth an attempt whose failure costs two
  // Error objects with their stacks. A document still being written (a draft) is read strictly
  // as far as it goes.
  const strict = !options.truncated && (options.open ? !BARE_AMPERSAND.test(markup) : CLOSED_ROOT.test(markup));
  const tree = (strict && strictlyParsed(markup, options.open === true)) || lenientlyParsed(markup, options.truncated);
  if (!tree) return undefined;
  unnestShapes(tree);
  cleanAttributes(tree);
  if (!usableViewBox(tree.attributes.get('viewBox'))) {
    const derived = viewBoxFromSize(tree) ?? options.fallbackViewBox;
    // A viewBox with no area disables rendering: better none than that one.
    if (derived) tree.attributes.set('viewBox', derived);
    else tree.attributes.delete('viewBox');
  }
  return tree;
}

const CLOSED_ROOT = /<\/svg\s*>\s*$/;
/**
 * An `&` that begins no complete reference. The strict parser reads it as the start of an
 * entity name that ends only at the next `;`: in a document still being written, with no error
 * until the end, everything after it would silently go missing from the draft.
 */
const BARE_AMPERSAND = /&(?!(?:#\d+|#x[\da-fA-F]+|[A-Za-z_][\w.-]*);)/;

function lenientlyParsed(markup: string, truncated: boolean): SvgElement | undefined {
  const root = findSvgElement(parseFragment(truncated ? closeTrailingTag(markup) : markup));
  return root && convert(root);
}

/** Names parse5 would re-spell (`RECT`, `lineargradient`, `VIEWBOX`): such a document takes the lenient path. */
const SPELLING = new Map([...ALLOWED_ELEMENTS, ...ALLOWED_ATTRIBUTES].map((name) => [name.toLowerCase(), name]));

/**
 * The tree of well-formed markup (so far, when `open`) whose every name is spelled as SVG spells
 * it, else undefined.
 */
function strictlyParsed(markup: string, open: boolean): SvgElement | undefined {
  let root: SvgElement | undefined;
  try {
    root = open ? parseSvgPrefix(markup) : parseSvg(markup);
  } catch {
    return undefined;
  }
  if (root?.name !== 'svg') return undefined;
  for (const element of walk(root)) {
    if (misspelled(element.name)) return undefined;
    for (const name of element.attributes.keys()) if (misspelled(name)) return undefined;
  }
  return root;
}

/** Names already in SVG's own spelling: most names, cleared by one lookup. */
const SPELLED = new Set(SPELLING.values());

function misspelled(name: string): boolean {
  if (SPELLED.has(name)) return false;
  const known = SPELLING.get(name.toLowerCase());
  return known !== undefined && known !== name;
}

/**
 * The text with its last tag completed when it ends inside one: a start tag cut inside its path
 * data or points gets its quote and `/>` (and later keeps its complete commands); a start tag
 * cut anywhere else keeps its complete attributes, unless the cut fell inside a value, which
 * would mean something else; anything else unfinished (an end tag, a comment) is cut. Scans
 * from the last `<` once, with no backtracking pattern (a cut tag can be most of the answer).
 */
export function closeTrailingTag(text: string): string {
  const lastOpen = text.lastIndexOf('<');
  if (lastOpen < 0 || text.indexOf('>', lastOpen) >= 0) return text;
  if (!/[a-zA-Z]/.test(text.charAt(lastOpen + 1))) return text.slice(0, lastOpen);
  const quote = openQuoteAt(text, lastOpen);
  if (quote >= 0) {
    // Cut inside path data or a points list: its complete part still draws what was meant.
    // Cut inside any other value (a width, a colour): the element would draw something else.
    const name = attributeNameBefore(text, quote);
    return name === 'd' || name === 'points' ? `${text}${text[quote]}/>` : text.slice(0, lastOpen);
  }
  const tag = text.slice(lastOpen, withoutHalfAttribute(text, lastOpen));
  return `${text.slice(0, lastOpen)}${tag.endsWith('/') ? tag : `${tag}/`}>`;
}

/** Where the quote of a value still open at the end of the text opens, or -1. */
function openQuoteAt(text: string, from: number): number {
  const quotes = /["']/g;
  quotes.lastIndex = from;
  for (let quote = quotes.exec(text); quote; quote = quotes.exec(text)) {
    const close = text.indexOf(quote[0], quote.index + 1);
    if (close < 0) return quote.index;
    quotes.lastIndex = close + 1;
  }
  return -1;
}

/** The name in `name = "` before the quote at `quote`, or '' when there is none. */
function attributeNameBefore(text: string, quote: number): string {
  let end = quote;
  while (isWhite(text.charCodeAt(end - 1))) end--;
  if (text[end - 1] !== '=') return '';
  end--;
  while (isWhite(text.charCodeAt(end - 1))) end--;
  let start = end;
  while (start > 0 && /[\w:-]/.test(text[start - 1]!)) start--;
  return text.slice(start, end);
}

/** The end of a cut start tag without the attribute still being written (`hei`, `height=`). */
function withoutHalfAttribute(text: string, lastOpen: number): number {
  let end = text.length;
  while (isWhite(text.charCodeAt(end - 1))) end--;
  if (text[end - 1] === '=') end--;
  else end = text.length; // no `name=`: trailing spaces are the separator looked for below
  while (end > lastOpen && !isWhite(text.charCodeAt(end - 1)) && text[end - 1] !== '=') end--;
  // Back at the `<` (a tag name cut short) or at an `=` (an unquoted value): nothing to drop.
  if (end <= lastOpen || !isWhite(text.charCodeAt(end - 1))) return text.length;
  while (isWhite(text.charCodeAt(end - 1))) end--;
  return end;
}

/** The first <svg> element, breadth first (an HTML wrapper may hold it). */
function findSvgElement(fragment: DefaultTreeAdapterMap['documentFragment']): ParsedElement | undefined {
  const queue: ParsedNode[] = [...fragment.childNodes];
  // A read index instead of shift(), which moves every element left each time.
  for (let next = 0; next < queue.length; next++) {
    const node = queue[next]!;
    if (!('tagName' in node)) continue;
    if (node.tagName === 'svg') return node;
    for (const child of node.childNodes) queue.push(child);
  }
  return undefined;
}

/**
 * parse5's tree as ours: qualified attribute names, text kept, comments dropped. Iterative.
 * Elements deeper than MAX_DEPTH are left out, counting depth as it will be once unnestShapes
 * has moved drawing out of shapes: a thousand `<circle …>` never closed nest a thousand deep
 * here, yet all stand side by side in the end.
 */
function convert(root: ParsedElement): SvgElement {
  const element = (node: ParsedElement): SvgElement => ({
    name: node.tagName,
    attributes: new Map(node.attrs.map((attr) => [attr.prefix ? `${attr.prefix}:${attr.name}` : attr.name, attr.value])),
    children: [],
  });
  const top = element(root);
  const pending: { from: ParsedElement; to: SvgElement; depth: number }[] = [{ from: root, to: top, depth: 1 }];
  while (pending.length > 0) {
    const { from, to, depth } = pending.pop()!;
    const shape = SHAPES.has(to.name);
    // A <template> keeps its content apart; inline SVG has none worth keeping.
    for (const child of from.childNodes) {
      if (child.nodeName === '#text') {
        to.children.push({ text: (child as DefaultTreeAdapterMap['textNode']).value });
        continue;
      }
      if (!('tagName' in child)) continue;
      const childDepth = shape && movesOut(child.tagName) ? depth : depth + 1;
      if (childDepth > MAX_DEPTH) continue;
      const converted = element(child);
      to.children.push(converted);
      pending.push({ from: child, to: converted, depth: childDepth });
    }
  }
  return top;
}

/** Elements that draw themselves and hold no drawing (only animations and descriptions). */
const SHAPES = new Set(['path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'image', 'use', 'stop']);
const SHAPE_CONTENT = new Set([...SMIL_ELEMENTS, 'title', 'desc', 'mpath']);

/** Whether an element found inside a shape is drawing of its own, to stand after the shape. */
const movesOut = (name: string) => !SHAPE_CONTENT.has(name);

/**
 * A shape that holds other drawing was meant to be closed: `<rect …>` written without `/`, or
 * `fill=red/>` (the HTML rules read the slash into an unquoted value and leave the tag open).
 * Its drawing moves out to follow it, as the model meant.
 */
function unnestShapes(root: SvgElement): void {
  // walk reads an element's children after the body has replaced them.
  for (const parent of walk(root)) if (parent.children.some(holdsDrawing)) parent.children = unnested(parent.children);
}

const holdsDrawing = (node: SvgNode) => isElement(node) && SHAPES.has(node.name) && node.children.some((c) => isElement(c) && movesOut(c.name));

/** The children with every shape's drawing moved out after it, recursively, in document order. */
function unnested(children: SvgNode[]): SvgNode[] {
  const out: SvgNode[] = [];
  // Moved drawing is looked at again: a shape inside a shape inside a shape all come out.
  const queue = children.slice().reverse();
  while (queue.length > 0) {
    const child = queue.pop()!;
    out.push(child);
    if (!holdsDrawing(child)) continue;
    const shape = child as SvgElement;
    const moved = shape.children.filter((c) => isElement(c) && movesOut(c.name));
    shape.children = shape.children.filter((c) => !isElement(c) || !movesOut(c.name));
    for (let i = moved.length - 1; i >= 0; i--) queue.push(moved[i]!);
  }
  return out;
}

/**
 * Every value as a renderer would read it, without the markup a cut or a garbled answer left
 * in it: a slash eaten by an unquoted last value is given back, path data and points lists
 * keep their longest valid prefix, and any other value holding a tag is dropped.
 */
function cleanAttributes(root: SvgElement): void {
  for (const element of walk(root)) {
    restoreSlash(element);
    cleanValues(element);
  }
}

/** `r=8/>`: the HTML rules read the slash into an unquoted last value; no SVG value ends with one. */
function restoreSlash(element: SvgElement): void {
  let lastName: string | undefined;
  for (const name of element.attributes.keys()) lastName = name;
  if (lastName === undefined) return;
  const value = element.attributes.get(lastName)!;
  if (value.length > 1 && value.endsWith('/')) element.attributes.set(lastName, value.slice(0, -1));
}

/** A tag inside a value: `<` before a name, an end tag, a comment or declaration, an instruction. */
const TAG_IN_VALUE = /<[A-Za-z/!?]/;

function cleanValues(element: SvgElement): void {
  const attributes = element.attributes;
  for (const [name, value] of attributes) {
    let clean: string | undefined = value;
    if (name === 'd' || (name === 'path' && element.name === 'animateMotion')) clean = completePathData(value);
    else if (name === 'points') clean = completePoints(value);
    else if (TAG_IN_VALUE.test(value)) clean = undefined;
    if (clean === undefined) attributes.delete(name);
    else if (clean !== value) attributes.set(name, clean);
  }
}

const PLAIN_LENGTH = /^\s*(\d+(?:\.\d+)?)(?:\s*px)?\s*$/;

/** `0 0 w h` from plain numeric width and height, as a browser sizes the drawing. */
function viewBoxFromSize(root: SvgElement): string | undefined {
  const width = PLAIN_LENGTH.exec(root.attributes.get('width') ?? '')?.[1];
  const height = PLAIN_LENGTH.exec(root.attributes.get('height') ?? '')?.[1];
  return width && height && Number(width) > 0 && Number(height) > 0 ? `0 0 ${Number(width)} ${Number(height)}` : undefined;
}

const NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/**
 * The numbers of a viewBox that encloses an area (four numbers, a width and a height above
 * zero), else undefined: a renderer draws nothing in one with no area, and one it cannot read
 * is as good as none.
 */
export function usableViewBox(value: string | undefined): { x: number; y: number; width: number; height: number } | undefined {
  // At most five pieces: a fifth already means the value is not four numbers.
  const parts = value?.trim().split(/\s*,\s*|\s+/, 5);
  if (parts?.length !== 4 || !parts.every((part) => NUMBER.test(part))) return undefined;
  const [x, y, width, height] = parts.map(Number) as [number, number, number, number];
  return [x, y, width, height].every(Number.isFinite) && width > 0 && height > 0 ? { x, y, width, height } : undefined;
}

// Path data and points lists are read by character code, allocating nothing: every path of
// every answer is checked, and most are valid to the end.

/** Arguments each path command takes, by character code (-1: not a command). */
const ARGUMENT_COUNT = new Int8Array(128).fill(-1);
for (const [letter, count] of Object.entries({ m: 2, l: 2, h: 1, v: 1, c: 6, s: 4, q: 4, t: 2, a: 7, z: 0 })) {
  ARGUMENT_COUNT[letter.charCodeAt(0)] = count;
  ARGUMENT_COUNT[letter.toUpperCase().charCodeAt(0)] = count;
}
const LOWER_M = 0x6d;
const LOWER_A = 0x61;
const COMMA = 0x2c;

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
const isWhite = (code: number) => code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d || code === 0x0c;

function skipWhite(text: string, at: number): number {
  while (isWhite(text.charCodeAt(at))) at++;
  return at;
}

/** Past white space with at most one comma in it (SVG's comma-wsp), or `at` when there is none. */
function skipSeparator(text: string, at: number): number {
  at = skipWhite(text, at);
  return text.charCodeAt(at) === COMMA ? skipWhite(text, at + 1) : at;
}

/** The end of the number starting at `at`, or -1 when none starts there. */
function numberEnd(text: string, at: number): number {
  let i = at;
  let code = text.charCodeAt(i);
  if (code === 0x2b || code === 0x2d) code = text.charCodeAt(++i);
  let digits = 0;
  for (; isDigit(code); digits++) code = text.charCodeAt(++i);
  if (code === 0x2e) for (code = text.charCodeAt(++i); isDigit(code); digits++) code = text.charCodeAt(++i);
  if (digits === 0) return -1;
  if ((code | 0x20) === 0x65) {
    let exponent = i + 1;
    const sign = text.charCodeAt(exponent);
    if (sign === 0x2b || sign === 0x2d) exponent++;
    if (isDigit(text.charCodeAt(exponent))) {
      while (isDigit(text.charCodeAt(exponent))) exponent++;
      i = exponent;
    }
  }
  return i;
}

/** The end of one set of a command's arguments starting at `at`, or -1 when they are not all there. */
function argumentsEnd(data: string, at: number, command: number, count: number): number {
  let i = at;
  for (let k = 0; k < count; k++) {
    if (k > 0) i = skipSeparator(data, i);
    if (command === LOWER_A && (k === 3 || k === 4)) {
      // The arc's flags: one digit each, which may run into what follows (`a1 1 0 011 1`).
      const flag = data.charCodeAt(i);
      if (flag !== 0x30 && flag !== 0x31) return -1;
      i++;
    } else if ((i = numberEnd(data, i)) < 0) {
      return -1;
    }
  }
  return i;
}

/**
 * Path data up to its last complete command: the longest valid prefix, which is what a renderer
 * draws of it (a truncated answer may stop mid-number; a garbled one may run into prose or the
 * next tag). Data valid to the end comes back as it is.
 */
export function completePathData(data: string): string {
  let complete = 0;
  let command = -1;
  let count = -1;
  for (let i = skipWhite(data, 0); i < data.length; ) {
    const code = data.charCodeAt(i);
    const letterCount = code < 128 ? ARGUMENT_COUNT[code]! : -1;
    if (letterCount >= 0) {
      // The data must begin with a moveto; after a closepath only a command may follow.
      if (command < 0 && (code | 0x20) !== LOWER_M) return data.slice(0, complete);
      command = code | 0x20;
      count = letterCount;
      i++;
      if (count === 0) {
        complete = i;
        i = skipSeparator(data, i);
        continue;
      }
      i = skipWhite(data, i);
    } else if (count <= 0) {
      return data.slice(0, complete);
    }
    // Arguments right after the command, or another set of them (an implicit repeat).
    const end = argumentsEnd(data, i, command, count);
    if (end < 0) return data.slice(0, complete);
    complete = end;
    i = skipSeparator(data, end);
  }
  return data;
}

/** A points list up to its last complete pair (an odd number is drawn without the last). */
export function completePoints(points: string): string {
  let complete = 0;
  for (let i = skipWhite(points, 0); i < points.length; ) {
    const x = numberEnd(points, i);
    const y = x < 0 ? -1 : numberEnd(points, skipSeparator(points, x));
    if (y < 0) return points.slice(0, complete);
    complete = y;
    i = skipSeparator(points, y);
  }
  return points;
}
