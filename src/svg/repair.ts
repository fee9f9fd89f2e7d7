import { parseFragment } from 'parse5';
import type { DefaultTreeAdapterMap } from 'parse5';
import { ALLOWED_ATTRIBUTES, ALLOWED_ELEMENTS } from './allowlist.ts';
import { MAX_DEPTH, parseSvg, parseSvgPrefix } from './parse.ts';
import { isElement, type SvgElement, type SvgNode } from './tree.ts';

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
 * tag is closed, and the last path keeps its complete commands. A missing viewBox is derived
 * from width and height, else `fallbackViewBox` (the one the model was asked for).
 *
 * The result still goes through the strict parser and the sanitizer; this only makes it
 * well-formed and meaningful. Undefined when there is no <svg> element at all.
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
  if (options.truncated) trimLastPath(tree);
  if (!tree.attributes.has('viewBox')) {
    const derived = viewBoxFromSize(tree) ?? options.fallbackViewBox;
    if (derived) tree.attributes.set('viewBox', derived);
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
  for (const pending: SvgElement[] = [root]; pending.length > 0; ) {
    const element = pending.pop()!;
    if (misspelled(element.name)) return undefined;
    for (const name of element.attributes.keys()) if (misspelled(name)) return undefined;
    for (const child of element.children) if (isElement(child)) pending.push(child);
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
 * would mean something else; anything else unfinished (an end tag, a comment) is cut.
 */
export function closeTrailingTag(text: string): string {
  const lastOpen = text.lastIndexOf('<');
  if (lastOpen < 0 || text.indexOf('>', lastOpen) >= 0) return text;
  const tail = text.slice(lastOpen);
  if (!/^<[a-zA-Z]/.test(tail)) return text.slice(0, lastOpen);
  // Inside an attribute value when an odd number of that quote follows the `=`s.
  let quote: string | undefined;
  for (const char of tail) {
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
    }
  }
  if (quote) {
    // Cut inside path data or a points list: its complete part still draws what was meant.
    // Cut inside any other value (a width, a colour): the element would draw something else.
    const name = /([\w:-]+)\s*=\s*["'][^"']*$/.exec(tail)?.[1];
    return name === 'd' || name === 'points' ? `${text}${quote}/>` : text.slice(0, lastOpen);
  }
  // Ends after `name=` or inside a name: drop the half-written attribute.
  const trimmed = tail.replace(/\s+[^\s=]*(=\s*)?$/, '');
  return `${text.slice(0, lastOpen)}${trimmed.endsWith('/') ? trimmed : `${trimmed}/`}>`;
}

function findSvgElement(fragment: DefaultTreeAdapterMap['documentFragment']): ParsedElement | undefined {
  const pending: ParsedNode[] = [...fragment.childNodes];
  while (pending.length > 0) {
    const node = pending.shift()!;
    if (!('tagName' in node)) continue;
    if (node.tagName === 'svg') return node;
    pending.push(...node.childNodes);
  }
  return undefined;
}

/** parse5's tree as ours: qualified attribute names, text kept, comments dropped. Iterative. */
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
    // A <template> keeps its content apart; inline SVG has none worth keeping.
    for (const child of from.childNodes) {
      if (child.nodeName === '#text') {
        to.children.push({ text: (child as DefaultTreeAdapterMap['textNode']).value });
      } else if ('tagName' in child && depth < MAX_DEPTH) {
        const converted = element(child);
        to.children.push(converted);
        pending.push({ from: child, to: converted, depth: depth + 1 });
      }
    }
  }
  return top;
}

/** Elements that draw themselves and hold no drawing (only animations and descriptions). */
const SHAPES = new Set(['path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'image', 'use', 'stop']);
const SHAPE_CONTENT = new Set(['animate', 'animateTransform', 'animateMotion', 'set', 'title', 'desc', 'mpath']);

/**
 * A shape that holds other drawing was meant to be closed: `<rect …>` written without `/`, or
 * `fill=red/>` (the HTML rules read the slash into an unquoted value and leave the tag open).
 * Its drawing moves out to follow it, as the model meant, and a slash eaten by an element's
 * last unquoted attribute is given back.
 */
function unnestShapes(root: SvgElement): void {
  const pending: SvgElement[] = [root];
  while (pending.length > 0) {
    const parent = pending.pop()!;
    const children: SvgNode[] = [];
    // Moved drawing is looked at again: a shape inside a shape inside a shape all come out.
    const queue = [...parent.children].reverse();
    while (queue.length > 0) {
      const child = queue.pop()!;
      children.push(child);
      if (!isElement(child)) continue;
      restoreSlash(child);
      if (!SHAPES.has(child.name)) continue;
      const moved = child.children.filter((c) => isElement(c) && !SHAPE_CONTENT.has(c.name));
      if (moved.length === 0) continue;
      const out = new Set(moved);
      child.children = child.children.filter((c) => !out.has(c));
      for (let i = moved.length - 1; i >= 0; i--) queue.push(moved[i]!);
    }
    parent.children = children;
    for (const child of children) if (isElement(child)) pending.push(child);
  }
}

/** `r=8/>`: the HTML rules read the slash into an unquoted last value; no SVG value ends with one. */
function restoreSlash(element: SvgElement): void {
  const lastName = [...element.attributes.keys()].at(-1);
  if (lastName === undefined) return;
  const value = element.attributes.get(lastName)!;
  if (value.length > 1 && value.endsWith('/')) element.attributes.set(lastName, value.slice(0, -1));
}

const PLAIN_LENGTH = /^\s*(\d+(?:\.\d+)?)\s*(px)?\s*$/;

/** `0 0 w h` from plain numeric width and height, as a browser sizes the drawing. */
function viewBoxFromSize(root: SvgElement): string | undefined {
  const width = PLAIN_LENGTH.exec(root.attributes.get('width') ?? '')?.[1];
  const height = PLAIN_LENGTH.exec(root.attributes.get('height') ?? '')?.[1];
  return width && height && Number(width) > 0 && Number(height) > 0 ? `0 0 ${Number(width)} ${Number(height)}` : undefined;
}

/** Arguments each path command takes. */
const ARGUMENTS: Record<string, number> = { m: 2, l: 2, h: 1, v: 1, c: 6, s: 4, q: 4, t: 2, a: 7, z: 0 };
const PATH_TOKEN = /[a-zA-Z]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g;

/** Path data up to its last complete command (a truncated answer may stop mid-number). */
export function completePathData(data: string): string {
  let command: string | undefined;
  let expected = 0;
  let have = 0;
  let completeEnd = 0;
  for (const token of data.matchAll(PATH_TOKEN)) {
    const end = token.index + token[0].length;
    if (/[a-zA-Z]/.test(token[0])) {
      command = token[0].toLowerCase();
      expected = ARGUMENTS[command] ?? -1;
      if (expected < 0) break;
      have = 0;
      if (expected === 0) completeEnd = end;
      continue;
    }
    if (!command || expected === 0) break;
    have++;
    if (have === expected) {
      completeEnd = end;
      have = 0;
    }
  }
  return data.slice(0, completeEnd);
}

/** In a truncated answer only the last element can be cut; its path data keeps complete commands. */
function trimLastPath(root: SvgElement): void {
  let last: SvgElement | undefined;
  const pending: SvgNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (!isElement(node)) continue;
    if (node.name === 'path' && !last) last = node;
    for (const child of node.children) pending.push(child);
  }
  // Children are pushed in order and popped last first, so the first path met is the last one
  // in document order.
  if (!last) return;
  const data = last.attributes.get('d');
  if (data !== undefined) last.attributes.set('d', completePathData(data));
}
