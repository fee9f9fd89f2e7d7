/**
 * An outline's points as path data (bilevel.ts): corners found where it turns sharply and moved
 * onto the meeting point of the runs either side, the runs between them fitted with cubic Béziers
 * (Schneider's algorithm) or lines.
 */

/** Largest distance, in source pixels, from the outline to the curves fitted to it. */
const FIT_TOLERANCE = 0.4;
/** A bend of more than this (radians) within CORNER_REACH pixels either side is a corner. */
const CORNER_ANGLE = (60 * Math.PI) / 180;
const CORNER_REACH = 2;
/** A corner is moved to where the straight runs either side meet when that is this close (pixels). */
const SHARPEN_LIMIT = 1;

/** Absolute path data for one closed outline, fitted with cubics and lines, scaled by `scale`. */
export function fitLoop(points: Float64Array, scale: number): string {
  const n = points.length / 2;
  // Twice round the loop (and one point more), so a run that wraps needs no modulo.
  const xs = new Float64Array(2 * n + 1);
  const ys = new Float64Array(2 * n + 1);
  for (let i = 0; i <= 2 * n; i++) {
    xs[i] = points[2 * (i % n)]!;
    ys[i] = points[2 * (i % n) + 1]!;
  }
  const corners = findCorners(xs, ys, n);
  const fitter = new CurveFitter(xs, ys, scale);
  const first = corners[0] ?? 0;
  fitter.moveTo(first);
  if (corners.length === 0) {
    // A smooth loop: it ends where it began, with the same tangent there.
    const [tx, ty] = fitter.tangentThrough(n, 0, 2 * n);
    fitter.fit(0, n, tx, ty, -tx, -ty);
  } else {
    for (let c = 0; c < corners.length; c++) {
      const from = corners[c]!;
      const to = c + 1 < corners.length ? corners[c + 1]! : first + n;
      const [t1x, t1y] = fitter.tangentFrom(from, to);
      const [t2x, t2y] = fitter.tangentFrom(to, from);
      fitter.fit(from, to, t1x, t1y, t2x, t2y);
    }
  }
  return fitter.close();
}

/** Index of the first point from `i` on (step ±1) at least `reach` away from it, or `limit`. */
function reachFrom(xs: Float64Array, ys: Float64Array, i: number, step: number, limit: number, reach: number): number {
  const r2 = reach * reach;
  const x = xs[i]!;
  const y = ys[i]!;
  let k = i + step;
  while (k !== limit && (xs[k]! - x) ** 2 + (ys[k]! - y) ** 2 < r2) k += step;
  return k;
}

/**
 * Points where the outline turns by more than CORNER_ANGLE, measured CORNER_REACH pixels either
 * side, each moved onto the meeting point of the straight runs either side when that is near
 * (the half-coverage line cuts a sharp corner short). Indices are in [0, n), ascending; the
 * moved points are written into both copies of the doubled arrays.
 */
function findCorners(xs: Float64Array, ys: Float64Array, n: number): number[] {
  if (n < 8) return [];
  const turn = new Float64Array(n);
  // Work on the middle copy (indices n/2 … n/2 + n) so back and ahead never leave the arrays.
  const offset = n >> 1;
  for (let k = 0; k < n; k++) {
    const i = k + offset;
    const back = reachFrom(xs, ys, i, -1, i - offset, CORNER_REACH);
    const ahead = reachFrom(xs, ys, i, 1, i + offset, CORNER_REACH);
    const ax = xs[i]! - xs[back]!;
    const ay = ys[i]! - ys[back]!;
    const bx = xs[ahead]! - xs[i]!;
    const by = ys[ahead]! - ys[i]!;
    turn[i % n] = Math.abs(Math.atan2(ax * by - ay * bx, ax * bx + ay * by));
  }
  const corners: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = turn[i]!;
    if (t < CORNER_ANGLE) continue;
    // the sharpest point of its neighbourhood only (the first of equals)
    if (turn[(i + n - 1) % n]! >= t || turn[(i + n - 2) % n]! >= t || turn[(i + 1) % n]! > t || turn[(i + 2) % n]! > t) continue;
    corners.push(i);
  }
  for (const c of corners) sharpen(xs, ys, n, c);
  return corners;
}

