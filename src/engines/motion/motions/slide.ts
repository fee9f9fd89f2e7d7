import { LINEAR, cubic } from '../timeline.ts';
import { at, frame, lengthInParent, ms, openingTrack, wrapperHost } from './common.ts';
import type { Direction, MotionModule, PlanInput } from './types.ts';

const ORDER: Direction[] = ['right', 'left', 'up', 'down'];

/** The directions to try: the one asked for, else from the left first. */
export function slideDirections(input: Pick<PlanInput, 'options'>): Direction[] {
  return input.options.direction ? [input.options.direction] : ORDER;
}

/** Slide in: travels a quarter of the viewBox (or what room there is) into place while fading in. */
export const slide: MotionModule = {
  name: 'slide',
  kind: 'opening',
  summary:
    'Slides into place while fading in, from up to a quarter of the viewBox away (never from outside it); the direction comes from the prompt (default: from the left, else whichever side has room), 800 ms.',
  words: ['slide', 'slides', 'sliding', 'slid', 'glide', 'glides', 'gliding', 'swoop', 'swoops', 'swooping', 'sweep', 'sweeps', 'enter', 'enters', 'entering'],
  moves: true,
  scalable: true,
  minimumAmplitude: 0.15,
  fallback: 'fade',
  variants: (input) => slideDirections(input).length,
  plan(input) {
    const direction = slideDirections(input)[input.variant] ?? 'right';
    const vb = input.scene.viewBox;
    return input.targets.map((node) => {
      const axis = direction === 'left' || direction === 'right' ? 'x' : 'y';
      const distance = lengthInParent(input, node, 0.25 * input.amplitude * (axis === 'x' ? vb.width : vb.height), axis);
      // It travels in `direction`, so it starts on the other side.
      const sign = direction === 'right' || direction === 'down' ? -1 : 1;
      const start = axis === 'x' ? at({ tx: sign * distance }) : at({ ty: sign * distance });
      return wrapperHost(
        node,
        'slide',
        2,
        openingTrack([frame(0, { opacity: 0, transform: start }, cubic(0.22, 1, 0.36, 1)), frame(1, { opacity: 1, transform: at({}) }, LINEAR)], ms(800 * input.speed), input.startMs),
      );
    });
  },
};
