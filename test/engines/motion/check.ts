// What the animator's tests measure on rendered frames: pixel differences, paint outside the
// viewBox, and flashes (WCAG 2.3.1), all from resvg renderings of the exact frames.

import { Resvg } from '@resvg/resvg-js';
import { parseSvg } from '../../../src/svg/parse.ts';
import { serializeSvg } from '../../../src/svg/serialize.ts';
import { frameAt } from '../../../src/engines/motion/frame.ts';
import { sceneViewBox } from '../../../src/engines/motion/scene.ts';
import type { Animation } from '../../../src/engines/motion/animator.ts';

export interface Pixels {
  width: number;
  height: number;
  data: Uint8Array;
}

/** RGBA pixels (not premultiplied, as a PNG or a screenshot has them) of an SVG rendered `width` px wide on transparency. */
export function render(svg: string, width: number): Pixels {
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: width }, font: { loadSystemFonts: false } }).render();
  // resvg gives premultiplied pixels.
  const data = new Uint8Array(image.pixels);
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3]!;
    if (a === 0 || a === 255) continue;
    for (let c = 0; c < 3; c++) data[i + c] = Math.min(255, Math.round((data[i + c]! * 255) / a));
  }
  return { width: image.width, height: image.height, data };
}

/** The largest difference of any channel of any pixel (colours composited on white). */
export function maxDiff(a: Pixels, b: Pixels): number {
  if (a.data.length !== b.data.length) throw new Error(`sizes differ: ${a.width}×${a.height} vs ${b.width}×${b.height}`);
  let worst = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    const aa = a.data[i + 3]! / 255;
    const ba = b.data[i + 3]! / 255;
    for (let c = 0; c < 3; c++) {
      const x = a.data[i + c]! * aa + 255 * (1 - aa);
      const y = b.data[i + c]! * ba + 255 * (1 - ba);
      worst = Math.max(worst, Math.abs(x - y));
    }
  }
  return worst;
}

/**
 * Paint outside the viewBox: the frame is rendered through a viewBox grown by half its size on
 * every side, and the pixels outside the original viewBox (less one pixel of antialiasing) that
 * have any paint are counted.
 */
export function paintOutside(svg: string, scale = 2): number {
  const root = parseSvg(svg);
  const vb = sceneViewBox(root);
  const grown = { minX: vb.minX - vb.width / 2, minY: vb.minY - vb.height / 2, width: vb.width * 2, height: vb.height * 2 };
  root.attributes.set('viewBox', `${grown.minX} ${grown.minY} ${grown.width} ${grown.height}`);
  root.attributes.delete('width');
  root.attributes.delete('height');
  const width = Math.round(vb.width * scale * 2);
  const pixels = render(serializeSvg(root), width);
  const px = pixels.width / grown.width;
  const inside = {
    x0: Math.floor((vb.minX - grown.minX) * px) - 1,
    y0: Math.floor((vb.minY - grown.minY) * px) - 1,
    x1: Math.ceil((vb.minX + vb.width - grown.minX) * px) + 1,
    y1: Math.ceil((vb.minY + vb.height - grown.minY) * px) + 1,
  };
  let count = 0;
  for (let y = 0; y < pixels.height; y++) {
    for (let x = 0; x < pixels.width; x++) {
      if (x >= inside.x0 && x < inside.x1 && y >= inside.y0 && y < inside.y1) continue;
      if (pixels.data[(y * pixels.width + x) * 4 + 3]! > 0) count++;
    }
  }
  return count;
}

/** WCAG relative luminance of each pixel, on white. */
export function luminance(p: Pixels): Float32Array {
  const out = new Float32Array(p.width * p.height);
  const lin = (v: number) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  for (let i = 0, j = 0; i < p.data.length; i += 4, j++) {
    const a = p.data[i + 3]! / 255;
    const c = (k: number) => (p.data[i + k]! * a + 255 * (1 - a)) / 255;
    out[j] = 0.2126 * lin(c(0)) + 0.7152 * lin(c(1)) + 0.0722 * lin(c(2));
  }
  return out;
}

/**
 * Mean relative luminance of each block of `block`×`block` pixels. WCAG 2.3.1 counts flashes of
 * areas, not of single pixels (an antialiased edge nudged by a fraction of a pixel changes its
 * pixel's luminance a lot): the flash checks look at blocks of 1/12 of the image's width, far
 * smaller than the WCAG's "small safe area" of a typical display.
 */
export function blockLuminance(p: Pixels, block: number): Float32Array {
  const lum = luminance(p);
  const bw = Math.ceil(p.width / block);
  const bh = Math.ceil(p.height / block);
  const sums = new Float32Array(bw * bh);
  const counts = new Float32Array(bw * bh);
  for (let y = 0; y < p.height; y++) {
    for (let x = 0; x < p.width; x++) {
      const b = Math.floor(y / block) * bw + Math.floor(x / block);
      sums[b]! += lum[y * p.width + x]!;
      counts[b]! += 1;
    }
  }
  for (let i = 0; i < sums.length; i++) sums[i]! /= counts[i]!;
  return sums;
}

/**
 * The most flashes any area shows in any one second (WCAG 2.3.1: a flash is a pair of opposing
 * changes of relative luminance of 10 % or more, the darker below 0.8), sampled at `fps`; each
 * frame is the luminance of every pixel or block.
 */
export function maxFlashesPerSecond(frames: Float32Array[], fps: number): number {
  const pixels = frames[0]!.length;
  let worst = 0;
  for (let i = 0; i < pixels; i++) {
    // Changes: times at which the luminance has moved 0.1 or more from its extreme since the last change.
    const changes: number[] = [];
    let hi = frames[0]![i]!;
    let lo = hi;
    let direction = 0;
    for (let f = 1; f < frames.length; f++) {
      const v = frames[f]![i]!;
      hi = Math.max(hi, v);
      lo = Math.min(lo, v);
      if (direction >= 0 && hi - v >= 0.1 && v < 0.8) {
        changes.push(f);
        direction = -1;
        lo = hi = v;
      } else if (direction <= 0 && v - lo >= 0.1 && lo < 0.8) {
        changes.push(f);
        direction = 1;
        lo = hi = v;
      }
    }
    for (let a = 0, b = 0; b < changes.length; b++) {
      while (changes[b]! - changes[a]! >= fps) a++;
      worst = Math.max(worst, Math.floor((b - a + 1) / 2));
    }
  }
  return worst;
}

/** Times covering the opening and two loop cycles, every `stepMs`. */
export function timesOver(animation: Pick<Animation, 'loopPeriodMs' | 'openingAnimationMs'>, stepMs: number, cycles = 2): number[] {
  const end = (animation.openingAnimationMs ?? 0) + (animation.loopPeriodMs ?? 0) * cycles + stepMs;
  const times: number[] = [];
  for (let t = 0; t <= end; t += stepMs) times.push(t);
  return times;
}

/** Times at which the drawing must look exactly like the source: the end of the opening and the start of each loop cycle. */
export function restTimes(animation: Pick<Animation, 'loopPeriodMs' | 'openingAnimationMs'>): number[] {
  const opening = animation.openingAnimationMs ?? 0;
  const loop = animation.loopPeriodMs;
  if (!loop) return [opening, opening + 1, opening + 10_000];
  return [opening, opening + loop, opening + 3 * loop, opening + 100 * loop];
}

export const framePixels = (svg: string, t: number, width: number) => render(frameAt(svg, t), width);