/** Moves corner point c onto the meeting point of the lines through the outline 1–2.5 px either side. */
function sharpen(xs: Float64Array, ys: Float64Array, n: number, c: number): void {
  const i = c < n >> 1 ? c + n : c; // the copy of point c with half the loop either side
  const b1 = reachFrom(xs, ys, i, -1, i - (n >> 1), 1);
  const b2 = reachFrom(xs, ys, i, -1, i - (n >> 1), 2.5);
  const a1 = reachFrom(xs, ys, i, 1, i + (n >> 1), 1);
  const a2 = reachFrom(xs, ys, i, 1, i + (n >> 1), 2.5);
  if (b1 === b2 || a1 === a2) return;
  // Lines p = b1 + s·(b1 − b2) and q = a1 + t·(a1 − a2); solve p = q.
  const dx1 = xs[b1]! - xs[b2]!;
  const dy1 = ys[b1]! - ys[b2]!;
  const dx2 = xs[a1]! - xs[a2]!;
  const dy2 = ys[a1]! - ys[a2]!;
  const det = dx1 * dy2 - dy1 * dx2;
  if (Math.abs(det) < 1e-9 * (dx1 * dx1 + dy1 * dy1 + dx2 * dx2 + dy2 * dy2)) return;
  const ex = xs[a1]! - xs[b1]!;
  const ey = ys[a1]! - ys[b1]!;
  const s = (ex * dy2 - ey * dx2) / det;
  const x = xs[b1]! + s * dx1;
  const y = ys[b1]! + s * dy1;
  if (s < 0 || (x - xs[i]!) ** 2 + (y - ys[i]!) ** 2 > SHARPEN_LIMIT ** 2) return;
  for (const k of [c, c + n, c + 2 * n]) {
    if (k > 2 * n) break;
    xs[k] = x;
    ys[k] = y;
  }
}

/**
 * Philip Schneider's cubic fitting ("An algorithm for automatically fitting digitized curves",
 * Graphics Gems, 1990) on runs of an outline, written out as absolute path data.
 */
class CurveFitter {
  private readonly out: string[] = [];
  private readonly tolerance2 = FIT_TOLERANCE * FIT_TOLERANCE;

  constructor(
    private readonly xs: Float64Array,
    private readonly ys: Float64Array,
    private readonly scale: number,
  ) {}

  moveTo(i: number): void {
    this.out.push(`M${this.number(this.xs[i]!)} ${this.number(this.ys[i]!)}`);
  }

  close(): string {
    this.out.push('Z');
    return this.out.join('');
  }

  /** Unit direction from point i towards the point about 1.5 px along the outline towards `limit`. */
  tangentFrom(i: number, limit: number): [number, number] {
    const k = reachFrom(this.xs, this.ys, i, limit > i ? 1 : -1, limit, 1.5);
    return unit(this.xs[k]! - this.xs[i]!, this.ys[k]! - this.ys[i]!);
  }

  /** Forward direction of the outline through point i, from the points about 1.5 px either side within [lo, hi]. */
  tangentThrough(i: number, lo: number, hi: number): [number, number] {
    const a = reachFrom(this.xs, this.ys, i, 1, hi, 1.5);
    const b = reachFrom(this.xs, this.ys, i, -1, lo, 1.5);
    const [x, y] = unit(this.xs[a]! - this.xs[b]!, this.ys[a]! - this.ys[b]!);
    return x === 0 && y === 0 ? unit(this.xs[a]! - this.xs[i]!, this.ys[a]! - this.ys[i]!) : [x, y];
  }

