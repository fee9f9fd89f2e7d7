/** A gradient's stop: where along it, and its colour (sRGB, 0–255 a channel). */
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
  const at = colourAlong(paint.stops);
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

/** The colour at offset t of a gradient's stops (padded with its end colours), into `out`. */
function colourAlong(stops: GradientStop[]): (t: number, out: number[]) => void {
  const last = stops.length - 1;
  return (t, out) => {
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
}
