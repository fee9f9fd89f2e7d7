// Keeping motion inside the viewBox: the drawn points of every moving part are followed through
// the animation (every wrapper's transform at each sampled time, composed from the inside out)
// and measured against the region the drawing may occupy. A motion's amplitude is the largest
// that keeps the overshoot nil, found by bisection.

import type { SvgElement } from '../../svg/tree.ts';
import { boxCorners, meanScale, multiply, rotation, scaling, translation, type Matrix, type Point } from './geometry.ts';
import type { Host } from './motions/index.ts';
import { leafPoints, parentSpace, type Leaf, type Scene } from './scene.ts';
import { hostValuesAt, trackEnd, type TransformValue } from './timeline.ts';

/** The matrix of a transform value about its pivot, in the wrapper's coordinates. */
export function transformMatrix(value: TransformValue, pivot: Point = { x: 0, y: 0 }): Matrix {
  return multiply(
    translation(pivot.x + value.tx, pivot.y + value.ty),
    multiply(rotation(value.rotate), multiply(scaling(value.sx, value.sy), translation(-pivot.x, -pivot.y))),
  );
}

/** Leaves moved by the same wrappers move together: one group, followed by the hull of their points. */
interface Group {
  /** Wrappers that move it, innermost first, with the root-space conversion of each. */
  chain: { host: Host; toRoot: Matrix; fromRoot: Matrix }[];
  points: Point[];
  pad: number;
}

/** Sample points per leaf for the hull of a group. */
const POINTS_PER_LEAF = 48;
/** Beyond this many leaves in a group, their boxes stand for them. */
const MANY_LEAVES = 200;

/**
 * The convex hull of points (monotone chain). Affine maps keep hulls, and the points farthest in
 * any direction lie on the hull, so following the hull is exact for containment in a box.
 */
export function convexHull(points: Point[]): Point[] {
  if (points.length <= 3) return points;
  const sorted = [...points].sort((a, b) => a.x - b.x || a.y - b.y);
  const cross = (o: Point, a: Point, b: Point) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  const lower: Point[] = [];
  for (const p of sorted) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (let i = sorted.length - 1; i >= 0; i--) {
    const p = sorted[i]!;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0) upper.pop();
    upper.push(p);
  }
  return [...lower.slice(0, -1), ...upper.slice(0, -1)];
}

const hulls = new WeakMap<Scene, Map<string, { points: Point[]; pad: number }>>();
const nodeIds = new WeakMap<SvgElement, number>();
let nextNodeId = 0;
const idOf = (node: SvgElement) => {
  let id = nodeIds.get(node);
  if (id === undefined) nodeIds.set(node, (id = nextNodeId++));
  return id;
};

const memberships = new WeakMap<Scene, Map<string, Map<string, { nodes: SvgElement[]; leaves: Leaf[] }>>>();

/** The leaves moved by each chain of moving nodes (innermost first), keyed by the chain; remembered per set of nodes. */
function membersOf(scene: Scene, moving: SvgElement[]): Map<string, { nodes: SvgElement[]; leaves: Leaf[] }> {
  const setKey = moving.map(idOf).sort((a, b) => a - b).join(',');
  let byScene = memberships.get(scene);
  if (!byScene) memberships.set(scene, (byScene = new Map()));
  const known = byScene.get(setKey);
  if (known) return known;
  const movingSet = new Set(moving);
  const chains = new Map<Leaf, SvgElement[]>();
  for (const node of moving) {
    for (const leaf of scene.leavesUnder.get(node) ?? []) {
      const list = chains.get(leaf);
      if (list) list.push(node);
      else chains.set(leaf, [node]);
    }
  }
  const members = new Map<string, { nodes: SvgElement[]; leaves: Leaf[] }>();
  for (const [leaf, nodes] of chains) {
    // Innermost first: the leaf itself, then its ancestors from the nearest.
    const ordered = nodes.length === 1 ? nodes : [leaf.element, ...[...leaf.ancestors].reverse()].filter((n) => movingSet.has(n) && nodes.includes(n));
    const key = ordered.map(idOf).join(',');
    const group = members.get(key);
    if (group) group.leaves.push(leaf);
    else members.set(key, { nodes: ordered, leaves: [leaf] });
  }
  byScene.set(setKey, members);
  return members;
}

