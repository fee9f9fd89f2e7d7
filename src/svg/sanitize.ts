import {
  ALLOWED_ATTRIBUTES,
  ALLOWED_ELEMENTS,
  FORBIDDEN_ANIMATION_TARGETS,
  REFERENCE_ATTRIBUTES,
  SMIL_ELEMENTS,
  TEXT_ELEMENTS,
  TEXT_ONLY_ELEMENTS,
} from './allowlist.ts';
import { embeddedImageHref } from './embedded-image.ts';
import { checkReferences } from './references.ts';
import { isElement, walk, type SvgElement, type SvgNode } from './tree.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK_NS = 'http://www.w3.org/1999/xlink';

const URL_OPENING = /url\(/i;

/**
 * `url(...)` in a value may only point into the document; anything else (http:, data:,
 * javascript:, file paths) could fetch or run something when the SVG is displayed. A url( that
 * does not close, nests another url(, or holds a stray quote is refused too. One forward scan:
 * every url( reads only up to its own `)`, so a value of any length costs linear time.
 */
function hasExternalUrl(value: string): boolean {
  // Most values (path data above all) hold no url( at all. Without the u flag, i folds ASCII
  // letters only, the same folding as below.
  if (!URL_OPENING.test(value)) return false;
  // ASCII only: toLowerCase() turns 'İ' into two characters, which would shift every index.
  const lower = value.replace(/[A-Z]/g, (c) => c.toLowerCase());
  for (let at = lower.indexOf('url('); at >= 0; ) {
    const close = lower.indexOf(')', at + 4);
    if (close < 0) return true;
    const next = lower.indexOf('url(', at + 4);
    if (next >= 0 && next < close) return true;
    if (!isFragmentReference(value.slice(at + 4, close).trim())) return true;
    at = next;
  }
  return false;
}

/** `#id`, `'#id'` or `"#id"`, with no other quote inside. */
function isFragmentReference(target: string): boolean {
  const quote = target[0] === '"' || target[0] === "'" ? target[0] : '';
  if (quote && (target.length < 2 || !target.endsWith(quote))) return false;
  const inner = quote ? target.slice(1, -1).trim() : target;
  return inner.startsWith('#') && !/['"]/.test(inner);
}

// image-set()/image() take bare strings as image URLs ("http://..." without url()), so they fetch too.
const DANGEROUS_CSS = /@import|expression\s*\(|javascript:|behavior\s*:|-moz-binding|image(?:-set)?\s*\(|\\/i;

export function isSafeCss(css: string): boolean {
  return !DANGEROUS_CSS.test(css) && !hasExternalUrl(css);
}

/** What any refused value holds at least: a `:`, `(`, `@` or `\\`, or -moz-binding. */
const SUSPECT = /[:(@\\]|-moz-binding/i;

/** The value to keep for an attribute, or undefined to drop it. */
function cleanAttribute(element: string, name: string, value: string): string | undefined {
  if (name.startsWith('data-')) return /^data-[a-z0-9_.-]+$/i.test(name) && !/javascript:/i.test(value) ? value : undefined;
  if (!ALLOWED_ATTRIBUTES.has(name)) return undefined;
  if (REFERENCE_ATTRIBUTES.has(name)) {
    if (element === 'image') return embeddedImageHref(value);
    return value.trim().startsWith('#') ? value : undefined;
  }
  if (name === 'xmlns') return value === SVG_NS ? value : undefined;
  if (name === 'xmlns:xlink') return value === XLINK_NS ? value : undefined;
  if (name === 'style') return isSafeCss(value) ? value : undefined;
  if (SMIL_ELEMENTS.has(element) && name === 'attributeName') {
    const target = value.trim().toLowerCase();
    return FORBIDDEN_ANIMATION_TARGETS.has(target) || target.startsWith('on') ? undefined : value;
  }
  // Every pattern refused below needs one of these: most values (path data, numbers, colours)
  // are cleared by this one scan instead of four.
  if (!SUSPECT.test(value)) return value;
  if (/javascript:|data:text\/html|vbscript:/i.test(value)) return undefined;
  // Presentation attributes and animation values are parsed as CSS, where an escape such as
  // `\75 rl(` still spells url(; so they get the same CSS check as `style`.
  return isSafeCss(value) ? value : undefined;
}

/**
 * The allowed part of an element and everything in it, or undefined when the element itself is
 * not allowed. Iterative (a stack of elements to fill), so no depth of nesting can overflow the
 * call stack.
 */
function sanitizeElement(root: SvgElement): SvgElement | undefined {
  const top = sanitizedShell(root);
  if (!top) return undefined;
  // Not `walk`: each element is read with its copy, and refused elements are not entered.
  const pending: { from: SvgElement; to: SvgElement }[] = [{ from: root, to: top }];
  while (pending.length > 0) {
    const { from, to } = pending.pop()!;
    const keepsText = TEXT_ELEMENTS.has(from.name);
    // <style> is checked as its own text only, and <title>/<desc> are HTML integration points:
    // nested elements would carry unchecked text, or live HTML, inside them.
    const textOnly = from.name === 'style' || TEXT_ONLY_ELEMENTS.has(from.name);
    for (const child of from.children) {
      if (!isElement(child)) {
        if (keepsText) to.children.push(child);
      } else if (!textOnly) {
        const clean = sanitizedShell(child);
        if (!clean) continue;
        to.children.push(clean);
        pending.push({ from: child, to: clean });
      }
    }
  }
  return top;
}

/** An allowed element with its allowed attributes and no children yet, or undefined. */
function sanitizedShell(node: SvgElement): SvgElement | undefined {
  if (!ALLOWED_ELEMENTS.has(node.name)) return undefined;
  const attributes = new Map<string, string>();
  for (const [name, value] of node.attributes) {
    const clean = cleanAttribute(node.name, name, value);
    if (clean !== undefined) attributes.set(name, clean);
  }
  // An <image> is kept only with a checked embedded raster: without one it shows nothing.
  if (node.name === 'image' && !attributes.has('href') && !attributes.has('xlink:href')) return undefined;
  if (node.name === 'style') {
    let css = '';
    for (const child of node.children) if (!isElement(child)) css += child.text;
    // A '<' in a style sheet is how markup breaks out when the SVG is inlined in HTML and
    // serialized again; no valid style sheet needs one.
    if (css.includes('<') || !isSafeCss(css)) return undefined;
  }
  return { name: node.name, attributes, children: [] };
}

/**
 * Returns a copy of the tree with only allowlisted elements and attributes: no scripts, event
 * handlers, foreign content, external references, unsafe CSS or markup inside <title>/<desc>.
 * The root keeps the SVG namespace. Throws SvgReferenceError (an SvgParseError) when the
 * references left would form a cycle or expand past RENDER_BUDGET.
 */
export function sanitizeTree(root: SvgElement): SvgElement {
  const clean = sanitizeElement(root)!;
  checkReferences(clean);
  clean.attributes.set('xmlns', SVG_NS);
  if (usesXlink(clean)) clean.attributes.set('xmlns:xlink', XLINK_NS);
  else clean.attributes.delete('xmlns:xlink');
  return clean;
}

function usesXlink(root: SvgElement): boolean {
  for (const element of walk(root)) if (element.attributes.has('xlink:href')) return true;
  return false;
}

export function sanitizeNodes(nodes: SvgNode[]): SvgNode[] {
  return nodes.flatMap((node): SvgNode[] => {
    if (!isElement(node)) return [node];
    const clean = sanitizeElement(node);
    return clean ? [clean] : [];
  });
}

/** `walk` lives in tree.ts; engines/motion reads it from here. */
export { walk } from './tree.ts';
