import type { RgbaImage } from '../../../src/engines/trace/pixels.ts';
import type { Grid } from '../../../src/engines/trace/smooth-grid.ts';

/** Straight RGBA pixels, each coloured by `colour(x, y)` (alpha 255 unless given). */
export function rgbaImage(width: number, height: number, colour: (x: number, y: number) => [number, number, number, number?]): RgbaImage {
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b, a = 255] = colour(x, y);
      pixels.set([r, g, b, a], (y * width + x) * 4);
    }
  }
  return { width, height, pixels };
}

/** An opaque analysis grid of cells of one pixel, each coloured by `colour(x, y)`. */
export function opaqueGrid(width: number, height: number, colour: (x: number, y: number) => [number, number, number]): Grid {
  const values = new Float32Array(width * height * 3);
  for (let i = 0; i < width * height; i++) values.set(colour(i % width, Math.floor(i / width)), i * 3);
  return { k: 1, width, height, colour: values, alpha: new Float32Array(width * height).fill(255) };
}
