import { EASE, LINEAR } from '../timeline.ts';
import { frame, ms, oneVariant, openingTrack, wrapperHost } from './common.ts';
import type { MotionModule } from './types.ts';

/** Fade in: from transparent to the drawing's own opacity. */
export const fade: MotionModule = {
  name: 'fade',
  kind: 'opening',
  summary: 'Fades in from transparent (opacity 0 → 1 on a wrapper, 900 ms, easing out).',
  words: ['fade', 'fades', 'fading', 'faded', 'appear', 'appears', 'appearing', 'dissolve', 'dissolves', 'dissolving', 'materialize', 'materialise', 'materializes', 'materialises', 'emerge', 'emerges', 'emerging'],
  moves: false,
  scalable: false,
  minimumAmplitude: 0,
  variants: oneVariant,
  plan(input) {
    return input.targets.map((node) =>
      wrapperHost(node, 'fade', 3, openingTrack([frame(0, { opacity: 0 }, EASE.out), frame(1, { opacity: 1 }, LINEAR)], ms(900 * input.speed), input.startMs)),
    );
  },
};
