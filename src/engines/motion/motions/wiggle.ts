import { EASE, LINEAR } from '../timeline.ts';
import { at, frame, loopTrack, oneVariant, pivotFor, wrapperHost } from './common.ts';
import type { MotionModule } from './types.ts';

/**
 * Wiggle: a burst of dying swings about its centre (±8° at most), then a rest. The burst's
 * swings are 192 ms apart or more: fewer than three back-and-forths in any second.
 */
export const wiggle: MotionModule = {
  name: 'wiggle',
  kind: 'loop',
  summary:
    'Swings about its centre, +8°, −8°, +5°, −2.4°, then rests (the swings take 40 % of a 2.4 s cycle; at least 2.4 s, so under three swings a second).',
  words: [
    'wiggle', 'wiggles', 'wiggling', 'wobble', 'wobbles', 'wobbling', 'jiggle', 'jiggles', 'jiggling', 'rock', 'rocks', 'rocking', 'sway',
    'sways', 'swaying', 'swing', 'swings', 'swinging', 'tilt', 'tilts', 'tilting', 'wave', 'waves', 'waving', 'dance', 'dances', 'dancing',
    'waggle', 'waggles', 'waggling',
  ],
  moves: true,
  scalable: true,
  minimumAmplitude: 0.25,
  fallback: 'pulse',
  variants: oneVariant,
  period: (input) => ({ preferredMs: 2400 * input.speed, minimumMs: 2400 }),
  plan(input) {
    const a = 8 * input.amplitude;
    return input.targets.map((node) =>
      wrapperHost(
        node,
        'wiggle',
        0,
        loopTrack(
          [
            frame(0, { transform: at({}) }, EASE.inOut),
            frame(0.08, { transform: at({ rotate: a }) }, EASE.inOut),
            frame(0.16, { transform: at({ rotate: -a }) }, EASE.inOut),
            frame(0.24, { transform: at({ rotate: 0.6 * a }) }, EASE.inOut),
            frame(0.32, { transform: at({ rotate: -0.3 * a }) }, EASE.inOut),
            frame(0.4, { transform: at({}) }, LINEAR),
            frame(1, { transform: at({}) }, LINEAR),
          ],
          input.periodMs!,
          input.startMs,
          pivotFor(input, node),
        ),
      ),
    );
  },
};
