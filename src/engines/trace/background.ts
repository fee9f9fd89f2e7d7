import type { RgbaImage } from './pixels.ts';

/** Colour distance (sum over the channels) within which a pixel is the background itself. */
const SAME = 24;
/** How close (sum over the channels) border pixels must be to the border's colour to count. */
const PLAIN = 12;
/**
 * Share of the border that must be that one colour for the background to count as plain: a
 * subject may touch the border (a logo, a puddle under a duck); a wallpaper's or a photograph's
 * border is far more varied (at most 0.71 over the tracer's benchmark set, against 0.75 and up
 * for the pictures on plain backgrounds that touch it least).
 */
const PLAIN_BORDER = 0.75;

/**
 * The plain background of an opaque picture: the colour nearly all of its border has, wherever
 * it is connected to the border (a hole of that colour inside the subject is not background).
 * Undefined when there is none to take away: a picture with transparency already, a border of
 * many colours or of a gradient (a photograph, a scene, a wallpaper), or nothing but background.
 * Marks background pixels with 1.
 */
export function plainBackground(image: RgbaImage): Uint8Array | undefined {
  const { width, height, pixels } = image;
  const colour = plainBorderColour(image);
  if (!colour) return undefined;
  const [r0, g0, b0] = colour;
  const near = (p: number) => Math.abs(pixels[p * 4]! - r0) + Math.abs(pixels[p * 4 + 1]! - g0) + Math.abs(pixels[p * 4 + 2]! - b0) <= SAME;
  const background = new Uint8Array(width * height);
  const stack: number[] = [];
  const visit = (p: number) => {
    if (background[p] || !near(p)) return;
    background[p] = 1;
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
  return background.includes(0) ? background : undefined;
}

/**
 * The colour most of an opaque picture's border has (the mean of the border pixels near the most
 * common colour), if at least PLAIN_BORDER of the border has it; undefined otherwise.
 */
function plainBorderColour({ width, height, pixels }: RgbaImage): [number, number, number] | undefined {
  const border: number[] = [];
  for (let x = 0; x < width; x++) border.push(x, (height - 1) * width + x);
  for (let y = 1; y < height - 1; y++) border.push(y * width, y * width + width - 1);
  // The most common colour at 5 bits a channel (a JPEG's noise stays within a bucket or two).
  const counts = new Map<number, number>();
  for (const p of border) {
    if (pixels[p * 4 + 3]! < 250) return undefined; // transparent already
    const key = ((pixels[p * 4]! >> 3) << 10) | ((pixels[p * 4 + 1]! >> 3) << 5) | (pixels[p * 4 + 2]! >> 3);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let [most, key] = [0, 0];
  for (const [bucket, count] of counts) if (count > most) [most, key] = [count, bucket];
  const centre = [((key >> 10) << 3) + 4, (((key >> 5) & 31) << 3) + 4, ((key & 31) << 3) + 4] as const;
  const sum: [number, number, number] = [0, 0, 0];
  let near = 0;
  for (const p of border) {
    const i = p * 4;
    if (Math.abs(pixels[i]! - centre[0]) + Math.abs(pixels[i + 1]! - centre[1]) + Math.abs(pixels[i + 2]! - centre[2]) > PLAIN) continue;
    sum[0] += pixels[i]!;
    sum[1] += pixels[i + 1]!;
    sum[2] += pixels[i + 2]!;
    near++;
  }
  if (near < border.length * PLAIN_BORDER) return undefined;
  return [Math.round(sum[0] / near), Math.round(sum[1] / near), Math.round(sum[2] / near)];
}
