import type { RgbaImage } from './pixels.ts';

/** Colour distance (sum over the channels) within which a pixel is the background itself. */
const SAME = 24;
/** How close (sum over the channels) border pixels must be to the border's colour to count. */
const PLAIN = 12;
/** Share of the border that must be that one colour for the background to count as plain. */
const PLAIN_BORDER = 0.9;

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

/** The colour nearly all of an opaque picture's border has (their mean), or undefined. */
function plainBorderColour({ width, height, pixels }: RgbaImage): [number, number, number] | undefined {
  const border: number[] = [];
  for (let x = 0; x < width; x++) border.push(x, (height - 1) * width + x);
  for (let y = 1; y < height - 1; y++) border.push(y * width, y * width + width - 1);
  let [r, g, b] = [0, 0, 0];
  for (const p of border) {
    if (pixels[p * 4 + 3]! < 250) return undefined; // transparent already
    r += pixels[p * 4]!;
    g += pixels[p * 4 + 1]!;
    b += pixels[p * 4 + 2]!;
  }
  const mean: [number, number, number] = [r / border.length, g / border.length, b / border.length];
  // The median-free test: the mean of a border that is one colour is that colour; of one that is not, near few of its pixels.
  const close = border.filter((p) => Math.abs(pixels[p * 4]! - mean[0]) + Math.abs(pixels[p * 4 + 1]! - mean[1]) + Math.abs(pixels[p * 4 + 2]! - mean[2]) <= PLAIN).length;
  return close >= border.length * PLAIN_BORDER ? [Math.round(mean[0]), Math.round(mean[1]), Math.round(mean[2])] : undefined;
}
