// Plane geometry for the animator: affine matrices, SVG transform lists, path data and basic
// shapes as line and cubic segments, their lengths, bounding boxes and point samples. Every
// scan is a single forward pass (path data and transform lists come from the caller).

export type Matrix = readonly [number, number, number, number, number, number];
export interface Point {
  x: number;
  y: number;
}
export interface Box {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

/** m1 · m2: the transform that applies m2 first, then m1. */
export function multiply(m1: Matrix, m2: Matrix): Matrix {
  const [a, b, c, d, e, f] = m1;
  const [a2, b2, c2, d2, e2, f2] = m2;
  return [a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2, a * e2 + c * f2 + e, b * e2 + d * f2 + f];
}

export function applyMatrix(m: Matrix, p: Point): Point {
  return { x: m[0] * p.x + m[2] * p.y + m[4], y: m[1] * p.x + m[3] * p.y + m[5] };
}

/** The inverse, or undefined when the matrix flattens the plane. */
export function invert(m: Matrix): Matrix | undefined {
  const [a, b, c, d, e, f] = m;
  const det = a * d - b * c;
  if (!Number.isFinite(det) || Math.abs(det) < 1e-12) return undefined;
  return [d / det, -b / det, -c / det, a / det, (c * f - d * e) / det, (b * e - a * f) / det];
}

/** How much the matrix scales lengths, on average (the square root of its determinant). */
export function meanScale(m: Matrix): number {
  return Math.sqrt(Math.abs(m[0] * m[3] - m[1] * m[2]));
}

export const translation = (x: number, y: number): Matrix => [1, 0, 0, 1, x, y];
export const scaling = (sx: number, sy: number): Matrix => [sx, 0, 0, sy, 0, 0];
export function rotation(degrees: number): Matrix {
  const r = (degrees * Math.PI) / 180;
  const cos = Math.cos(r);
  const sin = Math.sin(r);
  return [cos, sin, -sin, cos, 0, 0];
}

const NUMBER = /[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const SEPARATOR = /[\s,]/;

/**
 * An SVG transform list (`translate(10 20) rotate(30 5 5) …`). A list that does not parse is
 * the identity, as a renderer ignores an invalid transform attribute.
 */
export function parseTransform(value: string | undefined): Matrix {
  if (!value) return IDENTITY;
  let m = IDENTITY;
  let at = 0;
  const functions = /\s*,?\s*([a-zA-Z]+)\s*\(([^()]*)\)/y;
  for (;;) {
    functions.lastIndex = at;
    const match = functions.exec(value);
    if (!match) break;
    at = functions.lastIndex;
    const args = numbersIn(match[2]!);
    const step = transformFunction(match[1]!, args);
    if (!step) return IDENTITY;
    m = multiply(m, step);
  }
  return value.slice(at).trim() === '' ? m : IDENTITY;
}

function transformFunction(name: string, n: number[]): Matrix | undefined {
  switch (name) {
    case 'matrix':
      return n.length === 6 ? (n as unknown as Matrix) : undefined;
    case 'translate':
      return n.length === 1 || n.length === 2 ? translation(n[0]!, n[1] ?? 0) : undefined;
    case 'scale':
      return n.length === 1 || n.length === 2 ? scaling(n[0]!, n[1] ?? n[0]!) : undefined;
    case 'rotate':
      if (n.length === 1) return rotation(n[0]!);
      if (n.length === 3) return multiply(translation(n[1]!, n[2]!), multiply(rotation(n[0]!), translation(-n[1]!, -n[2]!)));
      return undefined;
    case 'skewX':
      return n.length === 1 ? [1, 0, Math.tan((n[0]! * Math.PI) / 180), 1, 0, 0] : undefined;
    case 'skewY':
      return n.length === 1 ? [1, Math.tan((n[0]! * Math.PI) / 180), 0, 1, 0, 0] : undefined;
    default:
      return undefined;
  }
}

/** The numbers of a list such as `10, 20 -5e2` (anything else ends the list). */
export function numbersIn(text: string): number[] {
  const out: number[] = [];
  let at = 0;
  for (;;) {
    while (at < text.length && SEPARATOR.test(text[at]!)) at++;
    if (at >= text.length) return out;
    NUMBER.lastIndex = at;
    const match = NUMBER.exec(text);
    if (!match) return out;
    out.push(Number(match[0]));
    at = NUMBER.lastIndex;
  }
}

// ---------------------------------------------------------------------------------------------
// Outlines: subpaths of line and cubic segments, in the element's own coordinates.

type Segment =
  | { kind: 'line'; p0: Point; p1: Point }
  | { kind: 'cubic'; p0: Point; p1: Point; p2: Point; p3: Point };

export interface Subpath {
  segments: Segment[];
  closed: boolean;
}

const ARITY: Record<string, number> = { m: 2, l: 2, h: 1, v: 1, c: 6, s: 4, q: 4, t: 2, a: 7, z: 0 };

/**
 * Path data as subpaths. As a renderer does, everything before the first error is kept; arcs
 * become cubics, quadratics are raised to cubics (exactly).
 */
export function parsePathData(d: string): Subpath[] {
  const scanner = new PathScanner(d);
  const pen = new PathPen();
  let command = '';
  for (;;) {
    const c = scanner.peek();
    if (c === undefined) break;
    if (/[a-zA-Z]/.test(c)) {
      const lower = c.toLowerCase();
      if (!(lower in ARITY)) break;
      command = c;
      scanner.at++;
      if (lower === 'z') {
        pen.closePath();
        continue;
      }
    } else if (!command || command === 'z' || command === 'Z') {
      break;
    }
    // Without a letter, the command before repeats with the next arguments.
    const args = scanner.args(command.toLowerCase());
    if (!args) break;
    command = pen.draw(command, args);
  }
  return pen.subpaths;
}

/** A cursor over path data: separators skipped, numbers and arc flags read. */
class PathScanner {
  at = 0;

  constructor(private readonly d: string) {}

  /** The next character past separators, or undefined at the end. */
  peek(): string | undefined {
    this.skip();
    return this.at < this.d.length ? this.d[this.at]! : undefined;
  }

  /** A command's arguments, or undefined when one is missing or not a finite number. */
  args(lower: string): number[] | undefined {
    const args: number[] = [];
    for (let i = 0; i < ARITY[lower]!; i++) {
      const value = lower === 'a' && (i === 3 || i === 4) ? this.readFlag() : this.readNumber();
      if (value === undefined || !Number.isFinite(value)) return undefined;
      args.push(value);
    }
    return args;
  }

  private skip(): void {
    const { d } = this;
    while (this.at < d.length && SEPARATOR.test(d[this.at]!)) this.at++;
  }

  private readNumber(): number | undefined {
    this.skip();
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.d);
    if (!match) return undefined;
    this.at = NUMBER.lastIndex;
    return Number(match[0]);
  }

  /** An arc flag: one character, 0 or 1 (flags may touch what follows, as in `a1 1 0 0110 10`). */
  private readFlag(): number | undefined {
    this.skip();
    const c = this.d[this.at];
    if (c !== '0' && c !== '1') return undefined;
    this.at++;
    return c === '1' ? 1 : 0;
  }
}

/** Draws path commands into subpaths: the current point, where the subpath started, the control point to reflect. */
class PathPen {
  readonly subpaths: Subpath[] = [];
  private current: Subpath | undefined;
  private x = 0;
  private y = 0;
  private startX = 0;
  private startY = 0;
  // The reflected control point of the previous S/C (cubic) or T/Q (quadratic) command.
  private lastCubic: Point | undefined;
  private lastQuad: Point | undefined;

