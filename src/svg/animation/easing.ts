// Easing functions: the CSS `<easing-function>` keywords, cubic-bezier(), steps() and linear().
import { cubicBezier } from './cubic-bezier.ts';
import { numbersIn, parseNumber } from './numbers.ts';

export type Easing = (p: number) => number;

function steps(n: number, position: string): Easing {
  const count = Math.max(1, Math.floor(n));
  return (p) => {
    let jumps = count;
    let step = Math.floor(p * count);
    if (position === 'jump-start' || position === 'start' || position === 'jump-both') step += 1;
    if (position === 'jump-both') jumps = count + 1;
    if (position === 'jump-none') jumps = count - 1;
    if (p >= 0 && step < 0) step = 0;
    if (p <= 1 && step > jumps) step = jumps;
    return jumps <= 0 ? (p < 1 ? 0 : 1) : step / jumps;
  };
}

const linear: Easing = (p) => p;

/** The easing of a CSS `<easing-function>` (SMIL keySplines use `cubic-bezier` too). Unknown: linear. */
export function parseEasing(value: string | undefined): Easing {
  const v = (value ?? 'ease').trim().toLowerCase();
  switch (v) {
    case 'linear':
      return linear;
    case 'ease':
      return cubicBezier(0.25, 0.1, 0.25, 1);
    case 'ease-in':
      return cubicBezier(0.42, 0, 1, 1);
    case 'ease-out':
      return cubicBezier(0, 0, 0.58, 1);
    case 'ease-in-out':
      return cubicBezier(0.42, 0, 0.58, 1);
    case 'step-start':
      return steps(1, 'jump-start');
    case 'step-end':
      return steps(1, 'jump-end');
  }
  const fn = /^([a-z-]+)\((.*)\)$/.exec(v);
  if (!fn) return linear;
  if (fn[1] === 'cubic-bezier') {
    const n = numbersIn(fn[2]!);
    return n.length === 4 ? cubicBezier(n[0]!, n[1]!, n[2]!, n[3]!) : linear;
  }
  if (fn[1] === 'steps') {
    const [count, position] = fn[2]!.split(',').map((s) => s.trim());
    const n = parseNumber(count);
    return n === undefined ? linear : steps(n, position ?? 'jump-end');
  }
  if (fn[1] === 'linear') return linearFunction(fn[2]!);
  return linear;
}

/** `linear(0, 0.25 40%, 1)`: piecewise-linear easing. */
function linearFunction(args: string): Easing {
  const points: { x?: number; y: number }[] = [];
  for (const part of args.split(',')) {
    const tokens = part.trim().split(/\s+/);
    const y = parseNumber(tokens[0]);
    if (y === undefined) return linear;
    const xs = tokens.slice(1).map((t) => parseNumber(t.replace('%', '')));
    if (xs.length === 0) points.push({ y });
    for (const x of xs) points.push({ x: x === undefined ? undefined : x / 100, y });
  }
  if (points.length < 2) return linear;
  if (points[0]!.x === undefined) points[0]!.x = 0;
  if (points.at(-1)!.x === undefined) points.at(-1)!.x = 1;
  for (let i = 1; i < points.length; i++) {
    if (points[i]!.x !== undefined) points[i]!.x = Math.max(points[i]!.x!, points[i - 1]!.x!);
  }
  for (let i = 1; i < points.length - 1; i++) {
    if (points[i]!.x !== undefined) continue;
    let j = i;
    while (points[j]!.x === undefined) j++;
    const start = points[i - 1]!.x!;
    const end = points[j]!.x!;
    for (let k = i; k < j; k++) points[k]!.x = start + ((end - start) * (k - i + 1)) / (j - i + 1);
  }
  return (p) => {
    for (let i = 1; i < points.length; i++) {
      const a = points[i - 1]!;
      const b = points[i]!;
      if (p <= b.x! || i === points.length - 1) {
        if (b.x! === a.x!) return b.y;
        return a.y + ((b.y - a.y) * (p - a.x!)) / (b.x! - a.x!);
      }
    }
    return points.at(-1)!.y;
  };
}
