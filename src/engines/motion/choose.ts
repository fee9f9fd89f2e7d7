// Choosing motions when the prompt names none, from what the drawing is.

import type { MotionName } from './motions/index.ts';
import type { PromptStep } from './prompt.ts';
import { partsOf, type Scene } from './scene.ts';
import type { Wheel } from './wheels.ts';

/** What the analysis found, for the choice and for tests. */
export interface DrawingKind {
  /** Share of drawn elements that are strokes without fill. */
  lineShare: number;
  parts: number;
  wheels: number;
  kind: 'line-art' | 'few-solid-shapes' | 'many-shapes';
}

/** Line art when at least this share of the drawn elements are strokes without fill. */
export const LINE_ART_SHARE = 0.6;
/** "A few" solid shapes: at most this many parts. */
export const FEW_PARTS = 12;

export function describeDrawing(scene: Scene, wheels: Wheel[]): DrawingKind {
  const lines = scene.leaves.filter((leaf) => leaf.lineArt).length;
  const lineShare = scene.leaves.length ? lines / scene.leaves.length : 0;
  const parts = partsOf(scene, Infinity).length;
  const kind = lineShare >= LINE_ART_SHARE ? 'line-art' : parts <= FEW_PARTS ? 'few-solid-shapes' : 'many-shapes';
  return { lineShare, parts, wheels: wheels.length, kind };
}

/** A motion the prompt ruled out is replaced by its nearest neighbour, or dropped. */
const INSTEAD: Partial<Record<MotionName, MotionName>> = { draw: 'fade', stagger: 'pop', pop: 'fade', float: 'pulse', pulse: 'float' };

/**
 * The rules, in order:
 * 1. wheels (round outlines with spokes or teeth repeating round a centre) spin, after the
 *    drawing's entrance (rules 2–4 without their loop);
 * 2. line art (most drawn elements are strokes without fill) is drawn on;
 * 3. a few solid shapes (2–12 parts) pop in one after another, then float gently (pulse when
 *    there is no room to float); a single shape pops in, then pulses;
 * 4. anything busier fades in, then floats gently (or pulses).
 */
export function chooseMotions(scene: Scene, wheels: Wheel[], negated: readonly MotionName[] = []): PromptStep[] {
  const drawing = describeDrawing(scene, wheels);
  const steps: PromptStep[] = [];
  const add = (motion: MotionName, group: number, step: Partial<PromptStep> = {}) => {
    let chosen: MotionName | undefined = motion;
    for (let i = 0; chosen && negated.includes(chosen) && i < 3; i++) chosen = INSTEAD[chosen];
    if (!chosen || negated.includes(chosen)) return;
    steps.push({ motion: chosen, group, words: [], options: {}, ...step });
  };
  if (drawing.kind === 'line-art') add('draw', 0);
  else if (drawing.kind === 'few-solid-shapes' && drawing.parts >= 2) add('stagger', 0, { options: { entrance: 'pop' } });
  else if (drawing.kind === 'few-solid-shapes') add('pop', 0);
  else add('fade', 0);
  if (wheels.length > 0) add('spin', 1, { kind: 'wheels' });
  else if (drawing.kind === 'few-solid-shapes' && drawing.parts < 2) add('pulse', 1);
  else if (drawing.kind !== 'line-art') add('float', 1);
  return steps;
}
