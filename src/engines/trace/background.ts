import type { RgbaImage } from './pixels.ts';

/** Colour distance (sum over the channels) within which a pixel is the background itself. */
const SAME = 24;
/** Share of the border that must be one colour for the background to count as plain. */
const PLAIN_BORDER = 0.6;

/**
 * Makes a plain background transparent: the colour most of the border has, wherever it is
 * connected to the border (a hole of that colour inside the subject stays). The subject's
 * anti-aliased edge against it becomes partly transparent with the background taken out of
 * its colour, so no halo of the old background is traced. An image that already has
 * transparency, or a border of many colours (a photograph, a scene), is left as it is.
 * Returns whether it removed anything.
 */
export function clearPlainBackground(image: RgbaImage): boolean {
  const { width, height, pixels } = image;
  const background = plainBorderColour(image);
  if (!background) return false;
  const [r0, g0, b0] = background;
  const distance = (i: number) => Math.abs(pixels[i]! - r0) + Math.abs(pixels[i + 1]! - g0) + Math.abs(pixels[i + 2]! - b0);
  // Flood fill from every border pixel of the background colour, over pixels of that colour.
  const cleared = new Uint8Array(width * height);
  const stack: number[] = [];
  const visit = (p: number) => {
    if (cleared[p] || distance(p * 4) > SAME) return;
    cleared[p] = 1;
    stack.push(p);
  };
  for (let x = 0; x < width; x++) (visit(x), visit((height - 1) * width + x));
  for (let y = 0; y < height; y++) (visit(y * width), visit(y * width + width - 1));
  while (stack.length > 0) {
    const p = stack.pop()!;
    const x = p % width;
    if (x > 0) visit(p - 1);
    if (x < width - 1) visit(p + 1);
    if (p >= width) visit(p - width);
    if (p < width * (height - 1)) visit(p + width);
  }
  let removed = false;
  for (let p = 0; p < cleared.length; p++) {
    if (cleared[p]) {
      pixels[p * 4 + 3] = 0;
      removed = true;
    }
  }
  if (removed) unblendEdges(image, cleared, background);
  return removed;
}

/**
 * The subject's anti-aliased edge is its colour mixed with the background: within two pixels of
 * the cleared background, each pixel's share of the subject (its alpha) is how far it lies from
 * the background towards the strongest subject colour near it (in a 5×5 window), and its colour
 * is that mix with the background taken out — so no halo of the old background is traced.
 */
function unblendEdges(image: RgbaImage, cleared: Uint8Array, [r0, g0, b0]: [number, number, number]): void {
  const { width, height, pixels } = image;
  const near = (p: number, marks: Uint8Array) => {
    const x = p % width;
    return (x > 0 && marks[p - 1]) || (x < width - 1 && marks[p + 1]) || (p >= width && marks[p - width]) || (p < width * (height - 1) && marks[p + width]);
  };
  // The edge: pixels touching the cleared background, and those touching them.
  const edge = new Uint8Array(cleared.length);
  for (let p = 0; p < cleared.length; p++) if (!cleared[p] && near(p, cleared)) edge[p] = 1;
  for (let p = 0; p < cleared.length; p++) if (!cleared[p] && !edge[p] && near(p, edge)) edge[p] = 2;
  const updates: [number, number, number, number, number][] = [];
  for (let p = 0; p < cleared.length; p++) {
    if (!edge[p]) continue;
    const x = p % width;
    const y = (p - x) / width;
    // The strongest colour nearby, away from the background: the subject's own.
    let best = -1;
    let bestDistance = 0;
    for (let dy = -2; dy <= 2; dy++) {
      for (let dx = -2; dx <= 2; dx++) {
        const nx = x + dx;
        const ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
        const q = ny * width + nx;
        if (cleared[q]) continue;
        const i = q * 4;
        const d = (pixels[i]! - r0) ** 2 + (pixels[i + 1]! - g0) ** 2 + (pixels[i + 2]! - b0) ** 2;
        if (d > bestDistance) [best, bestDistance] = [q, d];
      }
    }
    if (best < 0 || bestDistance < SAME * SAME) continue;
    const i = p * 4;
    const s = best * 4;
    const dot = (pixels[i]! - r0) * (pixels[s]! - r0) + (pixels[i + 1]! - g0) * (pixels[s + 1]! - g0) + (pixels[i + 2]! - b0) * (pixels[s + 2]! - b0);
    const alpha = Math.max(1 / 255, Math.min(1, dot / bestDistance));
    if (alpha > 0.97) continue;
    const unmix = (value: number, base: number) => Math.max(0, Math.min(255, Math.round((value - (1 - alpha) * base) / alpha)));
    updates.push([i, unmix(pixels[i]!, r0), unmix(pixels[i + 1]!, g0), unmix(pixels[i + 2]!, b0), Math.round(pixels[i + 3]! * alpha)]);
  }
  // Written after every estimate, so no estimate reads a pixel already changed.
  for (const [i, r, g, b, a] of updates) {
    pixels[i] = r;
    pixels[i + 1] = g;
    pixels[i + 2] = b;
    pixels[i + 3] = a;
  }
}

/** The colour most of an opaque image's border has, if it is most of it; undefined otherwise. */
function plainBorderColour({ width, height, pixels }: RgbaImage): [number, number, number] | undefined {
  const border: number[] = [];
  for (let x = 0; x < width; x++) border.push(x, (height - 1) * width + x);
  for (let y = 1; y < height - 1; y++) border.push(y * width, y * width + width - 1);
  // Colours counted at 5 bits a channel: a JPEG's noise stays within one bucket or its neighbour.
  const counts = new Map<number, number>();
  for (const p of border) {
    if (pixels[p * 4 + 3]! < 250) return undefined; // transparent already
    const key = ((pixels[p * 4]! >> 3) << 10) | ((pixels[p * 4 + 1]! >> 3) << 5) | (pixels[p * 4 + 2]! >> 3);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let best = 0;
  let bestKey = 0;
  for (const [key, count] of counts) if (count > best) [best, bestKey] = [count, key];
  const centre: [number, number, number] = [((bestKey >> 10) << 3) + 4, (((bestKey >> 5) & 31) << 3) + 4, ((bestKey & 31) << 3) + 4];
  // The mean of the border pixels near that bucket: the background's colour, not the bucket's.
  const sum: [number, number, number] = [0, 0, 0];
  let near = 0;
  for (const p of border) {
    const i = p * 4;
    if (Math.abs(pixels[i]! - centre[0]) + Math.abs(pixels[i + 1]! - centre[1]) + Math.abs(pixels[i + 2]! - centre[2]) > SAME) continue;
    sum[0] += pixels[i]!;
    sum[1] += pixels[i + 1]!;
    sum[2] += pixels[i + 2]!;
    near++;
  }
  if (near < border.length * PLAIN_BORDER) return undefined;
  return [Math.round(sum[0] / near), Math.round(sum[1] / near), Math.round(sum[2] / near)];
}
