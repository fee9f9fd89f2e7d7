/**
 * Gradients fitted to the cells of a smooth piece of an image (see smooth-regions.ts): the best of
 * a linear gradient (every direction over half a turn, the one whose colour profile along it
 * leaves the least error) and a radial one, circular (centred where a quadratic fit of the colour
 * peaks) or elliptical (axes from a full quadratic fit of the colour's main axis), its centre
 * refined by a pattern search. The colour along the chosen gradient is a piecewise-linear fit of
 * the profile with as few stops as keep it within STOP_TOLERANCE, each stop's colour solved by
 * least squares. Positions are cell centres on the analysis grid; the paint is in traced pixels.
 */

export interface GradientStop {
  /** 0–1 along the gradient. */
  offset: number;
  colour: [number, number, number];
}

/** A gradient in the traced image's pixel coordinates (gradientUnits="userSpaceOnUse"). */
export type Paint =
  | { kind: 'linear'; x1: number; y1: number; x2: number; y2: number; stops: GradientStop[] }
  | {
      kind: 'radial';
      cx: number;
      cy: number;
      /** Radius along the ellipse's first axis, at `angle` (radians) from x. */
      r: number;
      /** The second axis over the first (1: a circle). */
      ratio: number;
      angle: number;
      stops: GradientStop[];
    };

/** Stops are added until no point of the colour profile is further than this from the fit (per channel). */
const STOP_TOLERANCE = 6;
const MAX_STOPS = 5;
/** Directions tried for a linear gradient (over half a turn). */
const DIRECTIONS = 8;

/** A colour profile along a gradient: per bin of 1 cell, the count, colour sums and squared sums. */
class Profile {
  bins = 0;
  start = 0;
  count = new Float64Array(0);
  sum = new Float64Array(0);
  squares = new Float64Array(0);

  /** Fills the profile from positions `t` of the region's cells; returns the error left within bins. */
  fill(t: Float32Array, colours: Float32Array, n: number): number {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const v = t[i]!;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    this.start = lo;
    this.bins = Math.floor(hi - lo) + 1;
    if (this.count.length < this.bins) {
      this.count = new Float64Array(this.bins);
      this.sum = new Float64Array(this.bins * 3);
      this.squares = new Float64Array(this.bins * 3);
    } else {
      this.count.fill(0, 0, this.bins);
      this.sum.fill(0, 0, this.bins * 3);
      this.squares.fill(0, 0, this.bins * 3);
    }
    for (let i = 0; i < n; i++) {
      const b = Math.floor(t[i]! - lo);
      this.count[b]!++;
      for (let c = 0; c < 3; c++) {
        const v = colours[i * 3 + c]!;
        this.sum[b * 3 + c]! += v;
        this.squares[b * 3 + c]! += v * v;
      }
    }
    let error = 0;
    for (let b = 0; b < this.bins; b++) {
      const m = this.count[b]!;
      if (m === 0) continue;
      for (let c = 0; c < 3; c++) error += this.squares[b * 3 + c]! - this.sum[b * 3 + c]! ** 2 / m;
    }
    return error;
  }

  /** Bins merged until each point stands for at least `least` cells: (position, colour, weight). */
  points(least: number): { t: number[]; colour: number[][]; weight: number[] } {
    const out = { t: [] as number[], colour: [] as number[][], weight: [] as number[] };
    let m = 0;
    let tSum = 0;
    const s = [0, 0, 0];
    for (let b = 0; b < this.bins; b++) {
      const c = this.count[b]!;
      if (c === 0) continue;
      m += c;
      tSum += c * (this.start + b + 0.5);
      for (let ch = 0; ch < 3; ch++) s[ch]! += this.sum[b * 3 + ch]!;
      if (m >= least || b === this.bins - 1) {
        out.t.push(tSum / m);
        out.colour.push(s.map((v) => v / m));
        out.weight.push(m);
        m = 0;
        tSum = 0;
        s.fill(0);
      }
    }
    // a last point standing for few cells joins the one before it
    if (out.t.length >= 2 && out.weight[out.weight.length - 1]! < least) {
      const a = out.t.length - 2;
      const wa = out.weight[a]!;
      const wb = out.weight[a + 1]!;
      out.t[a] = (out.t[a]! * wa + out.t[a + 1]! * wb) / (wa + wb);
      out.colour[a] = out.colour[a]!.map((v, ch) => (v * wa + out.colour[a + 1]![ch]! * wb) / (wa + wb));
      out.weight[a] = wa + wb;
      out.t.pop();
      out.colour.pop();
      out.weight.pop();
    }
    return out;
  }
}

