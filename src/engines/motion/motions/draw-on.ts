import { walk } from '../../../svg/sanitize.ts';
import type { SvgElement } from '../../../svg/tree.ts';
import { SHAPES, type Leaf, type Scene } from '../scene.ts';
import { EASE, LINEAR } from '../timeline.ts';
import { frame, ms, oneVariant, openingTrack, wrapperHost } from './common.ts';
import type { Host, MotionModule } from './types.ts';

/** Dash and gap of a hidden stroke: one dash as long as the path, and a gap a little longer. */
export const DASH: [number, number] = [1, 1.01];
/** The offset at which the dash lies wholly beyond the start of the path. */
export const HIDDEN_OFFSET = 1.005;

/** Ids a `<textPath>` follows: their pathLength places text, so it is left alone. */
function textPathTargets(scene: Scene): Set<string> {
  const ids = new Set<string>();
  for (const el of walk(scene.root)) {
    if (el.name !== 'textPath') continue;
    const href = (el.attributes.get('href') ?? el.attributes.get('xlink:href') ?? '').trim();
    if (href.startsWith('#')) ids.add(href.slice(1));
  }
  return ids;
}

/** Whether a leaf's stroke can be drawn on with a normalized dash. */
export function drawable(leaf: Leaf, followed: Set<string>): boolean {
  return (
    SHAPES.has(leaf.element.name) &&
    leaf.style.stroke.kind !== 'none' &&
    leaf.style.strokeWidth > 0 &&
    !leaf.style.dashed &&
    !followed.has(leaf.element.attributes.get('id') ?? '\u0000')
  );
}

/**
 * Draw-on: each stroke is drawn from its start to its end (stroke-dashoffset over a dash as long
 * as the path, with pathLength="1" so no length has to be known), one after another with some
 * overlap; fills of drawn shapes fade in once their outline is complete, and what has no stroke
 * to draw (solid shapes, text, images) fades in towards the end.
 */
export const drawOn: MotionModule = {
  name: 'draw',
  kind: 'opening',
  summary:
    'Draws each stroke from its start (stroke-dashoffset with pathLength="1"), one after another with overlap (1.5–3.5 s in all); fills fade in once their outline is drawn, and parts with no stroke fade in at the end.',
  words: ['draw', 'draws', 'drawing', 'drawn', 'sketch', 'sketches', 'sketching', 'sketched', 'trace', 'traces', 'tracing', 'traced', 'write', 'writes', 'writing', 'written', 'handwrite', 'handwriting', 'ink', 'inks', 'inking', 'inked'],
  moves: false,
  scalable: false,
  minimumAmplitude: 0,
  fallback: 'fade',
  variants: oneVariant,
  plan(input) {
    const followed = textPathTargets(input.scene);
    const seen = new Set<SvgElement>();
    const leaves: Leaf[] = [];
    for (const node of input.targets) {
      for (const leaf of input.scene.leavesUnder.get(node) ?? []) {
        if (!seen.has(leaf.element)) {
          seen.add(leaf.element);
          leaves.push(leaf);
        }
      }
    }
    const lines = leaves.filter((leaf) => drawable(leaf, followed));
    if (lines.length === 0) return [];
    const n = lines.length;
    const total = Math.min(3500, Math.max(1500, 900 + 250 * n)) * input.speed;
    const each = n === 1 ? total : Math.min(total, Math.max(600 * input.speed, total * 0.5));
    const step = n > 1 ? (total - each) / (n - 1) : 0;
    const hosts: Host[] = [];
    lines.forEach((leaf, i) => {
      const start = input.startMs + Math.round(i * step);
      const duration = ms(each);
      const tracks = [
        openingTrack(
          [
            frame(0, { 'stroke-dasharray': DASH, 'stroke-dashoffset': HIDDEN_OFFSET }, EASE.inOut),
            frame(1, { 'stroke-dasharray': DASH, 'stroke-dashoffset': 0 }, LINEAR),
          ],
          duration,
          start,
        ),
      ];
      if (leaf.style.fill.kind !== 'none' && leaf.style.fillOpacity > 0) {
        tracks.push(
          openingTrack(
            [frame(0, { 'fill-opacity': 0 }, EASE.out), frame(1, { 'fill-opacity': leaf.style.fillOpacity }, LINEAR)],
            ms(400 * input.speed),
            start + duration,
          ),
        );
      }
      hosts.push({ node: leaf.element, wrap: false, layer: 0, tracks, motion: 'draw', pathLength: true });
    });
    const end = input.startMs + Math.round(total);
    const drawn = new Set(lines.map((leaf) => leaf.element));
    const rest = leaves.filter((leaf) => !drawn.has(leaf.element));
    const fadeStart = input.startMs + Math.round(total * 0.6);
    for (const leaf of rest) {
      hosts.push(
        wrapperHost(
          leaf.element,
          'draw',
          3,
          openingTrack([frame(0, { opacity: 0 }, EASE.out), frame(1, { opacity: 1 }, LINEAR)], Math.max(1, end - fadeStart), fadeStart),
        ),
      );
    }
    return hosts;
  },
};
