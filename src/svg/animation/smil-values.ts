// The values a SMIL animation element moves through (`values`, or from/to/by) and the one it
// shows at a progress (calcMode, keyTimes, keySplines).
import type { SvgElement } from '../tree.ts';
import { cubicBezierAt } from './cubic-bezier.ts';
import { NUMBER_SOURCE, numbersIn, parseNumber } from './numbers.ts';
import { parseColor } from './rgba.ts';
import { addValues } from './values.ts';

const NUMBERS = new RegExp(NUMBER_SOURCE, 'g');

/** The values an animation element moves through, from `values` or from/to/by. */
export function valueSpec(element: SvgElement, underlying: string): { values: string[]; additive: boolean; toOnly: boolean } | undefined {
  const additive = element.attributes.get('additive')?.trim() === 'sum';
  const values = smilValues(element);
  if (values) return { values, additive, toOnly: false };
  const from = element.attributes.get('from');
  const to = element.attributes.get('to');
  const by = element.attributes.get('by');
  if (from !== undefined && to !== undefined) return { values: [from, to], additive, toOnly: false };
  if (from !== undefined && by !== undefined) return { values: [from, addValues(from, by)], additive, toOnly: false };
  if (to !== undefined) return { values: [underlying, to], additive: false, toOnly: true };
  if (by !== undefined) return { values: [zeroLike(by), by], additive: true, toOnly: false };
  return undefined;
}

function smilValues(element: SvgElement): string[] | undefined {
  const values = element.attributes.get('values');
  if (values === undefined) return undefined;
  const list = values.split(';').map((v) => v.trim());
  if (list.length > 0 && list.at(-1) === '') list.pop();
  return list.length > 0 ? list : undefined;
}

function zeroLike(value: string): string {
  if (parseColor(value)) return 'rgb(0,0,0)';
  return value.replace(NUMBERS, '0');
}

/** The value at progress p through a list, by calcMode, keyTimes and keySplines. */
export function pick(
  values: string[],
  p: number,
  calcMode: string,
  element: SvgElement,
  lerp: (a: string, b: string, q: number) => string,
  dist?: (a: string, b: string) => number | undefined,
): string {
  const n = values.length;
  if (n === 1) return values[0]!;
  const keyTimesText = element.attributes.get('keyTimes');
  let keyTimes = keyTimesText?.split(';').map((v) => parseNumber(v)).filter((v): v is number => v !== undefined);
  if (keyTimes && keyTimes.at(-1) === undefined) keyTimes = undefined;
  if (calcMode === 'discrete') {
    if (keyTimes && keyTimes.length === n) {
      let index = 0;
      for (let i = 0; i < n; i++) if (keyTimes[i]! <= p) index = i;
      return values[index]!;
    }
    return values[Math.min(n - 1, Math.floor(p * n))]!;
  }
  let times: number[];
  if (calcMode === 'paced' && dist) {
    const d = values.slice(1).map((v, i) => dist(values[i]!, v) ?? 1);
    const total = d.reduce((a, b) => a + b, 0);
    let acc = 0;
    times = [0, ...d.map((x) => (acc += x) / (total || 1))];
  } else if (keyTimes && keyTimes.length === n) times = keyTimes;
  else times = values.map((_, i) => i / (n - 1));
  let i = 0;
  while (i < n - 2 && p >= times[i + 1]!) i++;
  const span = times[i + 1]! - times[i]!;
  let local = span > 0 ? Math.min(1, Math.max(0, (p - times[i]!) / span)) : 1;
  if (calcMode === 'spline') {
    const splines = (element.attributes.get('keySplines') ?? '').split(';').map((s) => numbersIn(s));
    const spline = splines[i];
    if (spline && spline.length === 4) local = cubicBezierAt(spline[0]!, spline[1]!, spline[2]!, spline[3]!, local);
  }
  return lerp(values[i]!, values[i + 1]!, local);
}