  /** Z: a line back to the start (when not there already), and the subpath is closed. */
  closePath(): void {
    const { x, y, startX, startY } = this;
    if (this.current && (x !== startX || y !== startY)) this.push({ kind: 'line', p0: { x, y }, p1: { x: startX, y: startY } });
    if (this.current) this.current.closed = true;
    this.current = undefined;
    this.x = startX;
    this.y = startY;
    this.lastCubic = this.lastQuad = undefined;
  }

  /** One command with its arguments; returns the command that further arguments repeat (after a move, a line). */
  draw(command: string, args: number[]): string {
    const lower = command.toLowerCase();
    const relative = command !== command.toUpperCase();
    const { x, y } = this;
    const ox = relative ? x : 0;
    const oy = relative ? y : 0;
    let nextCubic: Point | undefined;
    let nextQuad: Point | undefined;
    let next = command;
    switch (lower) {
      case 'm':
        this.x = this.startX = args[0]! + ox;
        this.y = this.startY = args[1]! + oy;
        this.current = { segments: [], closed: false };
        this.subpaths.push(this.current);
        next = relative ? 'l' : 'L';
        break;
      case 'l':
      case 'h':
      case 'v': {
        const nx = lower === 'v' ? x : args[0]! + ox;
        const ny = lower === 'h' ? y : lower === 'v' ? args[0]! + oy : args[1]! + oy;
        this.push({ kind: 'line', p0: { x, y }, p1: { x: nx, y: ny } });
        this.goTo({ x: nx, y: ny });
        break;
      }
      case 'c':
      case 's': {
        const { lastCubic } = this;
        const p1 = lower === 'c' ? { x: args[0]! + ox, y: args[1]! + oy } : (lastCubic ? { x: 2 * x - lastCubic.x, y: 2 * y - lastCubic.y } : { x, y });
        const k = lower === 'c' ? 2 : 0;
        const p2 = { x: args[k]! + ox, y: args[k + 1]! + oy };
        const p3 = { x: args[k + 2]! + ox, y: args[k + 3]! + oy };
        this.push({ kind: 'cubic', p0: { x, y }, p1, p2, p3 });
        nextCubic = p2;
        this.goTo(p3);
        break;
      }
      case 'q':
      case 't': {
        const { lastQuad } = this;
        const q = lower === 'q' ? { x: args[0]! + ox, y: args[1]! + oy } : (lastQuad ? { x: 2 * x - lastQuad.x, y: 2 * y - lastQuad.y } : { x, y });
        const k = lower === 'q' ? 2 : 0;
        const p3 = { x: args[k]! + ox, y: args[k + 1]! + oy };
        this.push(quadToCubic({ x, y }, q, p3));
        nextQuad = q;
        this.goTo(p3);
        break;
      }
      case 'a': {
        const end = { x: args[5]! + ox, y: args[6]! + oy };
        for (const segment of arcToCubics({ x, y }, args[0]!, args[1]!, args[2]!, args[3] === 1, args[4] === 1, end)) this.push(segment);
        this.goTo(end);
        break;
      }
    }
    // Only the command right after a C/S (or Q/T) may reflect its control point.
    this.lastCubic = nextCubic;
    this.lastQuad = nextQuad;
    return next;
  }

