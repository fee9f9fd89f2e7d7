import { isElement, type SvgElement, type SvgNode } from './tree.ts';

/**
 * Makes a model's SVG smaller without a visible change: attribute-free groups are unwrapped,
 * empty groups and definitions dropped, and numbers written with needless precision rounded —
 * absolute coordinates to 1/100 000 of the drawing's size, relative path data (whose rounding
 * errors would add up along the path) to six significant digits.
 */
export function optimizeTree(root: SvgElement): void {
  const step = precisionOf(root);
  const elements: SvgElement[] = [];
  for (const pending: SvgElement[] = [root]; pending.length > 0; ) {
    const element = pending.pop()!;
    elements.push(element);
    for (const child of element.children) if (isElement(child)) pending.push(child);
  }
  // A style sheet may select by structure (`g > rect`): then the groups stay as written.
  const keepGroups = elements.some((element) => element.name === 'style');
  const pending: SvgElement[] = [root];
  while (pending.length > 0) {
    const element = pending.pop()!;
    roundAttributes(element, step);
    if (!keepGroups) element.children = flattenChildren(element);
    for (const child of element.children) if (isElement(child)) pending.push(child);
  }
}

const NUMBER = /[-+]?(?:\d+\.\d+|\.\d+)(?:[eE][-+]?\d+)?/g;
const COORDINATES = new Set(['x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'width', 'height', 'points', 'stroke-width']);

/** A power of ten about 1/100 000 of the viewBox's larger side. */
function precisionOf(root: SvgElement): number {
  const numbers = (root.attributes.get('viewBox') ?? '').trim().split(/[\s,]+/).map(Number);
  const size = numbers.length === 4 && numbers.every(Number.isFinite) ? Math.max(Math.abs(numbers[2]!), Math.abs(numbers[3]!)) : 512;
  return 10 ** (Math.floor(Math.log10(size > 0 ? size : 512)) - 5);
}

function roundTo(value: number, step: number): string {
  const rounded = Math.round(value / step) * step;
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  return String(Number(rounded.toFixed(decimals)));
}

function roundAttributes(element: SvgElement, step: number): void {
  for (const [name, value] of element.attributes) {
    if (!/\d\.\d/.test(value)) continue;
    if (name === 'd') {
      const relative = /[a-y]/.test(value.replace(/e[-+]?\d/gi, ''));
      element.attributes.set(name, value.replace(NUMBER, (n) => (relative ? String(Number(Number(n).toPrecision(6))) : roundTo(Number(n), step))));
    } else if (COORDINATES.has(name)) {
      element.attributes.set(name, value.replace(NUMBER, (n) => roundTo(Number(n), step)));
    }
  }
}

const SMIL = new Set(['animate', 'animateTransform', 'animateMotion', 'set']);

/** Children with attribute-free groups unwrapped and empty containers dropped. */
function flattenChildren(element: SvgElement): SvgNode[] {
  // Inside a <text> or <switch>, structure carries meaning; leave it alone.
  if (element.name === 'text' || element.name === 'switch') return element.children;
  const out: SvgNode[] = [];
  for (const child of element.children) {
    if (!isElement(child)) {
      out.push(child);
      continue;
    }
    const empty = child.children.every((c) => !isElement(c) && c.text.trim() === '');
    if ((child.name === 'g' || child.name === 'defs') && empty && !child.attributes.has('id')) continue;
    // A group holding SMIL animation elements is their target: unwrapped, they would animate the parent.
    if (child.name === 'g' && child.attributes.size === 0 && !child.children.some((c) => isElement(c) && SMIL.has(c.name))) {
      out.push(...flattenChildren(child));
      continue;
    }
    out.push(child);
  }
  return out;
}
