import { EASE, LINEAR, type Keyframe } from '../timeline.ts';
import { at, frame, lengthInParent, loopTrack, wrapperHost } from './common.ts';
import type { MotionModule } from './types.ts';

/** Float: drifts gently up and down about where it rests (4 % of the viewBox height each way). */
export const float: MotionModule = {
  name: 'float',
  kind: 'loop',
  summary:
    'Drifts gently up and down about where it rests, by up to 4 % of the viewBox height each way (3 s a cycle, sine-like); only up, or only down, when one side has no room.',
  words: ['float', 'floats', 'floating', 'floated', 'hover', 'hovers', 'hovering', 'bob', 'bobs', 'bobbing', 'drift', 'drifts', 'drifting', 'levitate', 'levitates', 'levitating'],
  moves: true,
  scalable: true,
  minimumAmplitude: 0.25,
  fallback: 'pulse',
  variants: () => 3,
  period: (input) => ({ preferredMs: 3000 * input.speed, minimumMs: 1500 }),
  plan(input) {
    return input.targets.map((node) => {
      const h = lengthInParent(input, node, 0.04 * input.amplitude * input.scene.viewBox.height, 'y');
      let keyframes: Keyframe[];
      if (input.variant === 0) {
        keyframes = [
          frame(0, { transform: at({}) }, EASE.sineOut),
          frame(0.25, { transform: at({ ty: -h }) }, EASE.sineInOut),
          frame(0.75, { transform: at({ ty: h }) }, EASE.sineIn),
          frame(1, { transform: at({}) }, LINEAR),
        ];
      } else {
        const peak = input.variant === 1 ? -h : h;
        keyframes = [frame(0, { transform: at({}) }, EASE.sineInOut), frame(0.5, { transform: at({ ty: peak }) }, EASE.sineInOut), frame(1, { transform: at({}) }, LINEAR)];
      }
      return wrapperHost(node, 'float', 2, loopTrack(keyframes, input.periodMs!, input.startMs));
    });
  },
};