  /**
   * Fits points first…last, leaving first along (t1x, t1y) and arriving at last from the
   * direction (t2x, t2y) points back along: one cubic when it is close enough, else split where
   * it is worst and fit each half. A work stack, not recursion, so no outline is too long.
   */
  fit(first: number, last: number, t1x: number, t1y: number, t2x: number, t2y: number): void {
    const stack: number[] = [first, last, t1x, t1y, t2x, t2y];
    while (stack.length > 0) {
      const t2y = stack.pop()!;
      const t2x = stack.pop()!;
      const t1y = stack.pop()!;
      const t1x = stack.pop()!;
      const last = stack.pop()!;
      const first = stack.pop()!;
      const split = this.fitOne(first, last, t1x, t1y, t2x, t2y);
      if (split < 0) continue;
      let [tx, ty] = this.tangentThrough(split, first, last);
      if (tx === 0 && ty === 0) [tx, ty] = unit(this.xs[split + 1]! - this.xs[split - 1]!, this.ys[split + 1]! - this.ys[split - 1]!);
      // The second half goes on the stack first, so the first half is written first.
      stack.push(split, last, tx, ty, t2x, t2y, first, split, t1x, t1y, -tx, -ty);
    }
  }

  /** Writes one line or cubic for first…last and returns -1, or returns where to split. */
  private fitOne(first: number, last: number, t1x: number, t1y: number, t2x: number, t2y: number): number {
    const { xs, ys } = this;
    const count = last - first + 1;
    const x0 = xs[first]!;
    const y0 = ys[first]!;
    const x3 = xs[last]!;
    const y3 = ys[last]!;
    if (count <= 2) {
      this.lineTo(x3, y3);
      return -1;
    }
    // Chord-length parameters, and whether the run is straight enough to be a line.
    const cx = x3 - x0;
    const cy = y3 - y0;
    const chord2 = cx * cx + cy * cy;
    const lineTolerance2 = this.tolerance2 * 0.25 * chord2;
    let straight = chord2 > 0;
    const u = new Float64Array(count);
    for (let k = 1; k < count; k++) {
      const i = first + k;
      u[k] = u[k - 1]! + Math.sqrt((xs[i]! - xs[i - 1]!) ** 2 + (ys[i]! - ys[i - 1]!) ** 2);
      if (straight && ((xs[i]! - x0) * cy - (ys[i]! - y0) * cx) ** 2 > lineTolerance2) straight = false;
    }
    if (straight) {
      this.lineTo(x3, y3);
      return -1;
    }
    const total = u[count - 1]!;
    for (let k = 1; k < count; k++) u[k] = u[k]! / total;
    const bez = new Float64Array(8);
    this.generate(first, count, u, t1x, t1y, t2x, t2y, bez);
    let [error, split] = this.maxError(first, count, u, bez);
    for (let iteration = 0; iteration < 4 && error >= this.tolerance2 && error < this.tolerance2 * 4; iteration++) {
      this.reparameterize(first, count, u, bez);
      this.generate(first, count, u, t1x, t1y, t2x, t2y, bez);
      [error, split] = this.maxError(first, count, u, bez);
    }
    if (error < this.tolerance2) {
      this.curveTo(bez);
      return -1;
    }
    return first + Math.min(count - 2, Math.max(1, split));
  }

  /** Least-squares lengths of the two handles along their tangents (Schneider's generateBezier). */
  private generate(first: number, count: number, u: Float64Array, t1x: number, t1y: number, t2x: number, t2y: number, out: Float64Array): void {
    const { xs, ys } = this;
    const x0 = xs[first]!;
    const y0 = ys[first]!;
    const x3 = xs[first + count - 1]!;
    const y3 = ys[first + count - 1]!;
    let c00 = 0;
    let c01 = 0;
    let c11 = 0;
    let r0 = 0;
    let r1 = 0;
    for (let k = 0; k < count; k++) {
      const t = u[k]!;
      const s = 1 - t;
      const b0 = s * s * s;
      const b1 = 3 * t * s * s;
      const b2 = 3 * t * t * s;
      const b3 = t * t * t;
      const a1x = t1x * b1;
      const a1y = t1y * b1;
      const a2x = t2x * b2;
      const a2y = t2y * b2;
      c00 += a1x * a1x + a1y * a1y;
      c01 += a1x * a2x + a1y * a2y;
      c11 += a2x * a2x + a2y * a2y;
      const px = xs[first + k]! - (x0 * (b0 + b1) + x3 * (b2 + b3));
      const py = ys[first + k]! - (y0 * (b0 + b1) + y3 * (b2 + b3));
      r0 += a1x * px + a1y * py;
      r1 += a2x * px + a2y * py;
    }
    const det = c00 * c11 - c01 * c01;
    let alpha1 = det === 0 ? 0 : (r0 * c11 - c01 * r1) / det;
    let alpha2 = det === 0 ? 0 : (c00 * r1 - c01 * r0) / det;
    const chord = Math.sqrt((x3 - x0) ** 2 + (y3 - y0) ** 2);
    // Handles pointing backwards or far too long: the heuristic thirds instead.
    if (!(alpha1 > 1e-6 * chord && alpha2 > 1e-6 * chord && alpha1 < chord * 2 && alpha2 < chord * 2)) alpha1 = alpha2 = chord / 3;
    out[0] = x0;
    out[1] = y0;
    out[2] = x0 + t1x * alpha1;
    out[3] = y0 + t1y * alpha1;
    out[4] = x3 + t2x * alpha2;
    out[5] = y3 + t2y * alpha2;
    out[6] = x3;
    out[7] = y3;
  }