function groups(scene: Scene, hosts: Host[]): Group[] {
  const moving = hosts.filter((h) => h.wrap && h.tracks.some((t) => t.keyframes.some((k) => k.values.transform)));
  if (moving.length === 0) return [];
  const byNode = new Map<SvgElement, Host[]>();
  for (const host of moving) {
    const list = byNode.get(host.node);
    if (list) list.push(host);
    else byNode.set(host.node, [host]);
  }
  const members = membersOf(scene, [...byNode.keys()]);
  let cache = hulls.get(scene);
  if (!cache) hulls.set(scene, (cache = new Map()));
  const out: Group[] = [];
  for (const [key, { nodes, leaves }] of members) {
    let hull = cache.get(key);
    if (!hull) {
      if (leaves.length > MANY_LEAVES) {
        // Many leaves: the corners of their boxes (paint margins included), a little generous under rotation.
        hull = { points: convexHull(leaves.flatMap((leaf) => boxCorners(leaf.box))), pad: 0 };
      } else {
        let pad = 0;
        for (const leaf of leaves) pad = Math.max(pad, leaf.pad);
        hull = { points: convexHull(leaves.flatMap((leaf) => leafPoints(leaf, POINTS_PER_LEAF))), pad };
      }
      cache.set(key, hull);
    }
    const chain: Group['chain'] = [];
    for (const node of nodes) {
      const space = parentSpace(scene, node);
      if (!space) continue;
      for (const host of byNode.get(node)!.slice().sort((a, b) => a.layer - b.layer)) chain.push({ host, toRoot: space.toRoot, fromRoot: space.fromRoot });
    }
    out.push({ chain, points: hull.points, pad: hull.pad });
  }
  return out;
}

/** Times to look at in a window: evenly spaced, plus every keyframe time of the hosts within it. */
function sampleTimes(hosts: Host[], fromMs: number, toMs: number): number[] {
  const span = Math.max(1, toMs - fromMs);
  const count = Math.min(160, Math.max(24, Math.ceil(span / 25)));
  const times = new Set<number>();
  for (let i = 0; i <= count; i++) times.add(fromMs + (span * i) / count);
  for (const host of hosts) {
    for (const track of host.tracks) {
      const end = Math.min(trackEnd(track), toMs);
      for (let start = track.delayMs; start <= end && start <= toMs; start += track.durationMs) {
        for (const keyframe of track.keyframes) {
          const t = start + keyframe.offset * track.durationMs;
          if (t >= fromMs && t <= toMs) times.add(t);
        }
        if (track.durationMs <= 0) break;
      }
    }
  }
  return [...times].sort((a, b) => a - b);
}

/**
 * How far (root units) the hosts' motion carries any drawn point beyond the region during
 * [fromMs, toMs]; 0 when everything stays inside.
 */
export function overshoot(scene: Scene, hosts: Host[], fromMs: number, toMs: number): number {
  const list = groups(scene, hosts);
  if (list.length === 0) return 0;
  const region = scene.region;
  let worst = 0;
  const cache = new Map<Host, Matrix>();
  for (const t of sampleTimes(hosts, fromMs, toMs)) {
    cache.clear();
    for (const group of list) {
      let m: Matrix = [1, 0, 0, 1, 0, 0];
      for (const { host, toRoot, fromRoot } of group.chain) {
        let step = cache.get(host);
        if (!step) {
          const { values, pivot } = hostValuesAt(host.tracks, t);
          step = values.transform ? multiply(toRoot, multiply(transformMatrix(values.transform, pivot), fromRoot)) : [1, 0, 0, 1, 0, 0];
          cache.set(host, step);
        }
        m = multiply(step, m);
      }
      const pad = group.pad * meanScale(m);
      const [a, b, c, d, e, f] = m;
      for (const point of group.points) {
        const x = a * point.x + c * point.y + e;
        const y = b * point.x + d * point.y + f;
        worst = Math.max(worst, region.minX - (x - pad), x + pad - region.maxX, region.minY - (y - pad), y + pad - region.maxY);
      }
    }
  }
  return worst;
}

/** Overshoot below this share of the viewBox's smaller side counts as inside (sampling noise). */
export const FIT_TOLERANCE = 0.002;

/**
 * The largest amplitude in [0, 1] for which `build(amplitude)` (new hosts, checked together with
 * those already placed) stays inside during the window. Bisection over six steps.
 */
export function fitAmplitude(scene: Scene, placed: Host[], build: (amplitude: number) => Host[], window: { fromMs: number; toMs: number }): number {
  const tolerance = FIT_TOLERANCE * Math.min(scene.viewBox.width, scene.viewBox.height);
  const fits = (amplitude: number) => overshoot(scene, [...placed, ...build(amplitude)], window.fromMs, window.toMs) <= tolerance;
  if (fits(1)) return 1;
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 6; i++) {
    const mid = (lo + hi) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}
