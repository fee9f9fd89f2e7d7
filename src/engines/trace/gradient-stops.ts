import type { GradientStop } from './gradient-paint.ts';

/**
 * The colour along a gradient: the cells' colours binned by their position along it (a profile),
 * and a piecewise-linear fit of that profile with as few stops as keep it within STOP_TOLERANCE,
 * each stop's colour solved by least squares.
 */

/** Stops are added until no point of the colour profile is further than this from the fit (per channel). */
const STOP_TOLERANCE = 6;
const MAX_STOPS = 5;

/** A colour profile's points: position, mean colour and the number of cells each stands for. */
export interface ProfilePoints {
  t: number[];
  colour: number[][];
  weight: number[];
}

/** Stop positions along a gradient and their colours (one entry each), before they become offsets. */
export interface ProfileStops {
  t: number[];
  colour: number[][];
}

/** A colour profile along a gradient: per bin of 1 cell, the count, colour sums and squared sums. */
export class Profile {
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
  points(least: number): ProfilePoints {
    const out: ProfilePoints = { t: [], colour: [], weight: [] };
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
export function fitStops(points: ProfilePoints): ProfileStops {
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
function solveStops(points: ProfilePoints, knots: number[]): number[][] {
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
export function evaluate(stops: ProfileStops, t: number, out: number[]): void {
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

/** Largest difference (per channel, 0–255) at which a stop counts as on the line between its neighbours. */
const STOP_REDUNDANCY = 2;

/**
 * The stops without those a gradient draws the same without: one on the straight line between
 * its neighbours, or beyond the last change at either end (a gradient pads with its end colours).
 */
export function essentialStops(stops: GradientStop[]): GradientStop[] {
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
