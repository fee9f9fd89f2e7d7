import { ALLOWED_ATTRIBUTES, ALLOWED_ELEMENTS, FORBIDDEN_ANIMATION_TARGETS, REFERENCE_ATTRIBUTES, TEXT_ELEMENTS } from './allowlist.ts';
import { isElement, type SvgElement, type SvgNode } from './tree.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK_NS = 'http://www.w3.org/1999/xlink';
const ANIMATION_ELEMENTS = new Set(['animate', 'animateMotion', 'animateTransform', 'set']);

/**
 * `url(...)` in a value may only point into the document; anything else (http:, data:,
 * javascript:, file paths) could fetch or run something when the SVG is displayed. A url( that
 * does not close, nests another url(, or holds a stray quote is refused too. One forward scan:
 * every url( reads only up to its own `)`, so a value of any length costs linear time.
 */
function hasExternalUrl(value: string): boolean {
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

function isSafeAttribute(element: string, name: string, value: string): boolean {
  if (name.startsWith('data-')) return /^data-[a-z0-9_.-]+$/i.test(name) && !/javascript:/i.test(value);
  if (!ALLOWED_ATTRIBUTES.has(name)) return false;
  if (REFERENCE_ATTRIBUTES.has(name)) return value.trim().startsWith('#');
  if (name === 'xmlns') return value === SVG_NS;
  if (name === 'xmlns:xlink') return value === XLINK_NS;
  if (name === 'style') return isSafeCss(value);
  if (ANIMATION_ELEMENTS.has(element) && name === 'attributeName') {
    return !FORBIDDEN_ANIMATION_TARGETS.has(value.trim().toLowerCase()) && !value.trim().toLowerCase().startsWith('on');
  }
  if (/javascript:|data:text\/html|vbscript:/i.test(value)) return false;
  // Presentation attributes and animation values are parsed as CSS, where an escape such as
  // `\75 rl(` still spells url(; so they get the same CSS check as `style`.
  return isSafeCss(value);
}

function sanitizeElement(node: SvgElement): SvgElement | undefined {
  if (!ALLOWED_ELEMENTS.has(node.name)) return undefined;
  const attributes = new Map<string, string>();
  for (const [name, value] of node.attributes) {
    if (isSafeAttribute(node.name, name, value)) attributes.set(name, value);
  }
  const keepsText = TEXT_ELEMENTS.has(node.name);
  const children: SvgNode[] = [];
  for (const child of node.children) {
    if (isElement(child)) {
      // <style> is checked as its own text only; nested elements would carry unchecked text inside it.
      if (node.name === 'style') continue;
      const clean = sanitizeElement(child);
      if (clean) children.push(clean);
    } else if (keepsText) {
      children.push(child);
    }
  }
  if (node.name === 'style') {
    const css = children.map((c) => ('text' in c ? c.text : '')).join('');
    if (!isSafeCss(css)) return undefined;
  }
  return { name: node.name, attributes, children };
}

/**
 * Returns a copy of the tree with only allowlisted elements and attributes: no scripts, event
 * handlers, foreign content, external references or unsafe CSS. The root keeps the SVG namespace.
 */
export function sanitizeTree(root: SvgElement): SvgElement {
  const clean = sanitizeElement(root)!;
  clean.attributes.set('xmlns', SVG_NS);
  if ([...walk(clean)].some((el) => el.attributes.has('xlink:href'))) clean.attributes.set('xmlns:xlink', XLINK_NS);
  else clean.attributes.delete('xmlns:xlink');
  return clean;
}

export function sanitizeNodes(nodes: SvgNode[]): SvgNode[] {
  return nodes.flatMap((node): SvgNode[] => {
    if (!isElement(node)) return [node];
    const clean = sanitizeElement(node);
    return clean ? [clean] : [];
  });
}

export function* walk(root: SvgElement): Generator<SvgElement> {
  const stack = [root];
  while (stack.length) {
    const node = stack.pop()!;
    yield node;
    for (const child of node.children) if (isElement(child)) stack.push(child);
  }
}
