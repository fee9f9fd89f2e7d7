import { EASE, LINEAR } from '../timeline.ts';
import { at, frame, lengthInParent, loopTrack, oneVariant, wrapperHost } from './common.ts';
import type { MotionModule } from './types.ts';

/** Shake: a burst of side-to-side jolts (3 % of the viewBox width), then a rest. */
export const shake: MotionModule = {
  name: 'shake',
  kind: 'loop',
  summary:
    'Jolts side to side by up to 3 % of the viewBox width, four times in 0.8 s, then rests (2 s a cycle, never shorter: two and a half back-and-forths a second at most).',
  words: [
    'shake', 'shakes', 'shaking', 'shook', 'shiver', 'shivers', 'shivering', 'tremble', 'trembles', 'trembling', 'vibrate', 'vibrates',
    'vibrating', 'vibration', 'jitter', 'jitters', 'jittering', 'rattle', 'rattles', 'rattling', 'buzz', 'buzzes', 'buzzing', 'quake', 'quakes',
    'quaking', 'quiver', 'quivers', 'quivering',
  ],
  moves: true,
  scalable: true,
  minimumAmplitude: 0.25,
  fallback: 'wiggle',
  variants: oneVariant,
  period: (input) => ({ preferredMs: 2000 * input.speed, minimumMs: 2000 }),
  plan(input) {
    return input.targets.map((node) => {
      const d = lengthInParent(input, node, 0.03 * input.amplitude * input.scene.viewBox.width, 'x');
      return wrapperHost(
        node,
        'shake',
        2,
        loopTrack(
          [
            frame(0, { transform: at({}) }, EASE.inOut),
            frame(0.1, { transform: at({ tx: d }) }, EASE.inOut),
            frame(0.2, { transform: at({ tx: -d }) }, EASE.inOut),
            frame(0.3, { transform: at({ tx: d }) }, EASE.inOut),
            frame(0.4, { transform: at({ tx: -d }) }, EASE.inOut),
            frame(0.5, { transform: at({}) }, LINEAR),
            frame(1, { transform: at({}) }, LINEAR),
          ],
          input.periodMs!,
          input.startMs,
        ),
      );
    });
  },
};
