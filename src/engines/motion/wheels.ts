// Finding wheels: a round outline (a circle, a gear) whose contents repeat when turned by a
// fraction of a full turn (spokes, teeth, petals) but not by every fraction (a plain circle or
// rings would look the same however they turn, so spinning them shows nothing).

import type { SvgElement } from '../../svg/tree.ts';
import { boxOf, boxCenter, meanScale, samplePoints, applyMatrix, type Point } from './geometry.ts';
import { leafPoints, type Leaf, type Scene } from './scene.ts';

export interface Wheel {
  /** The nodes that make up the wheel (groups when a group holds nothing else). */
  nodes: SvgElement[];
  centre: Point;
  radius: number;
  /** The largest n for which a turn by 1/n of a circle leaves it unchanged. */
  order: number;
}

const SECTORS = 16;
const MAX_CANDIDATES = 32;
/** Round: in every sixteenth of the turn, the outline reaches at least this share of its radius (a square reaches 0.77, a gear with teeth 20 % deep 0.8+). */
const ROUND = 0.85;

/** A round leaf: roughly square, and its outline about equally far from its centre in every direction. */
function roundness(leaf: Leaf, minRadius: number): { centre: Point; radius: number } | undefined {
  // The padded box tells most shapes apart before any sampling.
  const w0 = leaf.box.maxX - leaf.box.minX;
  const h0 = leaf.box.maxY - leaf.box.minY;
  if (Math.max(w0, h0) < 2 * minRadius || Math.abs(w0 - h0) > 0.2 * Math.max(w0, h0)) return undefined;
  const points = leafPoints(leaf, 128);
  const box = boxOf(points);
  if (!box) return undefined;
  const w = box.maxX - box.minX;
  const h = box.maxY - box.minY;
  if (Math.abs(w - h) > 0.12 * Math.max(w, h)) return undefined;
  const centre = boxCenter(box);
  const far = new Array<number>(SECTORS).fill(0);
  for (const p of points) {
    const sector = Math.min(SECTORS - 1, Math.floor(((Math.atan2(p.y - centre.y, p.x - centre.x) + Math.PI) / (2 * Math.PI)) * SECTORS));
    far[sector] = Math.max(far[sector]!, Math.hypot(p.x - centre.x, p.y - centre.y));
  }
  const radius = Math.max(...far);
  if (!(radius > 0) || Math.min(...far) < ROUND * radius) return undefined;
  return { centre, radius };
}

/** Points of a leaf about `spacing` apart on the canvas. */
function densePoints(leaf: Leaf, spacing: number): Point[] {
  const scale = meanScale(leaf.ctm) || 1;
  return samplePoints(leaf.outline, spacing / scale, 1500).map((p) => applyMatrix(leaf.ctm, p));
}

type Grid = { cell: number; cells: Map<string, Point[]> };

function gridOf(points: Point[], cell: number): Grid {
  const cells = new Map<string, Point[]>();
  for (const p of points) {
    const key = `${Math.floor(p.x / cell)},${Math.floor(p.y / cell)}`;
    const list = cells.get(key);
    if (list) list.push(p);
    else cells.set(key, [p]);
  }
  return { cell, cells };
}

/** For each point turned by `angle` about the centre: the distance to the nearest point of the grid (at most two cells). */
function turnedDistances(points: Point[], centre: Point, angle: number, grid: Grid): number[] {
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const { cell, cells } = grid;
  return points.map((p) => {
    const dx = p.x - centre.x;
    const dy = p.y - centre.y;
    const qx = centre.x + dx * cos - dy * sin;
    const qy = centre.y + dx * sin + dy * cos;
    const gx = Math.floor(qx / cell);
    const gy = Math.floor(qy / cell);
    let best = 2 * cell;
    for (let ix = gx - 1; ix <= gx + 1; ix++) {
      for (let iy = gy - 1; iy <= gy + 1; iy++) {
        for (const r of cells.get(`${ix},${iy}`) ?? []) best = Math.min(best, Math.hypot(r.x - qx, r.y - qy));
      }
    }
    return best;
  });
}

