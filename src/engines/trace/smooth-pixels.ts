import { evaluator, type Paint } from './gradient-paint.ts';
import type { RgbaImage } from './pixels.ts';
import type { Grid } from './smooth-grid.ts';

/**
 * The pixels of each smooth piece (smooth-regions.ts): from the pieces' cells on the analysis grid
 * to the image's own pixels, and outlines that follow the picture rather than the cells' staircase.
 */

/** A pixel of (or next to) a piece's cell and within this of its fill there belongs to the piece. */
const PIXEL_TOLERANCE = 24;
/** Piece outlines are smoothed this many times over, each pixel on one taking the majority label within this radius (px). */
const OUTLINE_PASSES = 3;
const OUTLINE_RADIUS = 3;

/**
 * Each visible pixel's piece (an index into `paints`), or -1: pixels are assigned cell by cell,
 * then the pieces' outlines smoothed. Flat pieces' pixels are painted their colour in `marked`.
 */
export function piecePixels(image: RgbaImage, grid: Grid, owner: Int32Array, paints: (Paint | string)[], marked: Buffer): Int8Array {
  const assigned = new Int8Array(image.width * image.height).fill(-1); // a piece index (at most MAX_PIECES, smooth-pieces.ts), or -1
  assignPixels(image, grid, owner, paints, marked, assigned);
  for (let pass = 0; pass < OUTLINE_PASSES; pass++) smoothOutlines(image, assigned, paints, OUTLINE_RADIUS);
  return assigned;
}

/**
 * Cell by cell, the pieces a pixel may join (its cell's, and at a piece's edge its neighbours'),
 * each with its fill at the cell's centre; a pixel joins the nearest if close enough. At an edge
 * this follows the picture to the pixel, not the cells' staircase; inside a piece, a detail
 * smaller than a cell stays out. A flat piece's pixels are painted its colour in `marked`; a
 * gradient piece's are recorded in `assigned` (painted with its marker once markers are chosen).
 * One loop over cells and their pixels, kept whole: its buffers are reused across the image, and a
 * step taken out would be a call per pixel.
 */
function assignPixels(image: RgbaImage, grid: Grid, owner: Int32Array, paints: (Paint | string)[], marked: Buffer, assigned: Int8Array): void {
  const { k, width, height } = grid;
  const pixels = image.pixels;
  const evaluators = paints.map(evaluator);
  const gradient = Uint8Array.from(paints, (paint) => (typeof paint === 'string' ? 0 : 1));
  const choice = new Int32Array(5);
  const choiceFill = new Float32Array(15);
  const out = [0, 0, 0];
  for (let cy = 0; cy < height; cy++) {
    const y0 = cy * k;
    const y1 = Math.min(image.height, y0 + k);
    for (let cx = 0; cx < width; cx++) {
      const i = cy * width + cx;
      let count = 0;
      for (let side = 0; side < 5; side++) {
        const j = side === 0 ? i : side === 1 ? (cx > 0 ? i - 1 : -1) : side === 2 ? (cx < width - 1 ? i + 1 : -1) : side === 3 ? (cy > 0 ? i - width : -1) : cy < height - 1 ? i + width : -1;
        if (j < 0) continue;
        const o = owner[j]!;
        if (o < 0) continue;
        let repeated = false;
        for (let e = 0; e < count; e++) if (choice[e] === o) repeated = true;
        if (repeated) continue;
        evaluators[o]!((cx + 0.5) * k, (cy + 0.5) * k, out);
        choice[count] = o;
        choiceFill[count * 3] = out[0]!;
        choiceFill[count * 3 + 1] = out[1]!;
        choiceFill[count * 3 + 2] = out[2]!;
        count++;
      }
      if (count === 0) continue;
      const single = count === 1 && owner[i]! >= 0;
      if (single && k === 1 && gradient[choice[0]!]) {
        // the common case: one gradient piece, cells are pixels
        if (pixels[i * 4 + 3]! >= 128) {
          marked[i * 4 + 3] = 255;
          assigned[i] = choice[0]!;
        }
        continue;
      }
      const x0 = cx * k;
      const x1 = Math.min(image.width, x0 + k);
      for (let y = y0; y < y1; y++) {
        for (let x = x0, p = (y * image.width + x0) * 4; x < x1; x++, p += 4) {
          if (pixels[p + 3]! < 128) continue;
          const r = pixels[p]!;
          const g = pixels[p + 1]!;
          const b = pixels[p + 2]!;
          let fill = -1;
          let best = PIXEL_TOLERANCE + 1;
          for (let c = 0; c < count; c++) {
            const distance = Math.max(Math.abs(r - choiceFill[c * 3]!), Math.abs(g - choiceFill[c * 3 + 1]!), Math.abs(b - choiceFill[c * 3 + 2]!));
            if (distance < best) {
              best = distance;
              fill = c;
            }
          }
          // inside one piece at cell size 1 the pixel is the cell: it belongs, however far
          if (fill < 0 && single && k === 1) fill = 0;
          if (fill < 0) continue;
          const o = choice[fill]!;
          marked[p + 3] = 255;
          if (gradient[o]) {
            assigned[p >> 2] = o;
            continue;
          }
          marked[p] = Math.round(choiceFill[fill * 3]!);
          marked[p + 1] = Math.round(choiceFill[fill * 3 + 1]!);
          marked[p + 2] = Math.round(choiceFill[fill * 3 + 2]!);
        }
      }
    }
  }
}

