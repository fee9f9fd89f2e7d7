import { quadraticCentre, quadraticEllipse, ringPositions, type Ring } from './gradient-centre.ts';
import type { Paint } from './gradient-paint.ts';
import { essentialStops, evaluate, fitStops, Profile, type ProfileStops } from './gradient-stops.ts';

/**
 * Gradients fitted to the cells of a smooth piece of an image (see smooth-regions.ts): the best of
 * a linear gradient (every direction over half a turn, the one whose colour profile along it
 * leaves the least error) and a radial one, circular (centred where a quadratic fit of the colour
 * peaks) or elliptical (axes from a full quadratic fit of the colour's main axis), its centre
 * refined by a pattern search (gradient-centre.ts). The colour along the chosen gradient is a
 * piecewise-linear fit of the profile with as few stops as keep it close (gradient-stops.ts).
 * Positions are cell centres on the analysis grid; the paint is in traced pixels.
 */

/** Directions tried for a linear gradient (over half a turn). */
const DIRECTIONS = 8;
/** Cells used to choose a gradient's direction and centre: enough for the choice, not all of a large piece. */
const SEARCH_CELLS = 800;

export interface Fit {
  paint: Paint;
  /** Squared error of the gradient over the piece's cells. */
  error: number;
  /** Residual colour of every cell (3 per cell, in the piece's order). */
  residual: Float32Array;
}

/** Cells as points: their centres on the analysis grid and their colours (3 per point). */
interface Points {
  xs: Float32Array;
  ys: Float32Array;
  colours: Float32Array;
  n: number;
}

/**
 * What the search steps share: the positions along the gradient being tried (one per cell; the
 * search fills the first of them, one per sampled cell) and the profile they are binned into.
 */
interface Workspace {
  t: Float32Array;
  profile: Profile;
}

/** The best linear or radial gradient for a piece's cells (positions at cell centres). */
export function fitGradient(cells: Int32Array, grid: { width: number; colour: Float32Array; k: number }): Fit {
  const points = cellPoints(cells, grid);
  // The search runs on a sample of the cells.
  const sample = everyNth(points, Math.max(1, Math.ceil(points.n / SEARCH_CELLS)));
  const work: Workspace = { t: new Float32Array(points.n), profile: new Profile() };
  const line = bestDirection(sample, work);
  const ring = bestRing(sample, points.n, line.error, work);
  if (ring) ringPositions(ring, points.xs, points.ys, points.n, work.t);
  else linePositions(points, line.angle, work.t);
  work.profile.fill(work.t, points.colours, points.n);
  const stops = fitStops(work.profile.points(Math.max(3, points.n / 300)));
  const { error, residual } = residualOf(points, stops, work.t);
  const paint = paintOf(stops, ring, line.angle, grid.k);
  paint.stops = essentialStops(paint.stops);
  return { paint, error, residual };
}

/** The cells' centres and colours. */
function cellPoints(cells: Int32Array, grid: { width: number; colour: Float32Array }): Points {
  const { width, colour } = grid;
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
  return { xs, ys, colours, n };
}

/** Every `stride`-th point, first included (the points themselves for a stride of 1). */
function everyNth(points: Points, stride: number): Points {
  if (stride === 1) return points;
  const { xs, ys, colours, n } = points;
  const sn = Math.ceil(n / stride);
  const sample: Points = { xs: new Float32Array(sn), ys: new Float32Array(sn), colours: new Float32Array(sn * 3), n: sn };
  for (let m = 0, s = 0; m < n; m += stride, s++) {
    sample.xs[s] = xs[m]!;
    sample.ys[s] = ys[m]!;
    sample.colours[s * 3] = colours[m * 3]!;
    sample.colours[s * 3 + 1] = colours[m * 3 + 1]!;
    sample.colours[s * 3 + 2] = colours[m * 3 + 2]!;
  }
  return sample;
}

