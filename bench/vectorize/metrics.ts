/**
 * Pixel helpers shared by run.ts and gallery.ts: rendering a traced SVG back to pixels,
 * compositing on a flat background, and the measures that are not SSIM (PSNR and GMSD).
 */
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';

/** Composites RGBA onto an opaque grey level; `premultiplied` is resvg's pixel layout. */
export function composite(rgba: Uint8Array, bg: number, premultiplied: boolean): Uint8ClampedArray {
  const out = new Uint8ClampedArray(rgba.length);
  for (let i = 0; i < rgba.length; i += 4) {
    const a = rgba[i + 3]! / 255;
    for (let c = 0; c < 3; c++) out[i + c] = (premultiplied ? rgba[i + c]! : rgba[i + c]! * a) + bg * (1 - a);
    out[i + 3] = 255;
  }
  return out;
}

/** One channel copied into R, G and B, so ssim.js's luma conversion gives it back unchanged. */
export function channel(rgba: Uint8ClampedArray, c: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(rgba.length);
  for (let i = 0; i < rgba.length; i += 4) {
    out[i] = out[i + 1] = out[i + 2] = rgba[i + c]!;
    out[i + 3] = 255;
  }
  return out;
}

/** RGB PSNR in dB, capped at 100 for identical images. */
export function psnr(a: Uint8ClampedArray, b: Uint8ClampedArray): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 4) for (let c = 0; c < 3; c++) sum += (a[i + c]! - b[i + c]!) ** 2;
  const mse = sum / ((a.length / 4) * 3);
  return mse === 0 ? 100 : Math.min(100, 10 * Math.log10((255 * 255) / mse));
}

/** GMSD's stability constant for luma on a 0–255 scale (Xue et al. 2014). */
const GMSD_C = 170;

/**
 * Gradient Magnitude Similarity Deviation (Xue, Zhang, Mou, Bovik 2014), lower is better, 0 for
 * identical images. Luma as ssim.js computes it ((77R + 150G + 29B) / 256), each 2×2 block
 * averaged into one pixel (the paper's 2×2 mean filter + downsampling by 2; an odd last row or
 * column is dropped), Prewitt gradients (kernels [1 0 −1] × 3 rows, divided by 3, and its
 * transpose), magnitude m = √(gx² + gy²), GMS = (2·m1·m2 + c) / (m1² + m2² + c) with c = 170, and
 * GMSD = the population standard deviation of the GMS map. The map covers the pixels whose 3×3
 * neighbourhood lies inside the downsampled image: the reference code's zero padding would add the
 * same strong edge along every border of both images, pulling the deviation towards 0.
 * It reacts to edges that a render loses, blurs or moves, however faint: a soft wave flattened
 * into one colour leaves PSNR moderate and SSIM high, but its GMS drops wherever the wave was.
 */
export function gmsd(a: Uint8ClampedArray, b: Uint8ClampedArray, width: number, height: number): number {
  const w = width >> 1;
  const h = height >> 1;
  if (w < 3 || h < 3) return NaN;
  const half = (rgba: Uint8ClampedArray): Float64Array => {
    const out = new Float64Array(w * h);
    const luma = (x: number, y: number) => {
      const i = (y * width + x) * 4;
      return (77 * rgba[i]! + 150 * rgba[i + 1]! + 29 * rgba[i + 2]!) / 256;
    };
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) out[y * w + x] = (luma(2 * x, 2 * y) + luma(2 * x + 1, 2 * y) + luma(2 * x, 2 * y + 1) + luma(2 * x + 1, 2 * y + 1)) / 4;
    }
    return out;
  };
  const magnitude = (p: Float64Array, x: number, y: number): number => {
    const at = (dx: number, dy: number) => p[(y + dy) * w + x + dx]!;
    const gx = (at(-1, -1) + at(-1, 0) + at(-1, 1) - at(1, -1) - at(1, 0) - at(1, 1)) / 3;
    const gy = (at(-1, -1) + at(0, -1) + at(1, -1) - at(-1, 1) - at(0, 1) - at(1, 1)) / 3;
    return Math.sqrt(gx * gx + gy * gy);
  };
  const pa = half(a);
  const pb = half(b);
  let n = 0;
  let sum = 0;
  let sumSq = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const m1 = magnitude(pa, x, y);
      const m2 = magnitude(pb, x, y);
      const gms = (2 * m1 * m2 + GMSD_C) / (m1 * m1 + m2 * m2 + GMSD_C);
      n++;
      sum += gms;
      sumSq += gms * gms;
    }
  }
  const mean = sum / n;
  return Math.sqrt(Math.max(0, sumSq / n - mean * mean));
}

/** Renders an SVG at the source width; returns premultiplied RGBA of exactly the source size, and the PNG when asked. */
export async function render(svg: string, width: number, height: number, wantPng = false): Promise<{ pixels: Uint8Array; png: Buffer }> {
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: width }, font: { loadSystemFonts: false } }).render();
  if (image.height === height) return { pixels: image.pixels, png: wantPng ? image.asPng() : Buffer.alloc(0) };
  // A tracer whose viewBox rounds differently: stretch to the source size so pixels line up.
  const png = await sharp(image.asPng()).resize(width, height, { fit: 'fill' }).png().toBuffer();
  const straight = await sharp(png).ensureAlpha().raw().toBuffer();
  const pixels = new Uint8Array(straight.length);
  for (let i = 0; i < straight.length; i += 4) {
    const a = straight[i + 3]! / 255;
    for (let c = 0; c < 3; c++) pixels[i + c] = Math.round(straight[i + c]! * a);
    pixels[i + 3] = straight[i + 3]!;
  }
  return { pixels, png };
}

/** A grey checkerboard (16 px squares), so lost or gained transparency shows. */
export function checkerboard(width: number, height: number): Buffer {
  const board = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) board.fill(((x >> 4) + (y >> 4)) % 2 ? 0xcc : 0xff, (y * width + x) * 3, (y * width + x) * 3 + 3);
  return board;
}

/** PNGs of one size side by side on a checkerboard: source, then each tracer's render. */
export async function sideBySide(pngs: Buffer[], width: number, height: number): Promise<Buffer> {
  return sharp(checkerboard(width * pngs.length, height), { raw: { width: width * pngs.length, height, channels: 3 } })
    .composite(pngs.map((input, i) => ({ input, left: i * width, top: 0 })))
    .png()
    .toBuffer();
}
