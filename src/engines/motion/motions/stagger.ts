import { EASE, LINEAR, cubic, type Keyframe } from '../timeline.ts';
import { at, frame, lengthInParent, ms, openingTrack, pivotFor, wrapperHost } from './common.ts';
import { slideDirections } from './slide.ts';
import type { MotionModule } from './types.ts';

/**
 * A staggered entrance: the parts of the drawing (or of the target) come in one after another,
 * each with its own entrance — rising into place by default, or popping, fading or sliding when
 * the prompt names one of those with it.
 */
export const stagger: MotionModule = {
  name: 'stagger',
  kind: 'opening',
  summary:
    'Brings the parts in one after another (each 500 ms, 60–180 ms apart): rising a little into place while fading in, or with the pop, fade or slide named with it.',
  words: ['stagger', 'staggers', 'staggered', 'staggering', 'cascade', 'cascades', 'cascading', 'sequence', 'sequential', 'sequentially', 'assemble', 'assembles', 'assembling', 'build', 'builds', 'building'],
  moves: true,
  scalable: true,
  minimumAmplitude: 0,
  variants: (input) => (input.options.entrance === 'slide' ? slideDirections(input).length : 1),
  plan(input) {
    const parts = input.targets;
    const step = Math.min(180, Math.max(60, 1200 / Math.max(1, parts.length))) * input.speed;
    const duration = ms(500 * input.speed);
    const entrance = input.options.entrance ?? 'rise';
    const vb = input.scene.viewBox;
    return parts.map((node, i) => {
      const start = input.startMs + Math.round(i * step);
      let keyframes: Keyframe[];
      let pivot;
      switch (entrance) {
        case 'pop': {
          const overshoot = 1 + 0.1 * input.amplitude;
          pivot = pivotFor(input, node);
          keyframes = [
            frame(0, { opacity: 0, transform: at({ sx: 0.3, sy: 0.3 }) }, cubic(0.2, 0.6, 0.35, 1)),
            frame(0.6, { opacity: 1, transform: at({ sx: overshoot, sy: overshoot }) }, EASE.inOut),
            frame(1, { opacity: 1, transform: at({}) }, LINEAR),
          ];
          break;
        }
        case 'fade':
          keyframes = [frame(0, { opacity: 0 }, EASE.out), frame(1, { opacity: 1 }, LINEAR)];
          break;
        case 'slide': {
          const direction = slideDirections(input)[input.variant] ?? 'right';
          const axis = direction === 'left' || direction === 'right' ? 'x' : 'y';
          const distance = lengthInParent(input, node, 0.15 * input.amplitude * (axis === 'x' ? vb.width : vb.height), axis);
          const sign = direction === 'right' || direction === 'down' ? -1 : 1;
          keyframes = [
            frame(0, { opacity: 0, transform: axis === 'x' ? at({ tx: sign * distance }) : at({ ty: sign * distance }) }, cubic(0.22, 1, 0.36, 1)),
            frame(1, { opacity: 1, transform: at({}) }, LINEAR),
          ];
          break;
        }
        default: {
          const rise = lengthInParent(input, node, 0.06 * input.amplitude * vb.height, 'y');
          keyframes = [frame(0, { opacity: 0, transform: at({ ty: rise }) }, cubic(0.22, 1, 0.36, 1)), frame(1, { opacity: 1, transform: at({}) }, LINEAR)];
        }
      }
      return wrapperHost(node, 'stagger', 2, openingTrack(keyframes, duration, start, pivot));
    });
  },
};
