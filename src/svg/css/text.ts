// CSS as text: comments, strings, parentheses and blocks. Input is sanitized CSS (no escapes, no
// `<`), so comments and strings are the only things that can hide a brace or a separator. Every
// scan here is one forward pass.
import type { SvgElement } from '../tree.ts';

/** The CSS text of a `<style>` element: its text children, joined. */
export function styleText(style: SvgElement): string {
  return style.children.map((c) => ('text' in c ? c.text : '')).join('');
}

/** Replaces each comment by a space; an unclosed comment runs to the end. */
export function stripComments(css: string): string {
  if (!css.includes('/*')) return css;
  let out = '';
  let at = 0;
  for (;;) {
    const open = css.indexOf('/*', at);
    if (open < 0) return out + css.slice(at);
    out += `${css.slice(at, open)} `;
    const close = css.indexOf('*/', open + 2);
    if (close < 0) return out;
    at = close + 2;
  }
}

/** The index of the `}` that closes the block opening at `open` (strings skipped), or the text's length. */
export function blockEnd(text: string, open: number): number {
  let depth = 0;
  let quote = '';
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return text.length;
}

/** Splits on a separator outside parentheses and strings. */
export function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** A string without its surrounding quotes (`"a"` or `'a'`), else as it is. */
export function unquote(text: string): string {
  return text.replace(/^(['"])(.*)\1$/, '$2');
}

/** Lower case for ASCII letters only: `toLowerCase()` turns 'İ' into two characters, which would shift every index. */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** `url(#id)` targets in a value, quoted or not; each url( reads up to its first `)`. */
export function urlTargets(value: string): string[] {
  const targets: string[] = [];
  const lower = asciiLower(value);
  for (let at = lower.indexOf('url('); at >= 0; ) {
    const close = value.indexOf(')', at + 4);
    if (close < 0) break;
    const inner = unquote(value.slice(at + 4, close).trim()).trim();
    if (inner.startsWith('#') && inner.length > 1) targets.push(inner.slice(1));
    at = lower.indexOf('url(', close + 1);
  }
  return targets;
}