/** Stops of a piecewise-linear fit to a colour profile: few, each colour a least-squares fit. */
function fitStops(points: { t: number[]; colour: number[][]; weight: number[] }): { t: number[]; colour: number[][] } {
  const n = points.t.length;
  if (n === 1) return { t: [points.t[0]!, points.t[0]! + 1], colour: [points.colour[0]!, points.colour[0]!] };
  let knots = [0, n - 1];
  let colours = solveStops(points, knots);
  while (knots.length < MAX_STOPS) {
    let worst = -1;
    let worstError = STOP_TOLERANCE;
    for (let s = 0; s + 1 < knots.length; s++) {
      const a = knots[s]!;
      const b = knots[s + 1]!;
      for (let i = a + 1; i < b; i++) {
        const f = (points.t[i]! - points.t[a]!) / (points.t[b]! - points.t[a]!);
        for (let c = 0; c < 3; c++) {
          const e = Math.abs(points.colour[i]![c]! - (colours[s]![c]! * (1 - f) + colours[s + 1]![c]! * f));
          if (e > worstError) {
            worstError = e;
            worst = i;
          }
        }
      }
    }
    if (worst < 0) break;
    knots = [...knots, worst].sort((x, y) => x - y);
    colours = solveStops(points, knots);
  }
  return { t: knots.map((i) => points.t[i]!), colour: colours };
}

/** Least-squares colours at the knots of a piecewise-linear fit (a tridiagonal system per channel). */
function solveStops(points: { t: number[]; colour: number[][]; weight: number[] }, knots: number[]): number[][] {
  const m = knots.length;
  const diag = new Float64Array(m);
  const off = new Float64Array(m);
  const rhs = Array.from({ length: 3 }, () => new Float64Array(m));
  for (let s = 0; s + 1 < m; s++) {
    const a = knots[s]!;
    const b = knots[s + 1]!;
    const span = points.t[b]! - points.t[a]!;
    for (let i = a; i < (s + 2 === m ? b + 1 : b); i++) {
      const f = (points.t[i]! - points.t[a]!) / span;
      const w = points.weight[i]!;
      diag[s]! += w * (1 - f) * (1 - f);
      diag[s + 1]! += w * f * f;
      off[s]! += w * f * (1 - f);
      for (let c = 0; c < 3; c++) {
        rhs[c]![s]! += w * (1 - f) * points.colour[i]![c]!;
        rhs[c]![s + 1]! += w * f * points.colour[i]![c]!;
      }
    }
  }
  const out = Array.from({ length: m }, () => [0, 0, 0]);
  for (let c = 0; c < 3; c++) {
    // Thomas algorithm on the symmetric tridiagonal system
    const cp = new Float64Array(m);
    const dp = new Float64Array(m);
    for (let s = 0; s < m; s++) {
      const below = s > 0 ? off[s - 1]! : 0;
      const denominator = diag[s]! - below * (s > 0 ? cp[s - 1]! : 0) || 1e-9;
      cp[s] = off[s]! / denominator;
      dp[s] = (rhs[c]![s]! - below * (s > 0 ? dp[s - 1]! : 0)) / denominator;
    }
    for (let s = m - 1; s >= 0; s--) out[s]![c] = dp[s]! - (s < m - 1 ? cp[s]! * out[s + 1]![c]! : 0);
    for (let s = 0; s < m; s++) out[s]![c] = Math.max(0, Math.min(255, out[s]![c]!));
  }
  return out;
}

