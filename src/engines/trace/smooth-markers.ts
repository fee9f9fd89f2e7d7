import type { Paint } from './gradient-paint.ts';

/**
 * Marker colours (smooth-regions.ts): each gradient piece's pixels are painted a colour of its own,
 * far from every colour of the image and from the other markers, so the colour trace draws each
 * piece as one shape; a traced shape's colour then tells which piece it is.
 */

/** A gradient piece, as the tracer sees it: its gradient, and the colour that stands for it. */
export interface SmoothRegion {
  paint: Paint;
  /** The flat colour its pixels are painted with in `marked`: the colour trace's shapes of this colour get the gradient. */
  marker: [number, number, number];
}

/**
 * Least distance (largest channel difference) of a marker colour from the image's colours and other
 * markers: well beyond the colour trace's layerDifference (tracer.ts), or the trace merges a
 * marker's shape into the colour next to it and the gradient is lost.
 */
const MARKER_GAP = 72;
/** How far the colour trace may move a marker's colour and still be matched outright. */
const MARKER_MATCH = 32;

/** The gradient pieces that got a marker, and which of them a colour of the colour trace stands for. */
export interface Markers {
  regions: SmoothRegion[];
  /** The region a shape of the colour trace in this colour belongs to, if any. */
  regionFor(r: number, g: number, b: number): SmoothRegion | undefined;
}

/**
 * Picks a marker for each gradient piece among `paints` (a piece left without one keeps its
 * pixels) and paints its pixels (`assigned` to it) with it in `marked`.
 */
export function chooseMarkers(marked: Buffer, assigned: Int8Array, paints: (Paint | string)[]): Markers {
  const used = usedBuckets(marked, assigned);
  const crowded = dilateBuckets(used, Math.ceil(MARKER_GAP / 16));
  const markers: ([number, number, number] | undefined)[] = paints.map(() => undefined);
  const taken: [number, number, number][] = [];
  paints.forEach((paint, o) => {
    if (typeof paint === 'string') return;
    markers[o] = pickMarker(crowded, taken);
    if (markers[o]) taken.push(markers[o]!);
  });
  paintMarkers(marked, assigned, markers);
  const regions: SmoothRegion[] = [];
  paints.forEach((paint, p) => {
    if (typeof paint !== 'string' && markers[p]) regions.push({ paint, marker: markers[p]! });
  });
  const nearUsed = dilateBuckets(used, 1);
  return { regions, regionFor: (r, g, b) => regionOf(regions, nearUsed, r, g, b) };
}

/**
 * The region a colour of the colour trace belongs to, if any. The colour trace averages a
 * cluster's pixels: a marker's shape may come out a little off its colour, or, mixed with a few
 * other pixels, further off but still far from the image's colours (not in `nearUsed`).
 */
function regionOf(regions: SmoothRegion[], nearUsed: Uint8Array, r: number, g: number, b: number): SmoothRegion | undefined {
  let nearest: SmoothRegion | undefined;
  let distance = Infinity;
  for (const region of regions) {
    const [mr, mg, mb] = region.marker;
    const d = Math.max(Math.abs(mr - r), Math.abs(mg - g), Math.abs(mb - b));
    if (d < distance) [nearest, distance] = [region, d];
  }
  if (distance <= MARKER_MATCH) return nearest;
  // far from every colour the image has elsewhere, the colour can only be a marker's, mixed
  if (distance > MARKER_GAP + MARKER_MATCH || nearUsed[((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4)]) return undefined;
  return nearest;
}

/** Colour buckets (4 bits a channel) of the visible pixels that no gradient piece took. */
function usedBuckets(marked: Buffer, assigned: Int8Array): Uint8Array {
  const used = new Uint8Array(4096);
  for (let q = 0, p = 0; q < assigned.length; q++, p += 4) {
    if (assigned[q]! < 0 && marked[p + 3]! >= 128) used[((marked[p]! >> 4) << 8) | ((marked[p + 1]! >> 4) << 4) | (marked[p + 2]! >> 4)] = 1;
  }
  return used;
}

/** Buckets within `reach` buckets (every channel) of a used one: a separable maximum filter. */
function dilateBuckets(used: Uint8Array, reach: number): Uint8Array {
  let current = used;
  for (const shift of [8, 4, 0]) {
    const next = new Uint8Array(4096);
    for (let key = 0; key < 4096; key++) {
      if (!current[key]) continue;
      const level = (key >> shift) & 15;
      for (let d = Math.max(0, level - reach); d <= Math.min(15, level + reach); d++) next[(key & ~(15 << shift)) | (d << shift)] = 1;
    }
    current = next;
  }
  return current;
}

/** Each gradient piece's pixels painted its marker (a piece left without one keeps its pixels). */
function paintMarkers(marked: Buffer, assigned: Int8Array, markers: ([number, number, number] | undefined)[]): void {
  for (let q = 0, p = 0; q < assigned.length; q++, p += 4) {
    const o = assigned[q]!;
    if (o < 0) continue;
    const fill = markers[o];
    if (!fill) continue;
    marked[p] = fill[0];
    marked[p + 1] = fill[1];
    marked[p + 2] = fill[2];
  }
}

/** Marker candidates: a coarse grid over RGB. */
const MARKER_LEVELS = [0, 64, 128, 192, 255, 32, 96, 160, 224];

/** A colour in no crowded bucket and at least MARKER_GAP from every marker taken, if any. */
function pickMarker(crowded: Uint8Array, taken: [number, number, number][]): [number, number, number] | undefined {
  for (const r of MARKER_LEVELS) {
    for (const g of MARKER_LEVELS) {
      for (const b of MARKER_LEVELS) {
        if (crowded[((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4)]) continue;
        if (taken.some((m) => Math.max(Math.abs(m[0] - r), Math.abs(m[1] - g), Math.abs(m[2] - b)) < MARKER_GAP)) continue;
        return [r, g, b];
      }
    }
  }
  return undefined;
}
