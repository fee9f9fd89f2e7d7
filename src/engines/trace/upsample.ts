/**
 * Integer-factor bicubic upsampling of one 8-bit channel, byte for byte what sharp's
 * `resize(width * factor, height * factor, { kernel: 'cubic' })` gives (libvips' bicubic
 * interpolator: Catmull-Rom weights truncated to 12-bit fixed point, sub-pixel positions in
 * 1/64 steps, rows first, edges extended), without sharp's fixed cost per call: on a small
 * icon's mask that cost was most of the trace. test/trace/upsample.test.ts holds the two equal.
 */

const WEIGHT_SHIFT = 12;
const WEIGHT_ONE = 1 << WEIGHT_SHIFT;
const WEIGHT_HALF = 1 << (WEIGHT_SHIFT - 1);
/** libvips rounds a sub-pixel position to this many steps per pixel before looking up its weights. */
const POSITION_STEPS = 64;

/** libvips' Catmull-Rom weights of the four taps around a position `x` (0–1) past the second. */
function catmullRom(x: number): [number, number, number, number] {
  const cr1 = 1 - x;
  const cr2 = -0.5 * x;
  const cr3 = cr1 * cr2;
  const first = cr1 * cr3;
  const fourth = x * cr3;
  const cr4 = fourth - first;
  return [first, cr1 - first + cr4, x - fourth - cr4, fourth];
}

/** Where output pixel `k·factor + phase` reads from: its first tap (relative to k) and the taps' weights. */
interface Phase {
  firstTap: number;
  weights: [number, number, number, number];
}

function phases(factor: number): Phase[] {
  return Array.from({ length: factor }, (_, phase) => {
    const position = phase / factor - 0.5; // sharp's sampling grid for an integer upscale
    const base = Math.floor(position);
    const step = (Math.floor((position - base) * POSITION_STEPS * 2) + 1) >> 1;
    const weights = catmullRom(step / POSITION_STEPS).map((w) => Math.trunc(w * WEIGHT_ONE)) as Phase['weights'];
    return { firstTap: base - 1, weights };
  });
}

const clampIndex = (index: number, length: number) => (index < 0 ? 0 : index >= length ? length - 1 : index);

/** `channel` (width×height, one byte per pixel) scaled up by `factor` in both directions. */
export function upsampleCubic(channel: Uint8Array, width: number, height: number, factor: number): Buffer {
  if (!(Number.isInteger(factor) && factor >= 1)) throw new RangeError(`upsampleCubic takes an integer factor ≥ 1 (got ${factor}).`);
  if (factor === 1) return Buffer.from(channel); // sharp leaves the pixels as they are
  const outWidth = width * factor;
  const outHeight = height * factor;
  const taps = phases(factor);
  // Each output column's four source columns and weights, worked out once for every row.
  const columns = new Int32Array(outWidth * 4);
  const columnWeights = new Int32Array(outWidth * 4);
  for (let x = 0; x < outWidth; x++) {
    const { firstTap, weights } = taps[x % factor]!;
    const k = (x - (x % factor)) / factor + firstTap;
    for (let i = 0; i < 4; i++) {
      columns[x * 4 + i] = clampIndex(k + i, width);
      columnWeights[x * 4 + i] = weights[i]!;
    }
  }
  // Rows first, kept unclamped between the passes as libvips keeps them (Catmull-Rom overshoots).
  const rows = new Int16Array(height * outWidth);
  for (let y = 0; y < height; y++) {
    const from = y * width;
    const to = y * outWidth;
    for (let x = 0, t = 0; x < outWidth; x++, t += 4) {
      const sum =
        columnWeights[t]! * channel[from + columns[t]!]! +
        columnWeights[t + 1]! * channel[from + columns[t + 1]!]! +
        columnWeights[t + 2]! * channel[from + columns[t + 2]!]! +
        columnWeights[t + 3]! * channel[from + columns[t + 3]!]!;
      rows[to + x] = (sum + WEIGHT_HALF) >> WEIGHT_SHIFT;
    }
  }
  const out = Buffer.allocUnsafe(outWidth * outHeight);
  for (let y = 0; y < outHeight; y++) {
    const { firstTap, weights } = taps[y % factor]!;
    const k = (y - (y % factor)) / factor + firstTap;
    const r0 = clampIndex(k, height) * outWidth;
    const r1 = clampIndex(k + 1, height) * outWidth;
    const r2 = clampIndex(k + 2, height) * outWidth;
    const r3 = clampIndex(k + 3, height) * outWidth;
    const [w0, w1, w2, w3] = weights;
    const to = y * outWidth;
    for (let x = 0; x < outWidth; x++) {
      const value = (w0 * rows[r0 + x]! + w1 * rows[r1 + x]! + w2 * rows[r2 + x]! + w3 * rows[r3 + x]! + WEIGHT_HALF) >> WEIGHT_SHIFT;
      out[to + x] = value < 0 ? 0 : value > 255 ? 255 : value;
    }
  }
  return out;
}