/**
 * Piece outlines as smooth lines: each visible pixel on an outline (a neighbour in another piece,
 * or in none) takes the label most of the visible pixels within `radius` have, a piece or none;
 * a pixel joins a piece only if its colour is within PIXEL_TOLERANCE of the piece's fill there.
 * Where two pieces meet their fills are close, and where a piece meets the detail its cells'
 * staircase decided: left alone, the outline traces as ragged steps, many bytes of visible jags.
 */
function smoothOutlines(image: RgbaImage, assigned: Int8Array, paints: (Paint | string)[], radius: number): void {
  const { width, height, pixels } = image;
  const seam: number[] = [];
  const onSeam = new Uint8Array(width * height);
  const add = (q: number) => {
    if (!onSeam[q]) (onSeam[q] = 1), seam.push(q);
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0, q = y * width; x < width; x++, q++) {
      if (pixels[q * 4 + 3]! < 128) continue;
      const o = assigned[q]!;
      if (x < width - 1 && assigned[q + 1] !== o && pixels[q * 4 + 7]! >= 128) add(q), add(q + 1);
      if (y < height - 1 && assigned[q + width] !== o && pixels[(q + width) * 4 + 3]! >= 128) add(q), add(q + width);
    }
  }
  const evaluators = paints.map(evaluator);
  const counts = new Int32Array(129);
  const labels = new Int32Array(129);
  const next = new Int8Array(seam.length);
  const out = [0, 0, 0];
  for (let s = 0; s < seam.length; s++) {
    const q = seam[s]!;
    const x = q % width;
    const y = (q - x) / width;
    let found = 0;
    const x0 = Math.max(0, x - radius);
    const x1 = Math.min(width - 1, x + radius);
    for (let yy = Math.max(0, y - radius); yy <= Math.min(height - 1, y + radius); yy++) {
      for (let r = yy * width + x0, end = yy * width + x1; r <= end; r++) {
        if (pixels[r * 4 + 3]! < 128) continue;
        const o = assigned[r]! + 1;
        if (counts[o]!++ === 0) labels[found++] = o;
      }
    }
    const own = assigned[q]! + 1;
    let best = own;
    for (let l = 0; l < found; l++) if (counts[labels[l]!]! > counts[best]!) best = labels[l]!;
    for (let l = 0; l < found; l++) counts[labels[l]!] = 0;
    if (best > 0 && best !== own) {
      evaluators[best - 1]!(x + 0.5, y + 0.5, out);
      const p = q * 4;
      if (Math.max(Math.abs(pixels[p]! - out[0]!), Math.abs(pixels[p + 1]! - out[1]!), Math.abs(pixels[p + 2]! - out[2]!)) > PIXEL_TOLERANCE) best = own;
    }
    next[s] = best - 1;
  }
  for (let s = 0; s < seam.length; s++) assigned[seam[s]!] = next[s]!;
}
