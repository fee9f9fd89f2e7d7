import { SMIL_ELEMENTS } from './allowlist.ts';
import { usableViewBox } from './repair.ts';
import { isElement, walk, type SvgElement, type SvgNode } from './tree.ts';

/**
 * Makes a model's SVG smaller without a visible change: attribute-free groups are unwrapped,
 * empty groups and definitions dropped, and numbers written with needless precision rounded —
 * absolute coordinates to 1/100 000 of the drawing's size, relative path data (whose rounding
 * errors would add up along the path) to six significant digits.
 */
export function optimizeTree(root: SvgElement): void {
  const step = precisionOf(root);
  // A style sheet may select by structure (`g > rect`): then the groups stay as written.
  const keepGroups = hasStyleSheet(root);
  // walk reads an element's children after the body has flattened them.
  for (const element of walk(root)) {
    roundAttributes(element, step);
    if (!keepGroups) element.children = flattenChildren(element);
  }
}

function hasStyleSheet(root: SvgElement): boolean {
  for (const element of walk(root)) if (element.name === 'style') return true;
  return false;
}

const NUMBER = /[-+]?(?:\d+\.\d+|\.\d+)(?:[eE][-+]?\d+)?/g;
const COORDINATES = new Set(['x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'width', 'height', 'points', 'stroke-width']);

/** A power of ten about 1/100 000 of the viewBox's larger side. */
function precisionOf(root: SvgElement): number {
  const box = usableViewBox(root.attributes.get('viewBox'));
  const size = box ? Math.max(box.width, box.height) : 512;
  return 10 ** (Math.floor(Math.log10(size)) - 5);
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

/**
 * Children with attribute-free groups unwrapped and empty containers dropped. The children of
 * an unwrapped group are read in place (a stack of lists, no recursion, no copies): groups
 * nested a hundred deep around a hundred thousand shapes cost one pass.
 */
function flattenChildren(element: SvgElement): SvgNode[] {
  // Inside a <text> or <switch>, structure carries meaning; leave it alone.
  if (element.name === 'text' || element.name === 'switch') return element.children;
  const out: SvgNode[] = [];
  const lists: { nodes: SvgNode[]; next: number }[] = [{ nodes: element.children, next: 0 }];
  while (lists.length > 0) {
    const list = lists[lists.length - 1]!;
    if (list.next === list.nodes.length) {
      lists.pop();
      continue;
    }
    const child = list.nodes[list.next++]!;
    if (isElement(child) && droppable(child)) continue;
    if (isElement(child) && unwrappable(child)) lists.push({ nodes: child.children, next: 0 });
    else out.push(child);
  }
  return out;
}

/** An empty group or definitions container nothing can reference. */
function droppable(element: SvgElement): boolean {
  if (element.name !== 'g' && element.name !== 'defs') return false;
  return !element.attributes.has('id') && element.children.every((c) => !isElement(c) && c.text.trim() === '');
}

/** A group with no attributes: its children can stand in its place. */
function unwrappable(element: SvgElement): boolean {
  // A group holding SMIL animation elements is their target: unwrapped, they would animate the parent.
  return element.name === 'g' && element.attributes.size === 0 && !element.children.some((c) => isElement(c) && SMIL_ELEMENTS.has(c.name));
}