/** Colour at position t of a piecewise-linear profile (constant beyond its ends), into `out`. */
function evaluate(stops: { t: number[]; colour: number[][] }, t: number, out: number[]): void {
  const { t: ts, colour } = stops;
  const last = ts.length - 1;
  if (t <= ts[0]!) {
    for (let c = 0; c < 3; c++) out[c] = colour[0]![c]!;
    return;
  }
  if (t >= ts[last]!) {
    for (let c = 0; c < 3; c++) out[c] = colour[last]![c]!;
    return;
  }
  let s = 0;
  while (ts[s + 1]! < t) s++;
  const f = (t - ts[s]!) / (ts[s + 1]! - ts[s]!);
  for (let c = 0; c < 3; c++) out[c] = colour[s]![c]! * (1 - f) + colour[s + 1]![c]! * f;
}

export interface Fit {
  paint: Paint;
  /** Squared error of the gradient over the piece's cells. */
  error: number;
  /** Residual colour of every cell (3 per cell, in the piece's order). */
  residual: Float32Array;
}

/** Cells used to choose a gradient's direction and centre: enough for the choice, not all of a large piece. */
const SEARCH_CELLS = 800;

/** The best linear or radial gradient for a piece's cells (positions at cell centres). */
export function fitGradient(cells: Int32Array, grid: { width: number; colour: Float32Array; k: number }): Fit {
  const { width, colour, k } = grid;
  const n = cells.length;
  const xs = new Float32Array(n);
  const ys = new Float32Array(n);
  const colours = new Float32Array(n * 3);
  for (let m = 0; m < n; m++) {
    const i = cells[m]!;
    const x = i % width;
    xs[m] = x + 0.5;
    ys[m] = (i - x) / width + 0.5;
    colours[m * 3] = colour[i * 3]!;
    colours[m * 3 + 1] = colour[i * 3 + 1]!;
    colours[m * 3 + 2] = colour[i * 3 + 2]!;
  }
  // The search runs on a sample of the cells.
  const stride = Math.max(1, Math.ceil(n / SEARCH_CELLS));
  const sn = Math.ceil(n / stride);
  const sx = stride === 1 ? xs : new Float32Array(sn);
  const sy = stride === 1 ? ys : new Float32Array(sn);
  const sc = stride === 1 ? colours : new Float32Array(sn * 3);
  if (stride > 1) {
    for (let m = 0, s = 0; m < n; m += stride, s++) {
      sx[s] = xs[m]!;
      sy[s] = ys[m]!;
      sc[s * 3] = colours[m * 3]!;
      sc[s * 3 + 1] = colours[m * 3 + 1]!;
      sc[s * 3 + 2] = colours[m * 3 + 2]!;
    }
  }
  const t = new Float32Array(n);
  const profile = new Profile();
  const tryLine = (angle: number) => {
    const dx = Math.cos(angle);
    const dy = Math.sin(angle);
    for (let i = 0; i < sn; i++) t[i] = sx[i]! * dx + sy[i]! * dy;
    return profile.fill(t, sc, sn);
  };
  // Linear: every direction over half a turn, the one leaving the least error within bins, refined.
  let bestAngle = 0;
  let bestError = Infinity;
  for (let d = 0; d < DIRECTIONS; d++) {
    const angle = (Math.PI * d) / DIRECTIONS;
    const error = tryLine(angle);
    if (error < bestError) [bestError, bestAngle] = [error, angle];
  }
  for (const step of [-0.5, -0.25, 0.25, 0.5]) {
    const angle = bestAngle + (step * Math.PI) / DIRECTIONS;
    const error = tryLine(angle);
    if (error < bestError) [bestError, bestAngle] = [error, angle];
  }
  // Radial: circles centred where c = a + b·x + c·y + d·(x² + y²) peaks (all channels
  // together), or ellipses from a full quadratic fit of the colour's main axis; each then moved
  // (centre, axes' angle and ratio) wherever that leaves less error, in steps of a quarter of the
  // piece's size, 0.2 rad and 25 %, halved down to a cell or two.
  let ring: Ring | undefined;
  let ringError = Infinity;
  // A linear gradient that leaves almost nothing of a flat fill's error needs no rival.
  const nearlyExact = bestError <= flatError(sc, sn) * 0.02;
  const ellipse = nearlyExact ? undefined : quadraticEllipse(sx, sy, sc, sn);
  const circle = nearlyExact ? undefined : quadraticCentre(sx, sy, sc, sn);
  for (const start of [ellipse, circle && { cx: circle.x, cy: circle.y, ratio: 1, angle: 0 }]) {
    if (!start) continue;
    let current = start;
    const tryRing = (candidate: Ring) => {
      ringPositions(candidate, sx, sy, sn, t);
      return profile.fill(t, sc, sn);
    };
    let error = tryRing(current);
    for (let step = Math.max(2, Math.sqrt(n) / 4), turn = 0.2, stretch = 1.25; step >= 1.5; step /= 2, turn /= 2, stretch = Math.sqrt(stretch)) {
      for (let move = 0; move < 8; move++) {
        const candidate = { ...current };
        if (move < 4) move < 2 ? (candidate.cx += move === 0 ? step : -step) : (candidate.cy += move === 2 ? step : -step);
        else if (move < 6) candidate.angle += move === 4 ? turn : -turn;
        else candidate.ratio *= move === 6 ? stretch : 1 / stretch;
        const e = tryRing(candidate);
        if (e < error) {
          error = e;
          current = candidate;
        }
      }
    }
    if (error < ringError) {
      ringError = error;
      ring = current;
    }
  }
  if (ring && !(ringError < bestError * 0.9)) ring = undefined;
  const dx = Math.cos(bestAngle);
  const dy = Math.sin(bestAngle);
  if (ring) ringPositions(ring, xs, ys, n, t);
  else for (let i = 0; i < n; i++) t[i] = xs[i]! * dx + ys[i]! * dy;
  profile.fill(t, colours, n);
  const stops = fitStops(profile.points(Math.max(3, n / 300)));
  let error = 0;
  const residual = new Float32Array(n * 3);
  const predicted = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    evaluate(stops, t[i]!, predicted);
    for (let c = 0; c < 3; c++) {
      const e = colours[i * 3 + c]! - predicted[c]!;
      residual[i * 3 + c] = e;
      error += e * e;
    }
  }
  const first = stops.t[0]!;
  const last = stops.t[stops.t.length - 1]!;
  const rgb = (c: number[]) => c.map((v) => Math.round(v)) as [number, number, number];
  let paint: Paint;
  if (ring) {
    const r = Math.max(last, 1e-3);
    paint = {
      kind: 'radial',
      cx: ring.cx * k,
      cy: ring.cy * k,
      r: r * k,
      ratio: ring.ratio,
      angle: ring.angle,
      stops: stops.t.map((v, s) => ({ offset: Math.max(0, v / r), colour: rgb(stops.colour[s]!) })),
    };
  } else {
    const span = Math.max(last - first, 1e-3);
    paint = {
      kind: 'linear',
      x1: dx * first * k,
      y1: dy * first * k,
      x2: dx * (first + span) * k,
      y2: dy * (first + span) * k,
      stops: stops.t.map((v, s) => ({ offset: (v - first) / span, colour: rgb(stops.colour[s]!) })),
    };
  }
  paint.stops = essentialStops(paint.stops);
  return { paint, error, residual };
}