  /** The current point, after a segment ends there. */
  private goTo(p: Point): void {
    this.x = p.x;
    this.y = p.y;
  }

  private push(segment: Segment): void {
    if (!this.current) {
      this.current = { segments: [], closed: false };
      this.subpaths.push(this.current);
    }
    this.current.segments.push(segment);
  }
}

function quadToCubic(p0: Point, q: Point, p3: Point): Segment {
  return {
    kind: 'cubic',
    p0,
    p1: { x: p0.x + ((q.x - p0.x) * 2) / 3, y: p0.y + ((q.y - p0.y) * 2) / 3 },
    p2: { x: p3.x + ((q.x - p3.x) * 2) / 3, y: p3.y + ((q.y - p3.y) * 2) / 3 },
    p3,
  };
}

/** An elliptical arc (SVG endpoint parameters) as cubics of at most 90° each. */
function arcToCubics(p0: Point, rxIn: number, ryIn: number, angle: number, large: boolean, sweep: boolean, p1: Point): Segment[] {
  let rx = Math.abs(rxIn);
  let ry = Math.abs(ryIn);
  if (p0.x === p1.x && p0.y === p1.y) return [];
  if (rx === 0 || ry === 0) return [{ kind: 'line', p0, p1 }];
  const phi = (angle * Math.PI) / 180;
  const cos = Math.cos(phi);
  const sin = Math.sin(phi);
  const dx = (p0.x - p1.x) / 2;
  const dy = (p0.y - p1.y) / 2;
  const x1 = cos * dx + sin * dy;
  const y1 = -sin * dx + cos * dy;
  const lambda = (x1 * x1) / (rx * rx) + (y1 * y1) / (ry * ry);
  if (lambda > 1) {
    rx *= Math.sqrt(lambda);
    ry *= Math.sqrt(lambda);
  }
  const num = rx * rx * ry * ry - rx * rx * y1 * y1 - ry * ry * x1 * x1;
  const den = rx * rx * y1 * y1 + ry * ry * x1 * x1;
  const coef = (large === sweep ? -1 : 1) * Math.sqrt(Math.max(0, num / den));
  const cx1 = (coef * rx * y1) / ry;
  const cy1 = (-coef * ry * x1) / rx;
  const cx = cos * cx1 - sin * cy1 + (p0.x + p1.x) / 2;
  const cy = sin * cx1 + cos * cy1 + (p0.y + p1.y) / 2;
  const vectorAngle = (ux: number, uy: number, vx: number, vy: number) => {
    const sign = ux * vy - uy * vx < 0 ? -1 : 1;
    const dot = (ux * vx + uy * vy) / (Math.hypot(ux, uy) * Math.hypot(vx, vy));
    return sign * Math.acos(Math.min(1, Math.max(-1, dot)));
  };
  const theta1 = vectorAngle(1, 0, (x1 - cx1) / rx, (y1 - cy1) / ry);
  let delta = vectorAngle((x1 - cx1) / rx, (y1 - cy1) / ry, (-x1 - cx1) / rx, (-y1 - cy1) / ry);
  if (!sweep && delta > 0) delta -= 2 * Math.PI;
  if (sweep && delta < 0) delta += 2 * Math.PI;
  const pieces = Math.max(1, Math.ceil(Math.abs(delta) / (Math.PI / 2) - 1e-9));
  const step = delta / pieces;
  const k = (4 / 3) * Math.tan(step / 4);
  const point = (t: number): Point => ({
    x: cx + rx * Math.cos(t) * cos - ry * Math.sin(t) * sin,
    y: cy + rx * Math.cos(t) * sin + ry * Math.sin(t) * cos,
  });
  const derivative = (t: number): Point => ({
    x: -rx * Math.sin(t) * cos - ry * Math.cos(t) * sin,
    y: -rx * Math.sin(t) * sin + ry * Math.cos(t) * cos,
  });
  const segments: Segment[] = [];
  let start = p0;
  for (let i = 0; i < pieces; i++) {
    const t0 = theta1 + i * step;
    const t1 = t0 + step;
    const d0 = derivative(t0);
    const d1 = derivative(t1);
    const end = i === pieces - 1 ? p1 : point(t1);
    segments.push({
      kind: 'cubic',
      p0: start,
      p1: { x: start.x + k * d0.x, y: start.y + k * d0.y },
      p2: { x: end.x - k * d1.x, y: end.y - k * d1.y },
      p3: end,
    });
    start = end;
  }
  return segments;
}

const KAPPA = 0.5522847498307936;

/** An ellipse as four cubics, starting at its rightmost point and turning clockwise (as a renderer starts a circle). */
export function ellipseOutline(cx: number, cy: number, rx: number, ry: number): Subpath[] {
  if (!(rx > 0) || !(ry > 0)) return [];
  const kx = rx * KAPPA;
  const ky = ry * KAPPA;
  const p = (x: number, y: number): Point => ({ x, y });
  return [
    {
      closed: true,
      segments: [
        { kind: 'cubic', p0: p(cx + rx, cy), p1: p(cx + rx, cy + ky), p2: p(cx + kx, cy + ry), p3: p(cx, cy + ry) },
        { kind: 'cubic', p0: p(cx, cy + ry), p1: p(cx - kx, cy + ry), p2: p(cx - rx, cy + ky), p3: p(cx - rx, cy) },
        { kind: 'cubic', p0: p(cx - rx, cy), p1: p(cx - rx, cy - ky), p2: p(cx - kx, cy - ry), p3: p(cx, cy - ry) },
        { kind: 'cubic', p0: p(cx, cy - ry), p1: p(cx + kx, cy - ry), p2: p(cx + rx, cy - ky), p3: p(cx + rx, cy) },
      ],
    },
  ];
}

/** A rectangle, rounded when rx/ry say so (the SVG 2 auto rules), from its top-left corner. */
export function rectOutline(x: number, y: number, w: number, h: number, rxIn: number | undefined, ryIn: number | undefined): Subpath[] {
  if (!(w > 0) || !(h > 0)) return [];
  let rx = rxIn !== undefined && rxIn >= 0 ? rxIn : ryIn !== undefined && ryIn >= 0 ? ryIn : 0;
  let ry = ryIn !== undefined && ryIn >= 0 ? ryIn : rx;
  rx = Math.min(rx, w / 2);
  ry = Math.min(ry, h / 2);
  const p = (px: number, py: number): Point => ({ x: px, y: py });
  const line = (a: Point, b: Point): Segment => ({ kind: 'line', p0: a, p1: b });
  if (rx === 0 || ry === 0) {
    return [{ closed: true, segments: [line(p(x, y), p(x + w, y)), line(p(x + w, y), p(x + w, y + h)), line(p(x + w, y + h), p(x, y + h)), line(p(x, y + h), p(x, y))] }];
  }
  const kx = rx * KAPPA;
  const ky = ry * KAPPA;
  const corner = (a: Point, c1: Point, c2: Point, b: Point): Segment => ({ kind: 'cubic', p0: a, p1: c1, p2: c2, p3: b });
  return [
    {
      closed: true,
      segments: [
        line(p(x + rx, y), p(x + w - rx, y)),
        corner(p(x + w - rx, y), p(x + w - rx + kx, y), p(x + w, y + ry - ky), p(x + w, y + ry)),
        line(p(x + w, y + ry), p(x + w, y + h - ry)),
        corner(p(x + w, y + h - ry), p(x + w, y + h - ry + ky), p(x + w - rx + kx, y + h), p(x + w - rx, y + h)),
        line(p(x + w - rx, y + h), p(x + rx, y + h)),
        corner(p(x + rx, y + h), p(x + rx - kx, y + h), p(x, y + h - ry + ky), p(x, y + h - ry)),
        line(p(x, y + h - ry), p(x, y + ry)),
        corner(p(x, y + ry), p(x, y + ry - ky), p(x + rx - kx, y), p(x + rx, y)),
      ],
    },
  ];
}

/** A polyline or polygon from its `points`; an odd trailing number is ignored, as a renderer does. */
export function polyOutline(points: string, closed: boolean): Subpath[] {
  const n = numbersIn(points);
  if (n.length < 4) return [];
  const segments: Segment[] = [];
  for (let i = 2; i + 1 < n.length; i += 2) segments.push({ kind: 'line', p0: { x: n[i - 2]!, y: n[i - 1]! }, p1: { x: n[i]!, y: n[i + 1]! } });
  if (closed) segments.push({ kind: 'line', p0: { x: n[n.length - 2 - (n.length % 2)]!, y: n[n.length - 1 - (n.length % 2)]! }, p1: { x: n[0]!, y: n[1]! } });
  return [{ segments, closed }];
}

function cubicPoint(s: Extract<Segment, { kind: 'cubic' }>, t: number): Point {
  const u = 1 - t;
  const a = u * u * u;
  const b = 3 * u * u * t;
  const c = 3 * u * t * t;
  const d = t * t * t;
  return { x: a * s.p0.x + b * s.p1.x + c * s.p2.x + d * s.p3.x, y: a * s.p0.y + b * s.p1.y + c * s.p2.y + d * s.p3.y };
}

function cubicSpeed(s: Extract<Segment, { kind: 'cubic' }>, t: number): number {
  const u = 1 - t;
  const dx = 3 * u * u * (s.p1.x - s.p0.x) + 6 * u * t * (s.p2.x - s.p1.x) + 3 * t * t * (s.p3.x - s.p2.x);
  const dy = 3 * u * u * (s.p1.y - s.p0.y) + 6 * u * t * (s.p2.y - s.p1.y) + 3 * t * t * (s.p3.y - s.p2.y);
  return Math.hypot(dx, dy);
}

// Five-point Gauss–Legendre nodes and weights on [0, 1].
const GAUSS_NODES = [0.04691007703066802, 0.23076534494715845, 0.5, 0.7692346550528415, 0.9530899229693319];
const GAUSS_WEIGHTS = [0.11846344252809454, 0.23931433524968324, 0.28444444444444444, 0.23931433524968324, 0.11846344252809454];

/** A segment's arc length (cubics: Gauss–Legendre on eight pieces, far below a pixel). */
function segmentLength(s: Segment): number {
  if (s.kind === 'line') return Math.hypot(s.p1.x - s.p0.x, s.p1.y - s.p0.y);
  const pieces = 8;
  let total = 0;
  for (let i = 0; i < pieces; i++) {
    for (let k = 0; k < 5; k++) total += (GAUSS_WEIGHTS[k]! * cubicSpeed(s, (i + GAUSS_NODES[k]!) / pieces)) / pieces;
  }
  return total;
}

export function outlineLength(subpaths: Subpath[]): number {
  let total = 0;
  for (const subpath of subpaths) for (const segment of subpath.segments) total += segmentLength(segment);
  return total;
}

/**
 * Points along the outline about `spacing` apart (by parameter within a segment), every segment's
 * ends included; at most `limit` points in all, evenly chosen when there would be more.
 */
export function samplePoints(subpaths: Subpath[], spacing: number, limit = 4096): Point[] {
  let length = 0;
  for (const subpath of subpaths) for (const segment of subpath.segments) length += roughLength(segment);
  const step = Math.max(spacing, length / Math.max(1, limit), 1e-9);
  const points: Point[] = [];
  for (const subpath of subpaths) {
    for (const segment of subpath.segments) {
      const n = Math.min(limit, Math.ceil(roughLength(segment) / step));
      if (segment.kind === 'line') {
        const pieces = Math.max(1, n);
        for (let i = 0; i < pieces; i++) {
          const t = i / pieces;
          points.push({ x: segment.p0.x + (segment.p1.x - segment.p0.x) * t, y: segment.p0.y + (segment.p1.y - segment.p0.y) * t });
        }
        if (!subpath.closed) points.push(segment.p1);
      } else {
        const pieces = Math.max(2, n);
        for (let i = 0; i < pieces; i++) points.push(cubicPoint(segment, i / pieces));
        points.push(segment.p3);
      }
    }
  }
  if (points.length <= limit) return points;
  const chosen: Point[] = [];
  for (let i = 0; i < limit; i++) chosen.push(points[Math.floor((i * points.length) / limit)]!);
  return chosen;
}

/** A cheap length estimate for spacing samples: a cubic's chord and control net, averaged. */
function roughLength(s: Segment): number {
  if (s.kind === 'line') return Math.hypot(s.p1.x - s.p0.x, s.p1.y - s.p0.y);
  const chord = Math.hypot(s.p3.x - s.p0.x, s.p3.y - s.p0.y);
  const net = Math.hypot(s.p1.x - s.p0.x, s.p1.y - s.p0.y) + Math.hypot(s.p2.x - s.p1.x, s.p2.y - s.p1.y) + Math.hypot(s.p3.x - s.p2.x, s.p3.y - s.p2.y);
  return (chord + net) / 2;
}

/** The exact bounding box of an outline mapped through a matrix (cubic extremes solved). */
export function outlineBox(subpaths: Subpath[], m: Matrix = IDENTITY): Box | undefined {
  const points: Point[] = [];
  const p = (q: Point) => applyMatrix(m, q);
  for (const subpath of subpaths) {
    for (const s of subpath.segments) {
      if (s.kind === 'line') {
        points.push(p(s.p0), p(s.p1));
        continue;
      }
      const c = { kind: 'cubic' as const, p0: p(s.p0), p1: p(s.p1), p2: p(s.p2), p3: p(s.p3) };
      points.push(c.p0, c.p3);
      for (const axis of ['x', 'y'] as const) {
        for (const t of cubicExtremes(c.p0[axis], c.p1[axis], c.p2[axis], c.p3[axis])) points.push(cubicPoint(c, t));
      }
    }
  }
  return boxOf(points);
}

/** Parameters in (0, 1) where a cubic's coordinate has a zero derivative. */
function cubicExtremes(a: number, b: number, c: number, d: number): number[] {
  const qa = -a + 3 * b - 3 * c + d;
  const qb = 2 * (a - 2 * b + c);
  const qc = b - a;
  const roots: number[] = [];
  if (Math.abs(qa) < 1e-12) {
    if (Math.abs(qb) > 1e-12) roots.push(-qc / qb);
  } else {
    const disc = qb * qb - 4 * qa * qc;
    if (disc >= 0) {
      const sq = Math.sqrt(disc);
      roots.push((-qb + sq) / (2 * qa), (-qb - sq) / (2 * qa));
    }
  }
  return roots.filter((t) => t > 0 && t < 1);
}

/** The bounding box of points, or undefined for none. */
export function boxOf(points: Iterable<Point>): Box | undefined {
  let box: Box | undefined;
  for (const p of points) {
    if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) continue;
    if (!box) box = { minX: p.x, minY: p.y, maxX: p.x, maxY: p.y };
    else {
      if (p.x < box.minX) box.minX = p.x;
      if (p.x > box.maxX) box.maxX = p.x;
      if (p.y < box.minY) box.minY = p.y;
      if (p.y > box.maxY) box.maxY = p.y;
    }
  }
  return box;
}

export function padBox(box: Box, pad: number): Box {
  return { minX: box.minX - pad, minY: box.minY - pad, maxX: box.maxX + pad, maxY: box.maxY + pad };
}

export const boxCenter = (box: Box): Point => ({ x: (box.minX + box.maxX) / 2, y: (box.minY + box.maxY) / 2 });

/** The four corners of a box mapped through a matrix. */
export function boxCorners(box: Box, m: Matrix = IDENTITY): Point[] {
  return [
    applyMatrix(m, { x: box.minX, y: box.minY }),
    applyMatrix(m, { x: box.maxX, y: box.minY }),
    applyMatrix(m, { x: box.maxX, y: box.maxY }),
    applyMatrix(m, { x: box.minX, y: box.maxY }),
  ];
}
