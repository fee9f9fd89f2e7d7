// Shape geometry for the animation evaluator: outlines as polylines, from which come an element's
// bounding box (CSS `transform-box: fill-box`), a path's length (`pathLength`, which resvg
// ignores) and the point at a distance along a path (`animateMotion`). Curves and arcs are
// flattened finely enough for a rendering (errors well under a pixel at usual sizes).
import type { SvgElement } from '../tree.ts';
import { isElement } from '../tree.ts';
import { numbersIn, parseNumber } from './numbers.ts';
import { applyMatrix, IDENTITY, listMatrix, parseSvgTransform, type Box, type Matrix } from './transforms.ts';

export type Point = [number, number];

/** Subpaths of an outline, each a polyline. */
export type Polylines = Point[][];

const CURVE_STEPS = 24;

const PATH_TOKEN = /[MmLlHhVvCcSsQqTtAaZz]|[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/g;
/** How many numbers each command takes. */
const ARITY: Record<string, number> = { m: 2, l: 2, h: 1, v: 1, c: 6, s: 4, q: 4, t: 2, a: 7, z: 0 };

/** Path data to polylines (absolute). Malformed data keeps what was read before the fault, as renderers do. */
export function flattenPath(d: string): Polylines {
  const tokens = new PathTokens(d.match(PATH_TOKEN) ?? []);
  const pen = new Pen();
  let command = '';
  while (!tokens.done) {
    if (!tokens.atNumber()) command = tokens.take();
    // Numbers with no command to repeat (none yet, or a Z, which takes none) end the data.
    else if (command === '' || command === 'z' || command === 'Z') break;
    const lower = command.toLowerCase();
    if (!tokens.hasNumbers(ARITY[lower]!)) break;
    const relative = command === lower;
    if (!pen.draw(lower, relative ? pen.x : 0, relative ? pen.y : 0, tokens)) break;
    // Numbers after a moveto are linetos.
    if (lower === 'm') command = relative ? 'l' : 'L';
  }
  return pen.finish();
}

/** The tokens of path data, read front to back. */
class PathTokens {
  private at = 0;

  constructor(private readonly tokens: string[]) {}

  get done(): boolean {
    return this.at >= this.tokens.length;
  }

  atNumber(offset = 0): boolean {
    const t = this.tokens[this.at + offset];
    return t !== undefined && !/^[a-zA-Z]$/.test(t);
  }

  /** Whether the next `count` tokens are numbers. */
  hasNumbers(count: number): boolean {
    for (let k = 0; k < count; k++) if (!this.atNumber(k)) return false;
    return true;
  }

  take(): string {
    return this.tokens[this.at++]!;
  }

  number(): number {
    return Number(this.take());
  }

  /** An arc flag: arc flags may be written without separators ("a5 5 0 011 1"), so one digit is taken. */
  flag(): number {
    const t = this.tokens[this.at]!;
    if (t.length > 1 && (t[0] === '0' || t[0] === '1')) {
      this.tokens[this.at] = t.slice(1);
      return t[0] === '1' ? 1 : 0;
    }
    this.at++;
    return Number(t) ? 1 : 0;
  }
}

/** Draws path commands as polylines: where it is, where the subpath started, and the last control points. */
class Pen {
  x = 0;
  y = 0;
  private startX = 0;
  private startY = 0;
  private readonly lines: Polylines = [];
  private current: Point[] = [];
  /** The second control point of the last C or S, reflected by a following S. */
  private lastControl: Point | undefined;
  /** The control point of the last Q or T, reflected by a following T. */
  private lastQuad: Point | undefined;

  /** One command (lower case) with its numbers; false when the data ends here. */
  draw(command: string, ox: number, oy: number, tokens: PathTokens): boolean {
    switch (command) {
      case 'm':
        this.moveTo(ox + tokens.number(), oy + tokens.number());
        break;
      case 'l':
        this.lineTo(ox + tokens.number(), oy + tokens.number());
        break;
      case 'h':
        this.lineTo(ox + tokens.number(), this.y);
        break;
      case 'v':
        this.lineTo(this.x, oy + tokens.number());
        break;
      case 'c':
      case 's': {
        const c1: Point = command === 'c' ? [ox + tokens.number(), oy + tokens.number()] : this.reflected(this.lastControl);
        const c2: Point = [ox + tokens.number(), oy + tokens.number()];
        this.cubicTo(c1, c2, [ox + tokens.number(), oy + tokens.number()]);
        return true;
      }
      case 'q':
      case 't': {
        const c: Point = command === 'q' ? [ox + tokens.number(), oy + tokens.number()] : this.reflected(this.lastQuad);
        this.quadTo(c, [ox + tokens.number(), oy + tokens.number()]);
        return true;
      }
      case 'a': {
        const rx = Math.abs(tokens.number());
        const ry = Math.abs(tokens.number());
        const rotation = tokens.number();
        const large = tokens.flag();
        const sweep = tokens.flag();
        if (!tokens.hasNumbers(2)) return false;
        const end: Point = [ox + tokens.number(), oy + tokens.number()];
        for (const p of arcPoints([this.x, this.y], end, rx, ry, rotation, large, sweep)) this.lineTo(p[0], p[1]);
        break;
      }
      case 'z':
        this.close();
        break;
    }
    this.lastControl = this.lastQuad = undefined;
    return true;
  }

  finish(): Polylines {
    if (this.current.length > 1) this.lines.push(this.current);
    else if (this.current.length === 1 && this.lines.length === 0) this.lines.push(this.current);
    return this.lines;
  }

  private reflected(control: Point | undefined): Point {
    return control ? [2 * this.x - control[0], 2 * this.y - control[1]] : [this.x, this.y];
  }

  private lineTo(nx: number, ny: number): void {
    if (this.current.length === 0) this.current.push([this.x, this.y]);
    this.current.push([nx, ny]);
    this.x = nx;
    this.y = ny;
  }

  private moveTo(nx: number, ny: number): void {
    if (this.current.length > 1) this.lines.push(this.current);
    this.x = this.startX = nx;
    this.y = this.startY = ny;
    this.current = [[this.x, this.y]];
  }

  private cubicTo(c1: Point, c2: Point, end: Point): void {
    const [x0, y0] = [this.x, this.y];
    for (let k = 1; k <= CURVE_STEPS; k++) {
      const t = k / CURVE_STEPS;
      const u = 1 - t;
      this.lineTo(
        u * u * u * x0 + 3 * u * u * t * c1[0] + 3 * u * t * t * c2[0] + t * t * t * end[0],
        u * u * u * y0 + 3 * u * u * t * c1[1] + 3 * u * t * t * c2[1] + t * t * t * end[1],
      );
    }
    this.lastControl = c2;
    this.lastQuad = undefined;
  }

  private quadTo(c: Point, end: Point): void {
    const [x0, y0] = [this.x, this.y];
    for (let k = 1; k <= CURVE_STEPS; k++) {
      const t = k / CURVE_STEPS;
      const u = 1 - t;
      this.lineTo(u * u * x0 + 2 * u * t * c[0] + t * t * end[0], u * u * y0 + 2 * u * t * c[1] + t * t * end[1]);
    }
    this.lastQuad = c;
    this.lastControl = undefined;
  }

  private close(): void {
    this.lineTo(this.startX, this.startY);
    this.lines.push(this.current);
    this.current = [];
    this.x = this.startX;
    this.y = this.startY;
  }
}

/** An SVG arc as points after its start (endpoint to centre parameterization, SVG 1.1 F.6.5). */
function arcPoints(from: Point, to: Point, rxIn: number, ryIn: number, rotationDeg: number, large: number, sweep: number): Point[] {
  if ((from[0] === to[0] && from[1] === to[1]) || rxIn === 0 || ryIn === 0) return [to];
  const phi = (rotationDeg * Math.PI) / 180;
  const cos = Math.cos(phi);
  const sin = Math.sin(phi);
  const dx = (from[0] - to[0]) / 2;
  const dy = (from[1] - to[1]) / 2;
  const x1 = cos * dx + sin * dy;
  const y1 = -sin * dx + cos * dy;
  let rx = rxIn;
  let ry = ryIn;
  const lambda = (x1 * x1) / (rx * rx) + (y1 * y1) / (ry * ry);
  if (lambda > 1) {
    rx *= Math.sqrt(lambda);
    ry *= Math.sqrt(lambda);
  }
  const sign = large === sweep ? -1 : 1;
  const num = rx * rx * ry * ry - rx * rx * y1 * y1 - ry * ry * x1 * x1;
  const den = rx * rx * y1 * y1 + ry * ry * x1 * x1;
  const coef = sign * Math.sqrt(Math.max(0, num / den));
  const cx1 = (coef * rx * y1) / ry;
  const cy1 = (-coef * ry * x1) / rx;
  const cx = cos * cx1 - sin * cy1 + (from[0] + to[0]) / 2;
  const cy = sin * cx1 + cos * cy1 + (from[1] + to[1]) / 2;
  const angle = (ux: number, uy: number, vx: number, vy: number) => Math.atan2(ux * vy - uy * vx, ux * vx + uy * vy);
  const theta = angle(1, 0, (x1 - cx1) / rx, (y1 - cy1) / ry);
  let delta = angle((x1 - cx1) / rx, (y1 - cy1) / ry, (-x1 - cx1) / rx, (-y1 - cy1) / ry);
  if (!sweep && delta > 0) delta -= 2 * Math.PI;
  if (sweep && delta < 0) delta += 2 * Math.PI;
  const steps = Math.max(4, Math.ceil((Math.abs(delta) / (Math.PI / 2)) * 12));
  const points: Point[] = [];
  for (let k = 1; k <= steps; k++) {
    const a = theta + (delta * k) / steps;
    const px = rx * Math.cos(a);
    const py = ry * Math.sin(a);
    points.push([cos * px - sin * py + cx, sin * px + cos * py + cy]);
  }
  points[points.length - 1] = to;
  return points;
}

const attr = (element: SvgElement, name: string) => parseNumber(element.attributes.get(name)?.replace(/px$/, '')) ?? 0;

/** The outline of a basic shape or path in its own user space, or undefined for other elements. */
export function outline(element: SvgElement): Polylines | undefined {
  switch (element.name) {
    case 'path':
      return flattenPath(element.attributes.get('d') ?? '');
    case 'rect': {
      const x = attr(element, 'x');
      const y = attr(element, 'y');
      const w = attr(element, 'width');
      const h = attr(element, 'height');
      if (w <= 0 || h <= 0) return [];
      let rx = element.attributes.has('rx') ? attr(element, 'rx') : undefined;
      let ry = element.attributes.has('ry') ? attr(element, 'ry') : undefined;
      rx ??= ry ?? 0;
      ry ??= rx;
      rx = Math.min(Math.max(rx, 0), w / 2);
      ry = Math.min(Math.max(ry, 0), h / 2);
      if (rx === 0 || ry === 0) return [[[x, y], [x + w, y], [x + w, y + h], [x, y + h], [x, y]]];
      return flattenPath(
        `M${x + rx} ${y}H${x + w - rx}A${rx} ${ry} 0 0 1 ${x + w} ${y + ry}V${y + h - ry}A${rx} ${ry} 0 0 1 ${x + w - rx} ${y + h}` +
          `H${x + rx}A${rx} ${ry} 0 0 1 ${x} ${y + h - ry}V${y + ry}A${rx} ${ry} 0 0 1 ${x + rx} ${y}Z`,
      );
    }
    case 'circle':
    case 'ellipse': {
      const cx = attr(element, 'cx');
      const cy = attr(element, 'cy');
      const rx = element.name === 'circle' ? attr(element, 'r') : attr(element, 'rx');
      const ry = element.name === 'circle' ? rx : attr(element, 'ry');
      if (rx <= 0 || ry <= 0) return [];
      const points: Point[] = [];
      for (let k = 0; k <= 96; k++) {
        const a = (k / 96) * 2 * Math.PI;
        points.push([cx + rx * Math.cos(a), cy + ry * Math.sin(a)]);
      }
      return [points];
    }
    case 'line':
      return [[[attr(element, 'x1'), attr(element, 'y1')], [attr(element, 'x2'), attr(element, 'y2')]]];
    case 'polyline':
    case 'polygon': {
      const n = numbersIn(element.attributes.get('points') ?? '');
      const points: Point[] = [];
      for (let k = 0; k + 1 < n.length; k += 2) points.push([n[k]!, n[k + 1]!]);
      if (element.name === 'polygon' && points.length > 0) points.push(points[0]!);
      return points.length > 0 ? [points] : [];
    }
    default:
      return undefined;
  }
}

/** The exact length of a circle or ellipse is known; every other outline is measured along its polyline. */
export function outlineLength(element: SvgElement): number {
  if (element.name === 'circle') return 2 * Math.PI * Math.max(0, attr(element, 'r'));
  return polylinesLength(outline(element) ?? []);
}

/** A point along polylines at a distance, and the direction there (degrees). */
export function pointAtLength(lines: Polylines, distance: number): { point: Point; angle: number } {
  const all = lines.filter((l) => l.length > 0);
  if (all.length === 0) return { point: [0, 0], angle: 0 };
  let remaining = Math.max(0, distance);
  let lastAngle = 0;
  for (const points of all) {
    for (let k = 1; k < points.length; k++) {
      const [ax, ay] = points[k - 1]!;
      const [bx, by] = points[k]!;
      const seg = Math.hypot(bx - ax, by - ay);
      if (seg === 0) continue;
      lastAngle = (Math.atan2(by - ay, bx - ax) * 180) / Math.PI;
      if (remaining <= seg) {
        const t = remaining / seg;
        return { point: [ax + (bx - ax) * t, ay + (by - ay) * t], angle: lastAngle };
      }
      remaining -= seg;
    }
  }
  const last = all.at(-1)!;
  return { point: last.at(-1)!, angle: lastAngle };
}

export function polylinesLength(lines: Polylines): number {
  let total = 0;
  for (const points of lines) for (let k = 1; k < points.length; k++) total += Math.hypot(points[k]![0] - points[k - 1]![0], points[k]![1] - points[k - 1]![1]);
  return total;
}

/** Union of boxes; undefined when there are none. */
function union(a: Box | undefined, b: Box | undefined): Box | undefined {
  if (!a) return b;
  if (!b) return a;
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}

function boxOfPoints(points: Point[], m: Matrix): Box | undefined {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [px, py] of points) {
    const [x, y] = applyMatrix(m, px, py);
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  }
  return minX <= maxX ? { x: minX, y: minY, width: maxX - minX, height: maxY - minY } : undefined;
}