/** Largest difference (per channel, 0–255) at which a stop counts as on the line between its neighbours. */
const STOP_REDUNDANCY = 2;

/**
 * The stops without those a gradient draws the same without: one on the straight line between
 * its neighbours, or beyond the last change at either end (a gradient pads with its end colours).
 */
function essentialStops(stops: GradientStop[]): GradientStop[] {
  const kept = [stops[0]!];
  for (let s = 1; s < stops.length - 1; s++) {
    const a = kept[kept.length - 1]!;
    const b = stops[s]!;
    const c = stops[s + 1]!;
    const f = c.offset > a.offset ? (b.offset - a.offset) / (c.offset - a.offset) : 0;
    const redundant = [0, 1, 2].every((ch) => Math.abs(b.colour[ch]! - (a.colour[ch]! * (1 - f) + c.colour[ch]! * f)) <= STOP_REDUNDANCY);
    if (!redundant) kept.push(b);
  }
  if (stops.length > 1) kept.push(stops[stops.length - 1]!);
  const same = (a: GradientStop, b: GradientStop) => [0, 1, 2].every((ch) => Math.abs(a.colour[ch]! - b.colour[ch]!) <= STOP_REDUNDANCY);
  while (kept.length > 2 && same(kept[kept.length - 1]!, kept[kept.length - 2]!)) kept.pop();
  while (kept.length > 2 && same(kept[0]!, kept[1]!)) kept.shift();
  return kept;
}

