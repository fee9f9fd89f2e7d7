import { usableViewBox } from './repair.ts';
import { isElement, type SvgElement } from './tree.ts';

/**
 * Whether a sanitized document surely shows something, read from its structure alone: a
 * rectangle, circle or ellipse painted in a plain colour that covers at least a pixel of the
 * viewBox at 64 px, with nothing between it and the root that could hide it (no transform,
 * clip, mask, filter, display or visibility, no style sheet, no definition container). False
 * means "render it to find out", never "it shows nothing": most model answers have such a shape
 * (a background, a sun, a window), and the render that decides the rest costs a worker process
 * a round trip.
 */
export function surelyVisible(root: SvgElement): boolean {
  const box = viewBoxOf(root);
  if (!box || hides(root) || !sized(root)) return false;
  // Not `walk`: each element carries its inherited paint, and only plain containers are entered.
  const pending: { element: SvgElement; paint: Paint }[] = [{ element: root, paint: { fill: 'black', stroke: 'none' } }];
  while (pending.length > 0) {
    const { element, paint } = pending.pop()!;
    for (const child of element.children) {
      if (!isElement(child)) continue;
      // Any sheet could hide anything: leave the whole document to the render.
      if (child.name === 'style') return false;
      if (hides(child)) continue;
      const own = inherit(paint, child);
      if (SHAPES.has(child.name)) {
        if (covers(child, own, box)) return true;
      } else if (PLAIN_CONTAINERS.has(child.name)) {
        pending.push({ element: child, paint: own });
      }
    }
  }
  return false;
}

interface Paint {
  fill: string;
  stroke: string;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const SHAPES = new Set(['rect', 'circle', 'ellipse']);
/** Containers that draw their children where they stand, with no viewport or choice of their own. */
const PLAIN_CONTAINERS = new Set(['g', 'a']);
/** Attributes that can make what they are on draw nothing, or elsewhere. */
const HIDING = ['transform', 'clip-path', 'mask', 'filter', 'display', 'visibility', 'style', 'fill-opacity', 'stroke-opacity'];
/** The render decides whether something is visible at all: its pixels must cover 1/64 of the viewBox a side. */
const RENDER_SIDE = 64;

function hides(element: SvgElement): boolean {
  for (const name of HIDING) if (element.attributes.has(name)) return true;
  const opacity = element.attributes.get('opacity');
  return opacity !== undefined && !(Number(opacity) >= 0.05);
}

/** A root with a zero, negative or unreadable width or height shows nothing (or is left to the render). */
function sized(root: SvgElement): boolean {
  for (const name of ['width', 'height']) {
    const value = root.attributes.get(name);
    if (value !== undefined && !(number(value.replace(/%$/, ''), NaN) > 0)) return false;
  }
  return true;
}

function inherit(paint: Paint, element: SvgElement): Paint {
  return { fill: element.attributes.get('fill') ?? paint.fill, stroke: element.attributes.get('stroke') ?? paint.stroke };
}

/** Keywords that are not a colour of their own (or paint nothing). */
const NOT_A_COLOUR = new Set(['none', 'transparent', 'inherit', 'initial', 'unset', 'revert', 'context-fill', 'context-stroke']);

/** A colour that paints: a named colour, #rgb or #rrggbb, rgb()/hsl() without alpha. */
function solid(value: string): boolean {
  const colour = value.trim().toLowerCase();
  if (NOT_A_COLOUR.has(colour) || colour.includes('url(') || colour.includes('var(')) return false;
  if (colour.startsWith('#')) return /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/.test(colour);
  if (/^(?:rgb|hsl)a?\(/.test(colour)) return !/\/|,[^,]*,[^,]*,/.test(colour); // no alpha
  return /^[a-z]+$/.test(colour);
}

const number = (value: string | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  return /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?(?:px)?\s*$/i.test(value) ? Number.parseFloat(value) : NaN;
};

function viewBoxOf(root: SvgElement): Box | undefined {
  return usableViewBox(root.attributes.get('viewBox'));
}

/** A painted part of the shape's fill overlaps the viewBox by at least a render pixel a side. */
function covers(shape: SvgElement, paint: Paint, box: Box): boolean {
  if (!solid(paint.fill)) return false;
  const bounds = boundsOf(shape);
  if (!bounds) return false;
  const overlapWidth = Math.min(bounds.x + bounds.width, box.x + box.width) - Math.max(bounds.x, box.x);
  const overlapHeight = Math.min(bounds.y + bounds.height, box.y + box.height) - Math.max(bounds.y, box.y);
  return overlapWidth >= box.width / RENDER_SIDE && overlapHeight >= box.height / RENDER_SIDE;
}

function boundsOf(shape: SvgElement): Box | undefined {
  const a = (name: string, fallback: number) => number(shape.attributes.get(name), fallback);
  let box: Box;
  if (shape.name === 'rect') {
    // Rounded corners leave the corners unpainted: keep the box inside them.
    const corner = Math.max(a('rx', 0), a('ry', 0));
    box = { x: a('x', 0) + corner, y: a('y', 0) + corner, width: a('width', NaN) - 2 * corner, height: a('height', NaN) - 2 * corner };
  } else {
    // The box inscribed in the circle or ellipse: all of it is painted.
    const rx = (shape.name === 'circle' ? a('r', NaN) : a('rx', NaN)) * Math.SQRT1_2;
    const ry = (shape.name === 'circle' ? a('r', NaN) : a('ry', NaN)) * Math.SQRT1_2;
    box = { x: a('cx', 0) - rx, y: a('cy', 0) - ry, width: 2 * rx, height: 2 * ry };
  }
  return Object.values(box).every(Number.isFinite) && box.width > 0 && box.height > 0 ? box : undefined;
}
