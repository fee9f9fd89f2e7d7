import { readDeclarations } from '../../../svg/css/declarations.ts';
import { walk } from '../../../svg/sanitize.ts';
import { isElement, type SvgElement } from '../../../svg/tree.ts';
import { parseOpaqueColour, shiftHue, type Rgb } from '../colour.ts';
import type { Scene } from '../scene.ts';
import { LINEAR, type Values } from '../timeline.ts';
import { frame, loopTrack, oneVariant } from './common.ts';
import type { Host, MotionModule } from './types.ts';

/**
 * Most elements (and gradient stops) one colour shift animates. Each distinct colour needs its
 * own keyframes: beyond this the document would grow by megabytes, and the pulse is used instead.
 */
export const MAX_COLOUR_HOSTS = 1024;

/** Hue steps of one cycle: the colour itself, five shifts 60° apart, and back. */
const STEPS = 6;

function colourCycle(colour: Rgb): Rgb[] {
  return Array.from({ length: STEPS + 1 }, (_, k) => (k === 0 || k === STEPS ? colour : shiftHue(colour, 60 * k)));
}

/** The `<stop>`s a gradient paints with, following href templates (at most a few). */
function stopsOf(scene: Scene, gradient: SvgElement | undefined): SvgElement[] {
  for (let depth = 0; gradient && depth < 8; depth++) {
    if (gradient.name !== 'linearGradient' && gradient.name !== 'radialGradient') return [];
    const stops = gradient.children.filter((c): c is SvgElement => isElement(c) && c.name === 'stop');
    if (stops.length > 0) return stops;
    const href = (gradient.attributes.get('href') ?? gradient.attributes.get('xlink:href') ?? '').trim();
    gradient = href.startsWith('#') ? scene.byId.get(href.slice(1)) : undefined;
  }
  return [];
}

function stopColour(stop: SvgElement): Rgb | undefined {
  const inline = stop.attributes.get('style');
  const value = (inline && readDeclarations(inline).findLast((d) => d.property === 'stop-color')?.value) ?? stop.attributes.get('stop-color') ?? 'black';
  return parseOpaqueColour(value);
}

function sheetSetsStopColour(scene: Scene): boolean {
  for (const el of walk(scene.root)) if (el.name === 'style' && el.children.some((c) => 'text' in c && /stop-color/i.test(c.text))) return true;
  return false;
}

/**
 * Colour shift: every solid fill and stroke (and the stops of gradients) travels once round the
 * colour wheel per cycle; colours without a hue (black, white, greys) are tinted instead. One
 * step a second at the default pace, never under half a second: no flashing.
 */
export const colourShift: MotionModule = {
  name: 'colour',
  kind: 'loop',
  summary:
    'Shifts every solid fill, stroke and gradient stop round the colour wheel and back to its own colour (6 s a cycle, one 60° step a second; never under 3 s, so colours change at most twice a second); greys, black and white are tinted. Drawings with more than 1024 coloured elements pulse instead.',
  words: ['colour', 'colours', 'color', 'colors', 'colourful', 'colorful', 'hue', 'hues', 'rainbow', 'recolour', 'recolor', 'tint', 'tints', 'chromatic', 'psychedelic'],
  moves: false,
  scalable: false,
  minimumAmplitude: 0,
  fallback: 'pulse',
  variants: oneVariant,
  period: (input) => ({ preferredMs: 6000 * input.speed, minimumMs: 3000 }),
  plan(input) {
    const scene = input.scene;
    const hosts: Host[] = [];
    const seen = new Set<SvgElement>();
    const gradients = new Set<SvgElement>();
    const track = (values: Values[]) =>
      loopTrack(
        values.map((v, k) => frame(k / STEPS, v, LINEAR)),
        input.periodMs!,
        input.startMs,
      );
    for (const node of input.targets) {
      for (const leaf of scene.leavesUnder.get(node) ?? []) {
        if (seen.has(leaf.element) || leaf.style.uncertain) continue;
        seen.add(leaf.element);
        const { fill, stroke } = leaf.style;
        const fills = fill.kind === 'colour' ? colourCycle(fill.rgb) : undefined;
        const strokes = stroke.kind === 'colour' && leaf.style.strokeWidth > 0 ? colourCycle(stroke.rgb) : undefined;
        for (const paint of [fill, stroke]) {
          const gradient = paint.kind === 'url' ? scene.byId.get(paint.id) : undefined;
          if (gradient) gradients.add(gradient);
        }
        if (!fills && !strokes) continue;
        if (leaf.element.name === 'use' || leaf.element.name === 'image') continue;
        const values = Array.from({ length: STEPS + 1 }, (_, k) => ({ ...(fills ? { fill: fills[k] } : {}), ...(strokes ? { stroke: strokes[k] } : {}) }));
        hosts.push({ node: leaf.element, wrap: false, layer: 0, tracks: [track(values)], motion: 'colour' });
      }
    }
    if (!sheetSetsStopColour(scene)) {
      const stops = new Set<SvgElement>();
      for (const gradient of gradients) for (const stop of stopsOf(scene, gradient)) stops.add(stop);
      for (const stop of stops) {
        const colour = stopColour(stop);
        if (!colour) continue;
        const cycle = colourCycle(colour);
        hosts.push({ node: stop, wrap: false, layer: 0, tracks: [track(cycle.map((c) => ({ 'stop-color': c })))], motion: 'colour' });
      }
    }
    return hosts.length > MAX_COLOUR_HOSTS ? [] : hosts;
  },
};
