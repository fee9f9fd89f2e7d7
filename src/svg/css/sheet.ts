// A style sheet's rules: style rules (selectors and declarations), `@keyframes`, the groups of
// `@media` and `@supports` (with whether their conditions hold for an SVG shown in a page), and
// any other at-rule kept as written. Every scan is linear in the text (nesting is bounded).
import { readDeclarations, type Declaration } from './declarations.ts';
import { parseSelectorList, type ComplexSelector } from './selectors.ts';
import { blockEnd, splitTopLevel, stripComments, unquote } from './text.ts';

export interface StyleRule {
  kind: 'style';
  /** The selector list as written. */
  prelude: string;
  /** Parsed selectors; undefined when the list is invalid (the browser drops the whole rule). */
  selectors: ComplexSelector[] | undefined;
  declarations: Declaration[];
  /** Whether the media conditions around it hold for an animation shown in a page. */
  active: boolean;
}

export interface KeyframesRule {
  kind: 'keyframes';
  name: string;
  frames: { offsets: number[]; declarations: Declaration[] }[];
  active: boolean;
}

export interface GroupRule {
  kind: 'group';
  /** `@media …` or `@supports …` as written. */
  prelude: string;
  /** Whether its condition holds (and every enclosing one). */
  active: boolean;
  rules: SheetItem[];
}

/** Any other at-rule (`@font-face`, `@charset`, …), kept as written. */
export interface OtherRule {
  kind: 'other';
  text: string;
}

export type SheetItem = StyleRule | KeyframesRule | GroupRule | OtherRule;

/** Deepest at-rule nesting read; deeper blocks are dropped (no real sheet nests this far). */
const MAX_NESTING = 8;

/** Parses a sheet into its rules; `active` says whether the sheet itself applies (its `media` attribute). */
export function parseSheet(css: string, active = true): SheetItem[] {
  return parseItems(stripComments(css), 0, active);
}

function parseItems(text: string, depth: number, active: boolean): SheetItem[] {
  const items: SheetItem[] = [];
  let at = 0;
  while (at < text.length) {
    const i = preludeEnd(text, at);
    const prelude = text.slice(at, i).trim();
    if (i >= text.length) break;
    if (text[i] === ';' || text[i] === '}') {
      if (prelude.startsWith('@')) items.push({ kind: 'other', text: `${prelude};` });
      at = i + 1;
      continue;
    }
    const end = blockEnd(text, i);
    const body = text.slice(i + 1, end);
    at = end + 1;
    if (prelude.startsWith('@')) items.push(atRule(prelude, body, depth, active));
    else if (prelude !== '') items.push({ kind: 'style', prelude, selectors: parseSelectorList(prelude), declarations: readDeclarations(body), active });
  }
  return items;
}

/** Where a prelude ends: the next `{`, `;` (a statement at-rule) or `}` outside strings. */
function preludeEnd(text: string, from: number): number {
  let quote = '';
  let i = from;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === ';' || c === '}') break;
  }
  return i;
}

function atRule(prelude: string, body: string, depth: number, active: boolean): SheetItem {
  const name = /^@([\w-]+)/.exec(prelude)?.[1]?.toLowerCase() ?? '';
  if (name === 'keyframes' || name === '-webkit-keyframes') {
    return { kind: 'keyframes', name: unquote(prelude.slice(name.length + 1).trim()), frames: parseKeyframeBlocks(body), active };
  }
  if ((name === 'media' || name === 'supports') && depth < MAX_NESTING) {
    const holds = active && (name === 'media' ? mediaMatches(prelude.slice(6)) : true);
    return { kind: 'group', prelude, active: holds, rules: parseItems(body, depth + 1, holds) };
  }
  return { kind: 'other', text: `${prelude}{${body}}` };
}

const KEYFRAME_PERCENT = /^[+]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?%$/;

function parseKeyframeBlocks(text: string): KeyframesRule['frames'] {
  const frames: KeyframesRule['frames'] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('{', at);
    if (open < 0) break;
    const close = text.indexOf('}', open);
    const end = close < 0 ? text.length : close;
    const offsets = keyframeOffsets(text.slice(at, open));
    // An invalid keyframe selector drops that keyframe block only.
    if (offsets && offsets.length > 0) frames.push({ offsets, declarations: readDeclarations(text.slice(open + 1, end)) });
    at = end + 1;
  }
  return frames;
}

/** `from, 50%, to` → [0, 0.5, 1]; undefined when any selector is invalid. */
function keyframeOffsets(selectors: string): number[] | undefined {
  const offsets: number[] = [];
  let valid = true;
  for (const selector of selectors.split(',')) {
    const s = selector.trim().toLowerCase();
    if (s === 'from') offsets.push(0);
    else if (s === 'to') offsets.push(1);
    else if (KEYFRAME_PERCENT.test(s)) {
      const value = Number.parseFloat(s) / 100;
      if (value < 0 || value > 1) valid = false;
      offsets.push(value);
    } else valid = false;
  }
  return valid ? offsets : undefined;
}

/** Media features taken to hold for any page size and device (their value is not read). */
const ANY_SIZE = new Set([
  'orientation', 'width', 'height', 'min-width', 'max-width', 'min-height', 'max-height', 'aspect-ratio',
  'min-aspect-ratio', 'max-aspect-ratio', 'color', 'min-resolution', 'max-resolution',
]);

/**
 * Whether a media query list holds for an animated SVG shown in a page: a screen whose user has
 * not asked for reduced motion, in light mode. Width, height and other features are taken to
 * hold; unknown features do not.
 */
export function mediaMatches(list: string): boolean {
  if (list.trim() === '') return true;
  return splitTopLevel(list, ',').some((query) => {
    let q = query.trim().toLowerCase();
    let negate = false;
    if (q.startsWith('not ')) {
      negate = true;
      q = q.slice(4).trim();
    }
    if (q.startsWith('only ')) q = q.slice(5).trim();
    const holds = q.split(/\s+and\s+/).every((part) => mediaConditionHolds(part.trim()));
    return negate ? !holds : holds;
  });
}

/** One media type or `(feature: value)`. */
function mediaConditionHolds(p: string): boolean {
  if (p === 'all' || p === 'screen' || p === '') return true;
  if (p === 'print' || p === 'speech') return false;
  const feature = /^\(\s*([\w-]+)\s*(?::\s*([^)]*))?\)$/.exec(p);
  if (!feature) return false;
  const [, name, raw] = feature;
  const value = raw?.trim();
  switch (name) {
    case 'prefers-reduced-motion':
    case 'prefers-contrast':
      return value === 'no-preference';
    case 'prefers-color-scheme':
      return value === undefined || value === 'light';
    case 'hover':
    case 'any-hover':
      return value === undefined || value === 'hover';
    default:
      return ANY_SIZE.has(name!);
  }
}
