import { EASE, LINEAR } from '../timeline.ts';
import { at, basePivot, frame, lengthInParent, loopTrack, wrapperHost } from './common.ts';
import type { MotionModule } from './types.ts';

/**
 * Bounce: hops up (up to 15 % of the viewBox's height, as room allows) and lands with a small
 * squash on its base. With no room above, it only squashes on its base.
 */
export const bounce: MotionModule = {
  name: 'bounce',
  kind: 'loop',
  summary:
    'Hops up by up to 15 % of the viewBox height (as much as there is room for above it), falls back and squashes a little on landing (1.2 s a hop); with no room above, only the squash.',
  words: ['bounce', 'bounces', 'bouncing', 'bounced', 'bouncy', 'hop', 'hops', 'hopping', 'jump', 'jumps', 'jumping', 'leap', 'leaps', 'leaping'],
  moves: true,
  scalable: true,
  minimumAmplitude: 0.25,
  fallback: 'pulse',
  variants: () => 2,
  period: (input) => ({ preferredMs: 1200 * input.speed, minimumMs: 800 }),
  plan(input) {
    return input.targets.map((node) => {
      const height = input.variant === 0 ? lengthInParent(input, node, 0.15 * input.amplitude * input.scene.viewBox.height, 'y') : 0;
      // The squash presses it down on its base (never wider: it could leave the viewBox sideways).
      const squash = { sy: 1 - (input.variant === 0 ? 0.08 : 0.1) * input.amplitude };
      return wrapperHost(
        node,
        'bounce',
        2,
        loopTrack(
          [
            frame(0, { transform: at({}) }, EASE.rise),
            frame(0.4, { transform: at({ ty: -height }) }, EASE.fall),
            frame(0.8, { transform: at({}) }, EASE.out),
            frame(0.88, { transform: at(squash) }, EASE.inOut),
            frame(1, { transform: at({}) }, LINEAR),
          ],
          input.periodMs!,
          input.startMs,
          basePivot(input, node),
        ),
      );
    });
  },
};
