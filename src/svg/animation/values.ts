// Values an animation moves between, whatever the property: colours as colours, values that
// differ only in their numbers number by number, anything else discretely. Pure functions.
import { fmt, lengthPx, NUMBER_SOURCE, numbersIn } from './numbers.ts';
import { formatColor, mixColor, parseColor } from './rgba.ts';

const NUMBER_GLOBAL = new RegExp(NUMBER_SOURCE, 'g');

/** A value as numbers and the text between them, e.g. `10px 20px` → [10, 20] and ['', 'px ', 'px']. */
function skeleton(value: string): { numbers: number[]; text: string[] } {
  const numbers: number[] = [];
  const text: string[] = [];
  let at = 0;
  for (const match of value.matchAll(NUMBER_GLOBAL)) {
    // A number glued to a letter before it is part of a name (e.g. `h1`), not a value.
    const before = value[match.index! - 1];
    if (before !== undefined && /[a-zA-Z_#]/.test(before)) continue;
    text.push(value.slice(at, match.index));
    numbers.push(Number(match[0]));
    at = match.index! + match[0].length;
  }
  text.push(value.slice(at));
  return { numbers, text };
}

/**
 * Interpolates two values of a property that is not a transform: colours as colours, values
 * that differ only in their numbers number by number (lengths, lists, path data with the same
 * commands), anything else discretely (the first value until halfway, as CSS does).
 */
export function interpolate(from: string, to: string, p: number, options: { premultiplied: boolean; discreteAt?: number }): string {
  if (from === to) return from;
  const a = parseColor(from);
  const b = parseColor(to);
  if (a && b) return formatColor(mixColor(a, b, p, options.premultiplied));
  const sa = skeleton(from.trim());
  const sb = skeleton(to.trim());
  if (sa.numbers.length > 0 && sa.numbers.length === sb.numbers.length && sa.text.every((t, i) => t.trim() === sb.text[i]!.trim() || sameUnit(t, sb.text[i]!))) {
    let out = sa.text[0]!;
    for (let i = 0; i < sa.numbers.length; i++) out += fmt(sa.numbers[i]! + (sb.numbers[i]! - sa.numbers[i]!) * p) + (sa.text[i + 1]!.trim() === '' ? sb.text[i + 1]! : sa.text[i + 1]!);
    return out;
  }
  // A lone 0 stands for a length of any unit.
  const na = lengthPx(from);
  const nb = lengthPx(to);
  if (na !== undefined && nb !== undefined) return fmt(na + (nb - na) * p);
  return p < (options.discreteAt ?? 0.5) ? from : to;
}

function sameUnit(a: string, b: string): boolean {
  // `10 20` vs `10, 20`: separators differ, the values are the same kind.
  return a.replace(/[\s,]+/g, ' ').trim() === b.replace(/[\s,]+/g, ' ').trim();
}

/** Adds two values (additive or accumulating animations): numbers number by number, colours channel by channel. */
export function addValues(base: string, value: string, times = 1): string {
  const a = parseColor(base);
  const b = parseColor(value);
  if (a && b) return formatColor({ r: a.r + b.r * times, g: a.g + b.g * times, b: a.b + b.b * times, a: Math.min(1, a.a + b.a * times) });
  const sa = skeleton(base.trim());
  const sb = skeleton(value.trim());
  if (sa.numbers.length > 0 && sa.numbers.length === sb.numbers.length) {
    let out = sb.text[0]!;
    for (let i = 0; i < sa.numbers.length; i++) out += fmt(sa.numbers[i]! + sb.numbers[i]! * times) + sb.text[i + 1]!;
    return out;
  }
  const na = lengthPx(base);
  const nb = lengthPx(value);
  if (na !== undefined && nb !== undefined) return fmt(na + nb * times);
  return value;
}

/** A distance between two values for paced animations (numbers: Euclidean; colours: RGB). */
export function distance(from: string, to: string): number | undefined {
  const a = parseColor(from);
  const b = parseColor(to);
  if (a && b) return Math.hypot(a.r - b.r, a.g - b.g, a.b - b.b);
  const na = numbersIn(from);
  const nb = numbersIn(to);
  if (na.length === 0 || na.length !== nb.length) return undefined;
  return Math.hypot(...na.map((n, i) => n - nb[i]!));
}