/** Squared error of a flat fill (the mean colour) over n colours. */
function flatError(colours: Float32Array, n: number): number {
  let error = 0;
  for (let c = 0; c < 3; c++) {
    let sum = 0;
    let squares = 0;
    for (let i = 0; i < n; i++) {
      const v = colours[i * 3 + c]!;
      sum += v;
      squares += v * v;
    }
    error += squares - (sum * sum) / n;
  }
  return error;
}

/** Ellipses around a centre: the second axis is `ratio` times the first, which lies at `angle` from x. */
interface Ring {
  cx: number;
  cy: number;
  ratio: number;
  angle: number;
}

/** Each point's elliptical radius (along the first axis) around a ring's centre, into `t`. */
function ringPositions(ring: Ring, xs: Float32Array, ys: Float32Array, n: number, t: Float32Array): void {
  const cos = Math.cos(ring.angle);
  const sin = Math.sin(ring.angle);
  const inverse = 1 / ring.ratio;
  for (let i = 0; i < n; i++) {
    const x = xs[i]! - ring.cx;
    const y = ys[i]! - ring.cy;
    const u = x * cos + y * sin;
    const v = (y * cos - x * sin) * inverse;
    t[i] = Math.sqrt(u * u + v * v); // not Math.hypot: several times slower
  }
}

/**
 * Ellipses from a least-squares fit s = a + b·x + c·y + d·x² + e·y² + f·x·y of the colour along its
 * main axis: centred where it peaks, axes along the quadratic form's eigenvectors, their ratio from
 * its eigenvalues. Undefined unless the form curves the same way along both (a bowl, not a saddle).
 */
