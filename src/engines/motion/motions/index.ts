// Every motion the animator knows, by name.

import { bounce } from './bounce.ts';
import { colourShift } from './colour-shift.ts';
import { drawOn } from './draw-on.ts';
import { fade } from './fade.ts';
import { float } from './float.ts';
import { pop } from './pop.ts';
import { pulse } from './pulse.ts';
import { shake } from './shake.ts';
import { slide } from './slide.ts';
import { spin } from './spin.ts';
import { stagger } from './stagger.ts';
import type { MotionModule, MotionName } from './types.ts';
import { wiggle } from './wiggle.ts';

export const MOTIONS: Record<MotionName, MotionModule> = {
  draw: drawOn,
  fade,
  pop,
  slide,
  stagger,
  pulse,
  spin,
  bounce,
  float,
  wiggle,
  shake,
  colour: colourShift,
};

export type { Direction, Entrance, Host, LoopTiming, MotionModule, MotionName, MotionOptions, PlanInput } from './types.ts';
export { MOTION_NAMES } from './types.ts';