/**
 * The order of rotational symmetry (3–24) of the points about the centre, or 0. Points on
 * circles about the centre (rims, hubs) look the same however they turn, so they prove nothing:
 * the test is on the others — spokes, teeth, petals — which must be a visible share of the
 * drawing and must land on one another when turned by 1/n of a circle.
 */
export function rotationalOrder(points: Point[], centre: Point, radius: number): number {
  if (points.length < 8) return 0;
  const cell = radius / 20;
  const all = gridOf(points, cell);
  // A turn no symmetry of order up to 24 matches: what stays in place is round.
  const generic = turnedDistances(points, centre, (7.3 * Math.PI) / 180, all);
  const features = points.filter((_, i) => generic[i]! > 0.02 * radius);
  if (features.length < Math.max(8, 0.05 * points.length)) return 0;
  const grid = gridOf(features, cell);
  let order = 0;
  for (let k = 3; k <= 24; k++) {
    const distances = turnedDistances(features, centre, (2 * Math.PI) / k, grid).sort((a, b) => a - b);
    const mean = distances.reduce((sum, d) => sum + d, 0) / distances.length;
    const p90 = distances[Math.floor(distances.length * 0.9)]!;
    if (mean <= 0.02 * radius && p90 <= 0.05 * radius) order = k;
  }
  return order;
}

/** Every wheel of the drawing, largest first; wheels never share a part. */
export function findWheels(scene: Scene): Wheel[] {
  const vb = scene.viewBox;
  const minSide = Math.min(vb.width, vb.height);
  const candidates: { centre: Point; radius: number }[] = [];
  for (const leaf of scene.leaves) {
    const round = roundness(leaf, 0.04 * minSide);
    if (round && round.radius >= 0.04 * minSide) candidates.push(round);
  }
  candidates.sort((a, b) => b.radius - a.radius);
  const distinct: { centre: Point; radius: number }[] = [];
  for (const c of candidates) {
    if (distinct.some((d) => Math.hypot(d.centre.x - c.centre.x, d.centre.y - c.centre.y) < 0.05 * d.radius)) continue;
    distinct.push(c);
    if (distinct.length >= MAX_CANDIDATES) break;
  }

  const wheels: Wheel[] = [];
  const taken = new Set<Leaf>();
  for (const { centre, radius } of distinct) {
    const reach = radius * 1.06;
    const content = scene.leaves.filter(
      (leaf) =>
        !taken.has(leaf) &&
        leaf.box.minX >= centre.x - reach - leaf.pad &&
        leaf.box.maxX <= centre.x + reach + leaf.pad &&
        leaf.box.minY >= centre.y - reach - leaf.pad &&
        leaf.box.maxY <= centre.y + reach + leaf.pad &&
        leafPoints(leaf, 64).every((p) => Math.hypot(p.x - centre.x, p.y - centre.y) <= reach),
    );
    if (content.length === 0) continue;
    const points = content.flatMap((leaf) => densePoints(leaf, radius / 40));
    const order = rotationalOrder(points, centre, radius);
    if (order < 3) continue;
    for (const leaf of content) taken.add(leaf);
    wheels.push({ nodes: topNodes(scene, content), centre, radius, order });
  }
  return wheels;
}

/** The fewest nodes covering exactly these leaves: a group is taken whole when all its leaves are among them. */
export function topNodes(scene: Scene, leaves: Leaf[]): SvgElement[] {
  const set = new Set(leaves);
  const nodes: SvgElement[] = [];
  for (const leaf of leaves) {
    let node = leaf.element;
    for (let i = leaf.ancestors.length - 1; i >= 0; i--) {
      const ancestor = leaf.ancestors[i]!;
      if ((scene.leavesUnder.get(ancestor) ?? []).every((l) => set.has(l))) node = ancestor;
      else break;
    }
    if (!nodes.includes(node)) nodes.push(node);
  }
  return nodes;
}
