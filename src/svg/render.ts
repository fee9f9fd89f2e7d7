import { Resvg } from '@resvg/resvg-js';

/**
 * Rendering with resvg, for the worker processes (never on the event loop: a render can be
 * made arbitrarily slow, and only a process can be stopped). System fonts are not loaded, so
 * text draws nothing here; a document with text is counted as showing something.
 */

/** Side of the render that decides whether a document shows anything. */
const VISIBILITY_SIDE = 64;

function fitted(svg: string, maxSide: number, background?: string): Resvg {
  const probe = new Resvg(svg, { font: { loadSystemFonts: false } });
  const mode = probe.width >= probe.height ? ('width' as const) : ('height' as const);
  return new Resvg(svg, { fitTo: { mode, value: maxSide }, font: { loadSystemFonts: false }, ...(background ? { background } : {}) });
}

/** Whether the document draws any pixel that is not fully transparent (or has text to show). */
export function isVisible(svg: string): boolean {
  if (/<text[\s>][^<]*\S/.test(svg)) return true;
  const pixels = fitted(svg, VISIBILITY_SIDE).render().pixels;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) return true;
  return false;
}

/** A PNG of the document on white, at most `maxSide` pixels a side (what a reviewer sees). */
export function renderPng(svg: string, maxSide: number): Buffer {
  return Buffer.from(fitted(svg, maxSide, '#ffffff').render().asPng());
}

/** The document's RGBA pixels (not premultiplied), fitted to at most `maxSide` pixels a side. */
export function renderRgba(svg: string, maxSide: number): { pixels: Uint8Array; width: number; height: number } {
  const image = fitted(svg, maxSide).render();
  const pixels = new Uint8Array(image.pixels);
  // resvg's pixels are premultiplied by alpha.
  for (let i = 0; i < pixels.length; i += 4) {
    const a = pixels[i + 3]!;
    if (a === 0 || a === 255) continue;
    pixels[i] = Math.min(255, Math.round((pixels[i]! * 255) / a));
    pixels[i + 1] = Math.min(255, Math.round((pixels[i + 1]! * 255) / a));
    pixels[i + 2] = Math.min(255, Math.round((pixels[i + 2]! * 255) / a));
  }
  return { pixels, width: image.width, height: image.height };
}
