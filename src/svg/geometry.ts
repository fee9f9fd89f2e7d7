import type { ViewBox } from '../contract/common.ts';
import type { SvgElement } from './tree.ts';

// An SVG's geometry as a renderer reads it from the root: intrinsic size and viewBox.

/** The size an SVG renders at by default, and its root viewBox. */
export interface SvgSize {
  width: number;
  height: number;
  /** The root viewBox, when it has a valid one. */
  viewBox?: ViewBox;
}

/** CSS absolute units in px; percentages and font-relative units have no intrinsic size. */
const UNIT_PX: Record<string, number> = { '': 1, px: 1, pt: 4 / 3, pc: 16, in: 96, cm: 96 / 2.54, mm: 96 / 25.4, q: 96 / 101.6 };

/**
 * A number as SVG writes it, or NaN / Inf / Infinity spelled out, then a unit. No two adjacent
 * parts can match the same characters, so a failed match backtracks in linear time.
 */
const LENGTH = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?|[+-]?(?:nan|infinity|inf))\s*([a-z%]*)$/i;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const NON_FINITE = /^[+-]?(?:nan|infinity|inf)$/i;

/** What a size attribute says: a value, nothing (absent, %, auto, font-relative), or a malformed size. */
type SizeAttribute<T> = { value: T } | 'none' | 'malformed';

/** The number a token spells (1e400 is Infinity, NaN is NaN), or undefined when it is no number. */
function readNumber(token: string): number | undefined {
  if (NUMBER.test(token)) return Number(token);
  return NON_FINITE.test(token) ? NaN : undefined;
}

function readLength(value: string | undefined): SizeAttribute<number> {
  if (value === undefined) return 'none';
  const match = LENGTH.exec(value.trim());
  if (!match) return 'none';
  const scale = UNIT_PX[match[2]!.toLowerCase()];
  if (scale === undefined) return 'none';
  const px = readNumber(match[1]!)! * scale;
  return Number.isFinite(px) && px > 0 ? { value: px } : 'malformed';
}

function readViewBox(value: string | undefined): SizeAttribute<ViewBox> {
  if (value === undefined) return 'none';
  const numbers = value.trim().split(/[\s,]+/).map(readNumber);
  if (numbers.length !== 4 || numbers.some((n) => n === undefined || !Number.isFinite(n))) return 'malformed';
  const [minX, minY, width, height] = numbers as [number, number, number, number];
  return width > 0 && height > 0 ? { value: { minX, minY, width, height } } : 'malformed';
}

const valueOf = <T>(attribute: SizeAttribute<T>): T | undefined => (typeof attribute === 'object' ? attribute.value : undefined);

/**
 * The root size attribute that is present but says no usable size — a viewBox that is not four
 * finite numbers with a width and height above 0, or a width/height that is a number (with an
 * absolute unit or none) that is not finite or not above 0 — or undefined when there is none.
 * Read instead of replaced by a default, such a size would silently change the drawing.
 */
export function malformedSvgSize(root: SvgElement): 'viewBox' | 'width' | 'height' | undefined {
  if (readViewBox(root.attributes.get('viewBox')) === 'malformed') return 'viewBox';
  if (readLength(root.attributes.get('width')) === 'malformed') return 'width';
  if (readLength(root.attributes.get('height')) === 'malformed') return 'height';
  return undefined;
}

/** The root viewBox when it is four finite numbers with a width and height above 0, else undefined. */
export function svgViewBox(root: SvgElement): ViewBox | undefined {
  return valueOf(readViewBox(root.attributes.get('viewBox')));
}

/**
 * The size an SVG renders at by default, as a browser would pick it: width/height in absolute
 * units, else the viewBox size (or the other side through its aspect ratio), else 300×150.
 * Inputs were checked with malformedSvgSize; a malformed attribute reads as absent here.
 */
export function svgIntrinsicSize(root: SvgElement): SvgSize {
  const viewBox = svgViewBox(root);
  let width = valueOf(readLength(root.attributes.get('width')));
  let height = valueOf(readLength(root.attributes.get('height')));
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