function quadraticEllipse(xs: Float32Array, ys: Float32Array, colours: Float32Array, n: number): Ring | undefined {
  const axis = mainAxis(colours, n);
  const { mx, my, scale } = centredFrame(xs, ys, n);
  const ata = new Float64Array(36);
  const atb = new Float64Array(6);
  const row = new Float64Array(6);
  for (let i = 0; i < n; i++) {
    const x = (xs[i]! - mx) / scale;
    const y = (ys[i]! - my) / scale;
    row[0] = 1;
    row[1] = x;
    row[2] = y;
    row[3] = x * x;
    row[4] = y * y;
    row[5] = x * y;
    const v = colours[i * 3]! * axis[0]! + colours[i * 3 + 1]! * axis[1]! + colours[i * 3 + 2]! * axis[2]!;
    for (let a = 0; a < 6; a++) {
      const ra = row[a]!;
      for (let b = a; b < 6; b++) ata[a * 6 + b]! += ra * row[b]!;
      atb[a]! += ra * v;
    }
  }
  for (let a = 0; a < 6; a++) for (let b = 0; b < a; b++) ata[a * 6 + b] = ata[b * 6 + a]!;
  const q = solve(ata, atb, 6);
  if (!q) return undefined;
  const [, b, c, d, e, f] = q as [number, number, number, number, number, number];
  // centre: gradient zero, [2d f; f 2e]·p = −[b c]
  const det = 4 * d * e - f * f;
  if (det <= 1e-9) return undefined; // not a bowl (or flat)
  const px = (-2 * e * b + f * c) / det;
  const py = (-2 * d * c + f * b) / det;
  const angle = 0.5 * Math.atan2(f, d - e);
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const l1 = d * cos * cos + f * sin * cos + e * sin * sin;
  const l2 = d * sin * sin - f * sin * cos + e * cos * cos;
  if (l1 * l2 <= 0) return undefined;
  const ratio = Math.sqrt(l1 / l2);
  if (!(ratio > 0.2 && ratio < 5) || Math.abs(px) > 3 || Math.abs(py) > 3) return undefined;
  return { cx: mx + px * scale, cy: my + py * scale, ratio, angle };
}

/** The main axis of a set of colours (power iteration on their scatter about the mean), unit length. */
export function mainAxis(colours: Float32Array, n: number): number[] {
  const mean = [0, 0, 0];
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) mean[c]! += colours[i * 3 + c]!;
  for (let c = 0; c < 3; c++) mean[c]! /= n;
  const cov = new Float64Array(9);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) for (let b = a; b < 3; b++) cov[a * 3 + b]! += (colours[i * 3 + a]! - mean[a]!) * (colours[i * 3 + b]! - mean[b]!);
  }
  cov[3] = cov[1]!;
  cov[6] = cov[2]!;
  cov[7] = cov[5]!;
  let axis = [0.58, 0.58, 0.58];
  for (let iteration = 0; iteration < 16; iteration++) {
    const next = [0, 1, 2].map((r) => cov[r * 3]! * axis[0]! + cov[r * 3 + 1]! * axis[1]! + cov[r * 3 + 2]! * axis[2]!);
    const length = Math.hypot(...next);
    if (!(length > 0)) break;
    axis = next.map((v) => v / length);
  }
  return axis;
}

/** The centre of a least-squares fit c = a + b·x + c·y + d·(x² + y²) shared by the channels, if it curves. */
function quadraticCentre(xs: Float32Array, ys: Float32Array, colours: Float32Array, n: number): { x: number; y: number } | undefined {
  const { mx, my, scale } = centredFrame(xs, ys, n);
  const ata = new Float64Array(16);
  const atb = new Float64Array(12);
  for (let i = 0; i < n; i++) {
    const x = (xs[i]! - mx) / scale;
    const y = (ys[i]! - my) / scale;
    const q = x * x + y * y;
    const row0 = 1;
    ata[0]! += 1;
    ata[1]! += x;
    ata[2]! += y;
    ata[3]! += q;
    ata[5]! += x * x;
    ata[6]! += x * y;
    ata[7]! += x * q;
    ata[10]! += y * y;
    ata[11]! += y * q;
    ata[15]! += q * q;
    for (let c = 0; c < 3; c++) {
      const v = colours[i * 3 + c]!;
      atb[c * 4]! += row0 * v;
      atb[c * 4 + 1]! += x * v;
      atb[c * 4 + 2]! += y * v;
      atb[c * 4 + 3]! += q * v;
    }
  }
  for (let a = 0; a < 4; a++) for (let b = 0; b < a; b++) ata[a * 4 + b] = ata[b * 4 + a]!;
  let nx = 0;
  let ny = 0;
  let den = 0;
  for (let c = 0; c < 3; c++) {
    const coefficients = solve(ata, atb.subarray(c * 4, c * 4 + 4), 4);
    if (!coefficients) return undefined;
    const [, b, cc, d] = coefficients as [number, number, number, number];
    // b = -2 d x0, c = -2 d y0: x0 = -Σ b d / (2 Σ d²)
    nx -= b * d;
    ny -= cc * d;
    den += 2 * d * d;
  }
  if (den < 1e-6) return undefined;
  const x = mx + (nx / den) * scale;
  const y = my + (ny / den) * scale;
  if (!Number.isFinite(x) || !Number.isFinite(y)) return undefined;
  // A centre far outside the piece makes a gradient that the linear one already covers.
  if (Math.abs(x - mx) > scale * 3 || Math.abs(y - my) > scale * 3) return undefined;
  return { x, y };
}

