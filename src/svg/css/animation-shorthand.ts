// The `animation` shorthand, read as CSS Animations 1 defines it: each comma-separated layer
// gives its eight longhands, in any order, the first time being the duration and the second the
// delay; a longhand a layer leaves out takes its initial value.
import { splitTopLevel } from './text.ts';

const TIMING_KEYWORDS = new Set(['ease', 'linear', 'ease-in', 'ease-out', 'ease-in-out', 'step-start', 'step-end']);
const DIRECTIONS = new Set(['normal', 'reverse', 'alternate', 'alternate-reverse']);
const FILL_MODES = new Set(['none', 'forwards', 'backwards', 'both']);
const PLAY_STATES = new Set(['running', 'paused']);
const WIDE_KEYWORDS = new Set(['initial', 'inherit', 'unset', 'revert', 'revert-layer']);

export const ANIMATION_LONGHANDS = [
  'animation-name',
  'animation-duration',
  'animation-timing-function',
  'animation-delay',
  'animation-iteration-count',
  'animation-direction',
  'animation-fill-mode',
  'animation-play-state',
] as const;
export type AnimationLonghand = (typeof ANIMATION_LONGHANDS)[number];

const INITIAL: Record<AnimationLonghand, string> = {
  'animation-name': 'none',
  'animation-duration': '0s',
  'animation-timing-function': 'ease',
  'animation-delay': '0s',
  'animation-iteration-count': '1',
  'animation-direction': 'normal',
  'animation-fill-mode': 'none',
  'animation-play-state': 'running',
};

/** Tokens of one shorthand layer: functions (`cubic-bezier(…)`) stay whole. */
function layerTokens(layer: string): string[] {
  const tokens: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of layer.trim()) {
    if (c === '(') depth++;
    if (c === ')') depth = Math.max(0, depth - 1);
    if (/\s/.test(c) && depth === 0) {
      if (current) tokens.push(current);
      current = '';
    } else current += c;
  }
  if (current) tokens.push(current);
  return tokens;
}

/**
 * `animation: name 2s ease-in 1s infinite alternate both` → its eight longhands (each a
 * comma-separated list, one item per layer).
 */
export function expandAnimationShorthand(value: string): { property: AnimationLonghand; value: string }[] {
  if (WIDE_KEYWORDS.has(value.trim().toLowerCase())) {
    return ANIMATION_LONGHANDS.map((property) => ({ property, value: INITIAL[property] }));
  }
  const layers = splitTopLevel(value, ',').map(readLayer);
  return ANIMATION_LONGHANDS.map((property) => ({ property, value: layers.map((layer) => layer[property]).join(', ') }));
}

/** One layer's longhands: keywords are matched as the spec orders them, the leftover identifier is the name. */
function readLayer(layer: string): Record<AnimationLonghand, string> {
  const out: Record<AnimationLonghand, string> = { ...INITIAL };
  const seen = new Set<AnimationLonghand>();
  let times = 0;
  for (const token of layerTokens(layer)) {
    const lower = token.toLowerCase();
    if (/^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?m?s$/i.test(token)) {
      if (times === 0) out['animation-duration'] = token;
      else out['animation-delay'] = token;
      times++;
    } else if (!seen.has('animation-timing-function') && (TIMING_KEYWORDS.has(lower) || /^(cubic-bezier|steps|linear)\(/.test(lower))) {
      out['animation-timing-function'] = token;
      seen.add('animation-timing-function');
    } else if (!seen.has('animation-iteration-count') && (lower === 'infinite' || /^(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/.test(lower))) {
      out['animation-iteration-count'] = token;
      seen.add('animation-iteration-count');
    } else if (!seen.has('animation-direction') && DIRECTIONS.has(lower)) {
      out['animation-direction'] = lower;
      seen.add('animation-direction');
    } else if (!seen.has('animation-fill-mode') && FILL_MODES.has(lower) && lower !== 'none') {
      out['animation-fill-mode'] = lower;
      seen.add('animation-fill-mode');
    } else if (!seen.has('animation-play-state') && PLAY_STATES.has(lower)) {
      out['animation-play-state'] = lower;
      seen.add('animation-play-state');
    } else if (!seen.has('animation-name')) {
      out['animation-name'] = token;
      seen.add('animation-name');
    } else if (lower === 'none' && !seen.has('animation-fill-mode')) {
      seen.add('animation-fill-mode');
    }
  }
  return out;
}
