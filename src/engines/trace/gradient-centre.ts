import { mainAxis } from './colour-axis.ts';

/**
 * Where a radial gradient starts its search (gradient-fit.ts): the centre of a quadratic fit of
 * the colour, as circles or as ellipses, and each point's radius around such a centre.
 */

/** Ellipses around a centre: the second axis is `ratio` times the first, which lies at `angle` from x. */
export interface Ring {
  cx: number;
  cy: number;
  ratio: number;
  angle: number;
}

/** Each point's elliptical radius (along the first axis) around a ring's centre, into `t`. */
export function ringPositions(ring: Ring, xs: Float32Array, ys: Float32Array, n: number, t: Float32Array): void {
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
export function quadraticEllipse(xs: Float32Array, ys: Float32Array, colours: Float32Array, n: number): Ring | undefined {
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

/** The centre of a least-squares fit c = a + b·x + c·y + d·(x² + y²) shared by the channels, if it curves. */
export function quadraticCentre(xs: Float32Array, ys: Float32Array, colours: Float32Array, n: number): { x: number; y: number } | undefined {
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
