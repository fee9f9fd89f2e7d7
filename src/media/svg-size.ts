import type { SvgElement } from '../svg/tree.ts';

export interface SvgSize {
  width: number;
  height: number;
  /** The root viewBox, when it has a valid one. */
  viewBox?: { minX: number; minY: number; width: number; height: number };
}

/** CSS absolute units in px; percentages and font-relative units have no intrinsic size. */
const UNIT_PX: Record<string, number> = { '': 1, px: 1, pt: 4 / 3, pc: 16, in: 96, cm: 96 / 2.54, mm: 96 / 25.4, q: 96 / 101.6 };

/** Longer attribute values are no length we read (and keep the match below cheap). */
const MAX_LENGTH_CHARS = 64;

function length(value: string | undefined): number | undefined {
  if (value === undefined || value.length > MAX_LENGTH_CHARS) return undefined;
  const match = value.trim().match(/^(\+?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*([a-z]*)$/i);
  if (!match) return undefined;
  const scale = UNIT_PX[match[2]!.toLowerCase()];
  const px = scale === undefined ? NaN : Number(match[1]) * scale;
  return Number.isFinite(px) && px > 0 ? px : undefined;
}

function parseViewBox(value: string | undefined): SvgSize['viewBox'] {
  const numbers = value?.trim().split(/[\s,]+/).map(Number);
  if (!numbers || numbers.length !== 4 || numbers.some((n) => !Number.isFinite(n))) return undefined;
  const [minX, minY, width, height] = numbers as [number, number, number, number];
  return width > 0 && height > 0 ? { minX, minY, width, height } : undefined;
}

/**
 * The size an SVG renders at by default, as a browser would pick it: width/height in absolute
 * units, else the viewBox size (or the other side through its aspect ratio), else 300×150.
 */
export function svgIntrinsicSize(root: SvgElement): SvgSize {
  const viewBox = parseViewBox(root.attributes.get('viewBox'));
  let width = length(root.attributes.get('width'));
  let height = length(root.attributes.get('height'));
  const aspect = viewBox ? viewBox.width / viewBox.height : undefined;
  if (width === undefined && height !== undefined) width = aspect ? height * aspect : 300;
  if (height === undefined && width !== undefined) height = aspect ? width / aspect : 150;
  if (width === undefined || height === undefined) {
    width = viewBox?.width ?? 300;
    height = viewBox?.height ?? 150;
  }
  return viewBox ? { width, height, viewBox } : { width, height };
}

/** Sizes an SVG image input may have, in px or user units: beyond these, numbers lose meaning. */
export const SVG_SIZE_RANGE = { min: 0.001, max: 1e9 };

/** Whether width, height and viewBox are all within SVG_SIZE_RANGE (offsets too, by magnitude). */
export function isUsableSvgSize({ width, height, viewBox }: SvgSize): boolean {
  const inRange = (n: number) => n >= SVG_SIZE_RANGE.min && n <= SVG_SIZE_RANGE.max;
  if (!inRange(width) || !inRange(height)) return false;
  if (!viewBox) return true;
  return inRange(viewBox.width) && inRange(viewBox.height) && Math.abs(viewBox.minX) <= SVG_SIZE_RANGE.max && Math.abs(viewBox.minY) <= SVG_SIZE_RANGE.max;
}