  /** Largest squared distance from a point to the curve at its parameter, and where. */
  private maxError(first: number, count: number, u: Float64Array, b: Float64Array): [number, number] {
    let max = 0;
    let at = count >> 1;
    for (let k = 1; k < count - 1; k++) {
      const dx = bezierAt(b, 0, u[k]!) - this.xs[first + k]!;
      const dy = bezierAt(b, 1, u[k]!) - this.ys[first + k]!;
      const d = dx * dx + dy * dy;
      if (d >= max) {
        max = d;
        at = k;
      }
    }
    return [max, at];
  }

  /** One Newton step per point towards the curve parameter nearest to it. */
  private reparameterize(first: number, count: number, u: Float64Array, b: Float64Array): void {
    for (let k = 1; k < count - 1; k++) {
      const t = u[k]!;
      const s = 1 - t;
      const qx = bezierAt(b, 0, t) - this.xs[first + k]!;
      const qy = bezierAt(b, 1, t) - this.ys[first + k]!;
      const d1x = 3 * ((b[2]! - b[0]!) * s * s + 2 * (b[4]! - b[2]!) * t * s + (b[6]! - b[4]!) * t * t);
      const d1y = 3 * ((b[3]! - b[1]!) * s * s + 2 * (b[5]! - b[3]!) * t * s + (b[7]! - b[5]!) * t * t);
      const d2x = 6 * ((b[4]! - 2 * b[2]! + b[0]!) * s + (b[6]! - 2 * b[4]! + b[2]!) * t);
      const d2y = 6 * ((b[5]! - 2 * b[3]! + b[1]!) * s + (b[7]! - 2 * b[5]! + b[3]!) * t);
      const denominator = d1x * d1x + d1y * d1y + qx * d2x + qy * d2y;
      if (denominator !== 0) u[k] = Math.min(1, Math.max(0, t - (qx * d1x + qy * d1y) / denominator));
    }
  }

  private number(v: number): string {
    return String(Math.round(v * this.scale * 100) / 100);
  }

  private lineTo(x: number, y: number): void {
    this.out.push(`L${this.number(x)} ${this.number(y)}`);
  }

  private curveTo(b: Float64Array): void {
    this.out.push(`C${this.number(b[2]!)} ${this.number(b[3]!)} ${this.number(b[4]!)} ${this.number(b[5]!)} ${this.number(b[6]!)} ${this.number(b[7]!)}`);
  }
}

function unit(x: number, y: number): [number, number] {
  const length = Math.sqrt(x * x + y * y);
  return length === 0 ? [0, 0] : [x / length, y / length];
}

/** Coordinate `axis` (0: x, 1: y) of the cubic Bézier b (x0 y0 … x3 y3) at parameter t. */
function bezierAt(b: Float64Array, axis: number, t: number): number {
  const s = 1 - t;
  return b[axis]! * s * s * s + 3 * b[axis + 2]! * t * s * s + 3 * b[axis + 4]! * t * t * s + b[axis + 6]! * t * t * t;
}