const CONTAINERS = new Set(['g', 'a', 'switch', 'svg', 'symbol']);
const NEVER_RENDERED = new Set(['defs', 'clipPath', 'mask', 'marker', 'pattern', 'linearGradient', 'radialGradient', 'filter', 'style', 'title', 'desc', 'script', 'symbol']);

/**
 * An element's object bounding box in its own user space (fill only, before its own
 * transform): shapes from their outlines, groups from their children (each under its
 * transform), `<use>` from its target. Text is estimated from its font size and characters
 * (about 0.55 em a character, 1 em tall), since no fonts are read.
 */
export function objectBoundingBox(element: SvgElement, byId: Map<string, SvgElement>, depth = 0): Box | undefined {
  if (depth > 32) return undefined;
  const lines = outline(element);
  if (lines) return boxOfPoints(lines.flat(), IDENTITY);
  if (element.name === 'text') {
    const size = parseNumber(element.attributes.get('font-size')?.replace(/px$/, '')) ?? 16;
    const text = collectText(element);
    const x = attr(element, 'x');
    const y = attr(element, 'y');
    const width = text.length * size * 0.55;
    const anchor = element.attributes.get('text-anchor');
    const start = anchor === 'middle' ? x - width / 2 : anchor === 'end' ? x - width : x;
    return { x: start, y: y - size * 0.8, width, height: size };
  }
  if (element.name === 'use') {
    const href = (element.attributes.get('href') ?? element.attributes.get('xlink:href') ?? '').trim();
    const target = href.startsWith('#') ? byId.get(href.slice(1)) : undefined;
    if (!target) return undefined;
    const inner = target.name === 'symbol' ? objectBoundingBox({ ...target, name: 'g' }, byId, depth + 1) : childBox(target, byId, depth + 1);
    if (!inner) return undefined;
    return { ...inner, x: inner.x + attr(element, 'x'), y: inner.y + attr(element, 'y') };
  }
  if (CONTAINERS.has(element.name)) {
    let box: Box | undefined;
    for (const child of element.children) {
      if (!isElement(child) || NEVER_RENDERED.has(child.name)) continue;
      box = union(box, childBox(child, byId, depth + 1));
    }
    return box;
  }
  return undefined;
}

/** A child's box in its parent's user space: its own box under its `transform` attribute. */
function childBox(child: SvgElement, byId: Map<string, SvgElement>, depth: number): Box | undefined {
  const box = objectBoundingBox(child, byId, depth);
  if (!box) return undefined;
  const transform = child.attributes.get('transform');
  const list = transform ? parseSvgTransform(transform) : [];
  const m = list ? listMatrix(list) : IDENTITY;
  return boxOfPoints(
    [
      [box.x, box.y],
      [box.x + box.width, box.y],
      [box.x, box.y + box.height],
      [box.x + box.width, box.y + box.height],
    ],
    m,
  );
}

function collectText(element: SvgElement): string {
  let out = '';
  for (const child of element.children) out += isElement(child) ? collectText(child) : child.text;
  return out.trim();
}

