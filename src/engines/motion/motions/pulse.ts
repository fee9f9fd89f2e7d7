import { EASE, LINEAR } from '../timeline.ts';
import { at, frame, loopTrack, pivotFor, wrapperHost } from './common.ts';
import type { MotionModule } from './types.ts';

/**
 * Pulse: swells by up to 8 % and back, once a cycle. Where the viewBox leaves no room to swell,
 * it breathes inwards instead (a scale below 1 about the centre always stays inside).
 */
export const pulse: MotionModule = {
  name: 'pulse',
  kind: 'loop',
  summary:
    'Swells by up to 8 % about its centre and back (1.6 s a cycle, never faster than 1 s); inwards instead when the viewBox leaves no room. Flash, blink and twinkle mean this too: nothing ever flashes.',
  words: [
    'pulse', 'pulses', 'pulsing', 'pulsed', 'pulsate', 'pulsates', 'pulsating', 'beat', 'beats', 'beating', 'heartbeat', 'throb', 'throbs',
    'throbbing', 'breathe', 'breathes', 'breathing', 'glow', 'glows', 'glowing', 'blink', 'blinks', 'blinking', 'flash', 'flashes', 'flashing',
    'flicker', 'flickers', 'flickering', 'strobe', 'strobes', 'strobing', 'twinkle', 'twinkles', 'twinkling', 'sparkle', 'sparkles', 'sparkling', 'swell', 'swells', 'swelling',
  ],
  moves: true,
  scalable: true,
  minimumAmplitude: 0.4,
  variants: () => 2,
  period: (input) => ({ preferredMs: 1600 * input.speed, minimumMs: 1000 }),
  plan(input) {
    const sign = input.variant === 0 ? 1 : -1;
    const peak = 1 + sign * 0.08 * input.amplitude;
    return input.targets.map((node) =>
      wrapperHost(
        node,
        'pulse',
        1,
        loopTrack(
          [frame(0, { transform: at({}) }, EASE.sineInOut), frame(0.5, { transform: at({ sx: peak, sy: peak }) }, EASE.sineInOut), frame(1, { transform: at({}) }, LINEAR)],
          input.periodMs!,
          input.startMs,
          pivotFor(input, node),
        ),
      ),
    );
  },
};
