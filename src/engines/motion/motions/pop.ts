import { EASE, LINEAR, cubic } from '../timeline.ts';
import { at, frame, ms, oneVariant, openingTrack, pivotFor, wrapperHost } from './common.ts';
import type { MotionModule } from './types.ts';

/** Pop in: grows from small with a little overshoot (as much as the viewBox leaves room for). */
export const pop: MotionModule = {
  name: 'pop',
  kind: 'opening',
  summary: 'Pops in: scales up from 30 % while fading in, overshoots by up to 10 % (only as far as the viewBox allows) and settles, 650 ms.',
  words: ['pop', 'pops', 'popping', 'popped', 'zoom', 'zooms', 'zooming', 'zoomed', 'scale', 'scales', 'scaling', 'grow', 'grows', 'growing', 'burst', 'bursts'],
  moves: true,
  scalable: true,
  minimumAmplitude: 0,
  variants: oneVariant,
  plan(input) {
    const overshoot = 1 + 0.1 * input.amplitude;
    return input.targets.map((node) =>
      wrapperHost(
        node,
        'pop',
        1,
        openingTrack(
          [
            frame(0, { opacity: 0, transform: at({ sx: 0.3, sy: 0.3 }) }, cubic(0.2, 0.6, 0.35, 1)),
            frame(0.6, { opacity: 1, transform: at({ sx: overshoot, sy: overshoot }) }, EASE.inOut),
            frame(1, { opacity: 1, transform: at({}) }, LINEAR),
          ],
          ms(650 * input.speed),
          input.startMs,
          pivotFor(input, node),
        ),
      ),
    );
  },
};