/** Solves an n×n system by Gauss–Jordan elimination with partial pivoting. */
function solve(matrix: Float64Array, rhs: Float64Array, size: number): number[] | undefined {
  const a = Array.from({ length: size }, (_, r) => [...matrix.subarray(r * size, r * size + size), rhs[r]!]);
  for (let col = 0; col < size; col++) {
    let pivot = col;
    for (let r = col + 1; r < size; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    if (Math.abs(a[pivot]![col]!) < 1e-9) return undefined;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    for (let r = 0; r < size; r++) {
      if (r === col) continue;
      const f = a[r]![col]! / a[col]![col]!;
      for (let c = col; c <= size; c++) a[r]![c]! -= f * a[col]![c]!;
    }
  }
  return a.map((r, i) => r[size]! / r[i]!);
}

/** A function giving a fill's colour at a point of the traced image, its constants worked out once. */
export function evaluator(paint: Paint | string): (x: number, y: number, out: number[]) => void {
  if (typeof paint === 'string') {
    const colour = [0, 1, 2].map((c) => parseInt(paint.slice(1 + 2 * c, 3 + 2 * c), 16));
    return (_x, _y, out) => {
      out[0] = colour[0]!;
      out[1] = colour[1]!;
      out[2] = colour[2]!;
    };
  }
  const stops = paint.stops;
  const last = stops.length - 1;
  const at = (t: number, out: number[]) => {
    if (t <= stops[0]!.offset) {
      for (let c = 0; c < 3; c++) out[c] = stops[0]!.colour[c]!;
      return;
    }
    if (t >= stops[last]!.offset) {
      for (let c = 0; c < 3; c++) out[c] = stops[last]!.colour[c]!;
      return;
    }
    let s = 0;
    while (stops[s + 1]!.offset < t) s++;
    const a = stops[s]!;
    const b = stops[s + 1]!;
    const f = (t - a.offset) / (b.offset - a.offset || 1);
    for (let c = 0; c < 3; c++) out[c] = a.colour[c]! * (1 - f) + b.colour[c]! * f;
  };
  if (paint.kind === 'linear') {
    const { x1, y1 } = paint;
    const dx = paint.x2 - x1;
    const dy = paint.y2 - y1;
    const length2 = dx * dx + dy * dy || 1;
    return (x, y, out) => at(((x - x1) * dx + (y - y1) * dy) / length2, out);
  }
  const { cx, cy, r, ratio } = paint;
  const cos = Math.cos(paint.angle);
  const sin = Math.sin(paint.angle);
  return (x, y, out) => {
    const u = x - cx;
    const v = y - cy;
    const a = u * cos + v * sin;
    const b = (v * cos - u * sin) / ratio;
    at(Math.sqrt(a * a + b * b) / r, out);
  };
}

/** The points' centroid and largest offset from it: centred, scaled coordinates keep the normal equations well conditioned. */
function centredFrame(xs: Float32Array, ys: Float32Array, n: number): { mx: number; my: number; scale: number } {
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += xs[i]!;
    my += ys[i]!;
  }
  mx /= n;
  my /= n;
  let scale = 0;
  for (let i = 0; i < n; i++) scale = Math.max(scale, Math.abs(xs[i]! - mx), Math.abs(ys[i]! - my));
  return { mx, my, scale: scale || 1 };
}
