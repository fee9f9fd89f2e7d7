// The cubic-bezier timing function of CSS (and of SMIL keySplines), solved as browsers solve it:
// the curve runs from (0, 0) to (1, 1) through the control points (x1, y1) and (x2, y2); the
// output at x is the curve's y where its x equals x (Newton's method, then bisection).

/** The easing of `cubic-bezier(x1, y1, x2, y2)`. */
export function cubicBezier(x1: number, y1: number, x2: number, y2: number): (x: number) => number {
  return (x) => cubicBezierAt(x1, y1, x2, y2, x);
}

/**
 * The curve's y at x. Outside 0–1 (no animation asks for it: progress is clamped first) the curve
 * goes on along its tangent at the nearer end, as Chromium extends it.
 */
export function cubicBezierAt(x1: number, y1: number, x2: number, y2: number, x: number): number {
  if (x <= 0) return startGradient(x1, y1, x2, y2) * x;
  if (x >= 1) return 1 + endGradient(x1, y1, x2, y2) * (x - 1);
  // The curve in polynomial form, evaluated by Horner's rule.
  const cx = 3 * x1;
  const bx = 3 * (x2 - x1) - cx;
  const ax = 1 - cx - bx;
  const cy = 3 * y1;
  const by = 3 * (y2 - y1) - cy;
  const ay = 1 - cy - by;
  const sampleX = (t: number) => ((ax * t + bx) * t + cx) * t;
  const sampleY = (t: number) => ((ay * t + by) * t + cy) * t;
  const slopeX = (t: number) => (3 * ax * t + 2 * bx) * t + cx;
  let t = x;
  for (let i = 0; i < 8; i++) {
    const error = sampleX(t) - x;
    if (Math.abs(error) < 1e-7) return sampleY(t);
    const slope = slopeX(t);
    if (Math.abs(slope) < 1e-6) break;
    t -= error / slope;
  }
  // Newton's method did not settle (a flat stretch of the curve): bisect.
  let lo = 0;
  let hi = 1;
  t = x;
  for (let i = 0; i < 60; i++) {
    const value = sampleX(t);
    if (Math.abs(value - x) < 1e-9) break;
    if (value < x) lo = t;
    else hi = t;
    t = (lo + hi) / 2;
  }
  return sampleY(t);
}

function startGradient(x1: number, y1: number, x2: number, y2: number): number {
  if (x1 > 0) return y1 / x1;
  if (y1 === 0 && x2 > 0) return y2 / x2;
  return y1 === 0 && y2 === 0 ? 1 : 0;
}

function endGradient(x1: number, y1: number, x2: number, y2: number): number {
  if (x2 < 1) return (y2 - 1) / (x2 - 1);
  if (y2 === 1 && x1 < 1) return (y1 - 1) / (x1 - 1);
  return y2 === 1 && y1 === 1 ? 1 : 0;
}
