import type { SvgElement } from '../../../svg/tree.ts';
import { leafPoints, type Scene } from '../scene.ts';
import type { Point } from '../geometry.ts';
import { LINEAR } from '../timeline.ts';
import { at, frame, loopTrack, oneVariant, pivotFor, wrapperHost } from './common.ts';
import type { MotionModule } from './types.ts';

/**
 * How many luminance changes a fixed point sees per turn, at most: outline points are binned in
 * rings about the pivot, and each ring's angular clusters counted — a filled outline passing
 * changes a point once, a stroke twice (dark in, dark out). A point changed E times per turn
 * flashes E/2 times, so a turn lasting at least E × 250 ms keeps to two flashes a second.
 */
export function changesPerTurn(scene: Scene, nodes: SvgElement[], pivot: (node: SvgElement) => Point): number {
  let most = 0;
  for (const node of nodes) {
    const centre = pivot(node);
    const points: { r: number; a: number; weight: number }[] = [];
    const leaves = scene.leavesUnder.get(node) ?? [];
    const perLeaf = Math.max(16, Math.min(400, Math.floor(40_000 / Math.max(1, leaves.length))));
    for (const leaf of leaves) {
      const weight = leaf.style.stroke.kind !== 'none' && leaf.style.strokeWidth > 0 ? 2 : 1;
      for (const p of leafPoints(leaf, perLeaf)) points.push({ r: Math.hypot(p.x - centre.x, p.y - centre.y), a: Math.atan2(p.y - centre.y, p.x - centre.x), weight });
    }
    let rMax = 0;
    for (const p of points) if (p.r > rMax) rMax = p.r;
    if (rMax <= 0) continue;
    const rings = 16;
    const bins: { a: number; weight: number }[][] = Array.from({ length: rings }, () => []);
    for (const p of points) bins[Math.min(rings - 1, Math.floor((p.r / rMax) * rings))]!.push(p);
    for (const ring of bins) {
      if (ring.length === 0) continue;
      ring.sort((a, b) => a.a - b.a);
      // A gap wider than 6° starts a new crossing; a crossing weighs what its heaviest point does.
      let changes = 0;
      let weight = 0;
      let start = -1;
      for (let i = 0; i < ring.length; i++) {
        const previous = i === 0 ? ring[ring.length - 1]!.a - 2 * Math.PI : ring[i - 1]!.a;
        if (ring[i]!.a - previous > (6 * Math.PI) / 180) {
          if (start >= 0) changes += weight;
          start = i;
          weight = 0;
        }
        weight = Math.max(weight, ring[i]!.weight);
      }
      changes += start >= 0 ? weight : 0;
      most = Math.max(most, changes);
    }
  }
  return most;
}

/** A turn lasts at least this long per luminance change a point sees in it (two flashes a second). */
export const MS_PER_CHANGE = 250;

/** Spin: turns all the way round about its centre (a wheel's hub), at a speed that never flickers. */
export const spin: MotionModule = {
  name: 'spin',
  kind: 'loop',
  summary:
    'Turns all the way round about its centre (a wheel about its hub), clockwise unless the prompt says otherwise; 3 s a turn, slower when many edges pass a point (a turn lasts at least 250 ms per change of light and dark it brings to a point: two flashes a second at most). When a full turn would leave the viewBox, it rocks instead (wiggle).',
  words: [
    'spin', 'spins', 'spinning', 'spun', 'rotate', 'rotates', 'rotating', 'rotated', 'rotation', 'turn', 'turns', 'turning', 'revolve', 'revolves',
    'revolving', 'whirl', 'whirls', 'whirling', 'twirl', 'twirls', 'twirling', 'roll', 'rolls', 'rolling', 'swirl', 'swirls', 'swirling',
  ],
  moves: true,
  scalable: false,
  minimumAmplitude: 1,
  fallback: 'wiggle',
  variants: oneVariant,
  period(input) {
    const changes = changesPerTurn(input.scene, input.targets, input.pivotOf);
    const minimumMs = Math.max(1500, changes * MS_PER_CHANGE);
    return { preferredMs: Math.max(3000 * input.speed, minimumMs), minimumMs };
  },
  plan(input) {
    const turn = input.options.clockwise === false ? -360 : 360;
    return input.targets.map((node) =>
      wrapperHost(
        node,
        'spin',
        0,
        loopTrack([frame(0, { transform: at({}) }, LINEAR), frame(1, { transform: at({ rotate: turn }) }, LINEAR)], input.periodMs!, input.startMs, pivotFor(input, node)),
      ),
    );
  },
};