/** Each point's position along direction `angle` (from x), into `t`. */
function linePositions(points: Points, angle: number, t: Float32Array): void {
  const dx = Math.cos(angle);
  const dy = Math.sin(angle);
  for (let i = 0; i < points.n; i++) t[i] = points.xs[i]! * dx + points.ys[i]! * dy;
}

/** Linear: every direction over half a turn, the one leaving the least error within bins, refined. */
function bestDirection(sample: Points, { t, profile }: Workspace): { angle: number; error: number } {
  const tryLine = (angle: number) => {
    linePositions(sample, angle, t);
    return profile.fill(t, sample.colours, sample.n);
  };
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
  return { angle: bestAngle, error: bestError };
}

/**
 * Radial: circles centred where c = a + b·x + c·y + d·(x² + y²) peaks (all channels together), or
 * ellipses from a full quadratic fit of the colour's main axis, each refined; the better of the
 * two, if it leaves clearly less error than the best line (`lineError`). `n` is the piece's
 * number of cells (the search's first step is a quarter of its size).
 */
function bestRing(sample: Points, n: number, lineError: number, work: Workspace): Ring | undefined {
  // A linear gradient that leaves almost nothing of a flat fill's error needs no rival.
  if (lineError <= flatError(sample.colours, sample.n) * 0.02) return undefined;
  const { xs, ys, colours } = sample;
  const ellipse = quadraticEllipse(xs, ys, colours, sample.n);
  const circle = quadraticCentre(xs, ys, colours, sample.n);
  let ring: Ring | undefined;
  let ringError = Infinity;
  for (const start of [ellipse, circle && { cx: circle.x, cy: circle.y, ratio: 1, angle: 0 }]) {
    if (!start) continue;
    const refined = refineRing(start, sample, n, work);
    if (refined.error < ringError) {
      ringError = refined.error;
      ring = refined.ring;
    }
  }
  return ring && ringError < lineError * 0.9 ? ring : undefined;
}

/**
 * A pattern search from `start`: the centre, the axes' angle and their ratio moved wherever that
 * leaves less error, in steps of a quarter of the piece's size, 0.2 rad and 25 %, halved down to a
 * cell or two.
 */
function refineRing(start: Ring, sample: Points, n: number, { t, profile }: Workspace): { ring: Ring; error: number } {
  const tryRing = (candidate: Ring) => {
    ringPositions(candidate, sample.xs, sample.ys, sample.n, t);
    return profile.fill(t, sample.colours, sample.n);
  };
  let current = start;
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
  return { ring: current, error };
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

/** What the stops leave of each point's colour (at its position `t`), and its squared sum. */
function residualOf(points: Points, stops: ProfileStops, t: Float32Array): { error: number; residual: Float32Array } {
  const { colours, n } = points;
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
  return { error, residual };
}

/** The gradient in traced pixels (`k` per cell): a ring's radial one, else the line's along `angle`. */
function paintOf(stops: ProfileStops, ring: Ring | undefined, angle: number, k: number): Paint {
  const first = stops.t[0]!;
  const last = stops.t[stops.t.length - 1]!;
  const rgb = (c: number[]) => c.map((v) => Math.round(v)) as [number, number, number];
  if (ring) {
    const r = Math.max(last, 1e-3);
    return {
      kind: 'radial',
      cx: ring.cx * k,
      cy: ring.cy * k,
      r: r * k,
      ratio: ring.ratio,
      angle: ring.angle,
      stops: stops.t.map((v, s) => ({ offset: Math.max(0, v / r), colour: rgb(stops.colour[s]!) })),
    };
  }
  const dx = Math.cos(angle);
  const dy = Math.sin(angle);
  const span = Math.max(last - first, 1e-3);
  return {
    kind: 'linear',
    x1: dx * first * k,
    y1: dy * first * k,
    x2: dx * (first + span) * k,
    y2: dy * (first + span) * k,
    stops: stops.t.map((v, s) => ({ offset: (v - first) / span, colour: rgb(stops.colour[s]!) })),
  };
}
