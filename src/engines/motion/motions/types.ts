// What a motion module is: a named, documented way of moving part of a drawing, which turns a
// target and a start time into CSS animations (tracks) on hosts — wrappers around the target, or
// the target element itself.

import type { SvgElement } from '../../../svg/tree.ts';
import type { Point } from '../geometry.ts';
import type { Scene } from '../scene.ts';
import type { Track } from '../timeline.ts';

export const MOTION_NAMES = ['draw', 'fade', 'pop', 'slide', 'stagger', 'pulse', 'spin', 'bounce', 'float', 'wiggle', 'shake', 'colour'] as const;
export type MotionName = (typeof MOTION_NAMES)[number];

/** Where something travels to. */
export type Direction = 'left' | 'right' | 'up' | 'down';

/** The entrance each part makes in a staggered entrance. */
export type Entrance = 'rise' | 'pop' | 'fade' | 'slide';

/**
 * Animations on one node. A wrapper host puts a `<g>` around the node and animates it (transform,
 * opacity), which leaves the node's own attributes alone; an element host animates the node
 * itself (dashes, colours), which a wrapper cannot do since those properties are set on the
 * node. Several wrappers around one node nest by layer, the lowest nearest to the node.
 */
export interface Host {
  node: SvgElement;
  wrap: boolean;
  layer: number;
  tracks: Track[];
  motion: MotionName;
  /** Element hosts drawn on with normalized dashes carry pathLength="1". */
  pathLength?: boolean;
}

export interface MotionOptions {
  direction?: Direction;
  clockwise?: boolean;
  entrance?: Entrance;
}

export interface PlanInput {
  scene: Scene;
  /** The nodes to move (the stage for the whole drawing). */
  targets: SvgElement[];
  startMs: number;
  /** Multiplies durations (slow > 1 > fast); never below a motion's safe minimum. */
  speed: number;
  /** 0–1: the share of the motion's full movement that fits in the viewBox (1 for motions that do not move). */
  amplitude: number;
  /** Which of the motion's variants (0 first). */
  variant: number;
  /** Loops: the length of one cycle, chosen with the other loops so they share one period. */
  periodMs?: number;
  options: MotionOptions;
  /** The root-space point a node turns or scales about (a wheel's centre, else the centre of its box). */
  pivotOf(node: SvgElement): Point;
}

export interface LoopTiming {
  preferredMs: number;
  /** Faster would flash or shake more than three times a second. */
  minimumMs: number;
}

export interface MotionModule {
  name: MotionName;
  kind: 'opening' | 'loop';
  /** One line for the documentation. */
  summary: string;
  /** Prompt words (every inflection written out) that choose it. */
  words: readonly string[];
  /** Moves geometry, so its amplitude is fitted to the viewBox. */
  moves: boolean;
  /** Its movement can be made smaller (a spin cannot: it turns all the way or not at all). */
  scalable: boolean;
  /** Variants tried in order when the first does not fit (directions, sides). */
  variants(input: Omit<PlanInput, 'amplitude' | 'variant' | 'periodMs'>): number;
  /** Below this fitted amplitude the next variant (or the fallback) is tried. */
  minimumAmplitude: number;
  /** What to do instead when no variant fits. */
  fallback?: MotionName;
  /** Loops: how long one cycle wants to be. */
  period?(input: Omit<PlanInput, 'amplitude' | 'variant' | 'periodMs'>): LoopTiming;
  plan(input: PlanInput): Host[];
}
