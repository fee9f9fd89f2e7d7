// Small helpers the motion modules share.

import type { SvgElement } from '../../../svg/tree.ts';
import { applyMatrix, boxCenter, type Point } from '../geometry.ts';
import { nodeBox, parentSpace, type Scene } from '../scene.ts';
import { REST_TRANSFORM, type Easing, type Keyframe, type Track, type TransformValue, type Values } from '../timeline.ts';
import type { Host, MotionName, PlanInput } from './types.ts';

/** A transform keyframe value: rest plus the given changes. */
export const at = (change: Partial<TransformValue>): TransformValue => ({ ...REST_TRANSFORM, ...change });

export const frame = (offset: number, values: Values, easing: Easing): Keyframe => ({ offset, values, easing });

/** A point of the root's space in the coordinates of a node's wrapper (its parent's). */
export function inParent(scene: Scene, node: SvgElement, p: Point): Point {
  const space = parentSpace(scene, node);
  return space ? applyMatrix(space.fromRoot, p) : p;
}

/** The node's pivot in its wrapper's coordinates. */
export function pivotFor(input: PlanInput, node: SvgElement): Point {
  return inParent(input.scene, node, input.pivotOf(node));
}

/** The bottom centre of a node's box, in its wrapper's coordinates (bounces land on it). */
export function basePivot(input: PlanInput, node: SvgElement): Point {
  const box = nodeBox(input.scene, node);
  if (!box) return pivotFor(input, node);
  return inParent(input.scene, node, { x: boxCenter(box).x, y: box.maxY });
}

/**
 * A length of the root's space (a share of the viewBox) in a node's wrapper coordinates, along x or y:
 * motions are sized on the canvas, whatever the scale of the groups above the node.
 */
export function lengthInParent(input: PlanInput, node: SvgElement, length: number, axis: 'x' | 'y'): number {
  const space = parentSpace(input.scene, node);
  if (!space) return length;
  const origin = applyMatrix(space.fromRoot, { x: 0, y: 0 });
  const tip = applyMatrix(space.fromRoot, axis === 'x' ? { x: length, y: 0 } : { x: 0, y: length });
  return Math.hypot(tip.x - origin.x, tip.y - origin.y);
}

export function wrapperHost(node: SvgElement, motion: MotionName, layer: number, track: Track): Host {
  return { node, wrap: true, layer, tracks: [track], motion };
}

export function loopTrack(keyframes: Keyframe[], periodMs: number, startMs: number, pivot?: Point): Track {
  return { keyframes, pivot, durationMs: periodMs, delayMs: startMs, iterations: 'infinite', fill: 'none' };
}

export function openingTrack(keyframes: Keyframe[], durationMs: number, startMs: number, pivot?: Point): Track {
  return { keyframes, pivot, durationMs, delayMs: startMs, iterations: 1, fill: 'backwards' };
}

/** Durations are whole milliseconds. */
export const ms = (value: number) => Math.max(1, Math.round(value));

export const oneVariant = () => 1;
