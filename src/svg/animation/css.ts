// A small CSS engine for the animation evaluator: enough of a style sheet to know which
// declarations apply to which element (selectors, specificity, `style` attributes, the media
// queries an SVG shown as an image can meet) and what `@keyframes` say. Input is sanitized CSS:
// no escapes and no `<`, so comments and strings are the only things that can hide a brace.
// Every scan is linear in the text (nesting is bounded); selector matching has a step budget.
import type { SvgElement } from '../tree.ts';
import { isElement } from '../tree.ts';

export interface Declaration {
  /** Lower-case property name (`animation-duration`, `fill`, …); custom properties keep their case. */
  property: string;
  value: string;
  important: boolean;
}

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

/** Replaces comments by a space. */
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

/**
 * Where each `{` at `from` or after closes: returns the index of the matching `}` of the block
 * opening at `open`, skipping strings. One pass per nesting level.
 */
function blockEnd(text: string, open: number): number {
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

/** `prop: value; …` → declarations, in order, `animation` expanded into its longhands. */
export function parseDeclarations(block: string): Declaration[] {
  const out: Declaration[] = [];
  for (const part of splitTopLevel(stripComments(block), ';')) {
    const colon = part.indexOf(':');
    if (colon < 0) continue;
    const rawName = part.slice(0, colon).trim();
    if (!/^-?[a-zA-Z_][\w-]*$/.test(rawName) && !rawName.startsWith('--')) continue;
    const property = rawName.startsWith('--') ? rawName : rawName.toLowerCase();
    let value = part.slice(colon + 1).trim();
    let important = false;
    const bang = /!\s*important\s*$/i.exec(value);
    if (bang) {
      important = true;
      value = value.slice(0, bang.index).trim();
    }
    if (value === '') continue;
    if (property === 'animation') {
      for (const longhand of expandAnimationShorthand(value)) out.push({ ...longhand, important });
    } else {
      out.push({ property, value, important });
    }
  }
  return out;
}

/** Parses a sheet into its rules, with the media conditions of an animation shown in a page. */
export function parseSheet(css: string): SheetItem[] {
  return parseItems(stripComments(css), 0, true);
}

function parseItems(text: string, depth: number, active: boolean): SheetItem[] {
  const items: SheetItem[] = [];
  let at = 0;
  while (at < text.length) {
    // The prelude runs to the next `{` or `;` (a statement at-rule) outside strings.
    let i = at;
    let quote = '';
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (quote) {
        if (c === quote) quote = '';
        continue;
      }
      if (c === '"' || c === "'") quote = c;
      else if (c === '{' || c === ';' || c === '}') break;
    }
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
    if (prelude.startsWith('@')) {
      const name = /^@([\w-]+)/.exec(prelude)?.[1]?.toLowerCase() ?? '';
      if (name === 'keyframes' || name === '-webkit-keyframes') {
        const frameName = unquote(prelude.slice(name.length + 1).trim());
        items.push({ kind: 'keyframes', name: frameName, frames: parseKeyframeBlocks(body), active });
      } else if ((name === 'media' || name === 'supports') && depth < MAX_NESTING) {
        const holds = name === 'media' ? mediaMatches(prelude.slice(6)) : true;
        items.push({ kind: 'group', prelude, active: active && holds, rules: parseItems(body, depth + 1, active && holds) });
      } else {
        items.push({ kind: 'other', text: `${prelude}{${body}}` });
      }
      continue;
    }
    if (prelude === '') continue;
    items.push({ kind: 'style', prelude, selectors: parseSelectorList(prelude), declarations: parseDeclarations(body), active });
  }
  return items;
}

function unquote(text: string): string {
  return text.replace(/^(['"])(.*)\1$/, '$2');
}

function parseKeyframeBlocks(text: string): KeyframesRule['frames'] {
  const frames: KeyframesRule['frames'] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('{', at);
    if (open < 0) break;
    const close = text.indexOf('}', open);
    const end = close < 0 ? text.length : close;
    const offsets: number[] = [];
    let valid = true;
    for (const selector of text.slice(at, open).split(',')) {
      const s = selector.trim().toLowerCase();
      if (s === 'from') offsets.push(0);
      else if (s === 'to') offsets.push(1);
      else if (/^[+]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?%$/.test(s)) {
        const value = Number.parseFloat(s) / 100;
        if (value < 0 || value > 1) valid = false;
        offsets.push(value);
      } else valid = false;
    }
    // An invalid keyframe selector drops that keyframe block only.
    if (valid && offsets.length > 0) frames.push({ offsets, declarations: parseDeclarations(text.slice(open + 1, end)) });
    at = end + 1;
  }
  return frames;
}

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
    const parts = q.split(/\s+and\s+/);
    const holds = parts.every((part) => {
      const p = part.trim();
      if (p === 'all' || p === 'screen' || p === '') return true;
      if (p === 'print' || p === 'speech') return false;
      const feature = /^\(\s*([\w-]+)\s*(?::\s*([^)]*))?\)$/.exec(p);
      if (!feature) return false;
      const [, name, raw] = feature;
      const value = raw?.trim();
      switch (name) {
        case 'prefers-reduced-motion':
          return value === 'no-preference';
        case 'prefers-color-scheme':
          return value === undefined || value === 'light';
        case 'prefers-contrast':
          return value === 'no-preference';
        case 'hover':
        case 'any-hover':
          return value === undefined || value === 'hover';
        case 'orientation':
        case 'width':
        case 'height':
        case 'min-width':
        case 'max-width':
        case 'min-height':
        case 'max-height':
        case 'aspect-ratio':
        case 'min-aspect-ratio':
        case 'max-aspect-ratio':
        case 'color':
        case 'min-resolution':
        case 'max-resolution':
          return true;
        default:
          return false;
      }
    });
    return negate ? !holds : holds;
  });
}

/* ---------- the animation shorthand ---------- */

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
 * comma-separated list, one item per layer). The first time is the duration, the second the
 * delay; keywords are matched as the spec orders them, and the leftover identifier is the name.
 */
export function expandAnimationShorthand(value: string): { property: AnimationLonghand; value: string }[] {
  if (WIDE_KEYWORDS.has(value.trim().toLowerCase())) {
    return ANIMATION_LONGHANDS.map((property) => ({ property, value: INITIAL[property] }));
  }
  const layers = splitTopLevel(value, ',').map((layer) => {
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
  });
  return ANIMATION_LONGHANDS.map((property) => ({ property, value: layers.map((layer) => layer[property]).join(', ') }));
}

/* ---------- selectors ---------- */

interface AttributeTest {
  name: string;
  op?: '=' | '~=' | '|=' | '^=' | '$=' | '*=';
  value?: string;
}

type Pseudo =
  | { kind: 'root' | 'first-child' | 'last-child' | 'only-child' | 'first-of-type' | 'last-of-type' | 'only-of-type' | 'empty' | 'never' }
  | { kind: 'nth-child' | 'nth-last-child' | 'nth-of-type' | 'nth-last-of-type'; a: number; b: number }
  | { kind: 'not' | 'is' | 'where'; list: ComplexSelector[] };

export interface CompoundSelector {
  type?: string;
  id?: string;
  classes: string[];
  attributes: AttributeTest[];
  pseudos: Pseudo[];
}

/** Compounds right to left, each with the combinator that links it to the next one left. */
export interface ComplexSelector {
  compounds: { compound: CompoundSelector; combinator: ' ' | '>' | '+' | '~' | '' }[];
  specificity: number;
}

/** Parses a selector list; undefined when any selector is invalid or unsupported. */
export function parseSelectorList(text: string): ComplexSelector[] | undefined {
  const list: ComplexSelector[] = [];
  for (const part of splitTopLevel(text, ',')) {
    const selector = parseComplex(part.trim());
    if (!selector) return undefined;
    list.push(selector);
  }
  return list.length > 0 ? list : undefined;
}

function parseComplex(text: string): ComplexSelector | undefined {
  if (text === '') return undefined;
  const compounds: { compound: CompoundSelector; combinator: ' ' | '>' | '+' | '~' | '' }[] = [];
  let at = 0;
  let combinator: ' ' | '>' | '+' | '~' | '' = '';
  let specificity = 0;
  while (at < text.length) {
    // combinators and whitespace
    let sawSpace = false;
    let explicit: '>' | '+' | '~' | undefined;
    while (at < text.length && /[\s>+~]/.test(text[at]!)) {
      const c = text[at]!;
      if (c === '>' || c === '+' || c === '~') {
        if (explicit) return undefined;
        explicit = c;
      } else sawSpace = true;
      at++;
    }
    if (at >= text.length) return explicit ? undefined : finish();
    if (compounds.length > 0 || explicit) combinator = explicit ?? (sawSpace ? ' ' : '');
    if (compounds.length === 0 && explicit) return undefined;
    const parsed = parseCompound(text, at);
    if (!parsed) return undefined;
    compounds.push({ compound: parsed.compound, combinator: compounds.length === 0 ? '' : combinator });
    specificity += parsed.specificity;
    at = parsed.end;
  }
  return finish();

  function finish(): ComplexSelector | undefined {
    if (compounds.length === 0) return undefined;
    // Parsed left to right, each entry holding the combinator to its left neighbour; reversed, the
    // subject comes first and each combinator links an entry to the next one.
    return { compounds: compounds.reverse(), specificity };
  }
}

const IDENT = /^-?[_a-zA-Z][\w-]*/;

function parseCompound(text: string, start: number): { compound: CompoundSelector; specificity: number; end: number } | undefined {
  const compound: CompoundSelector = { classes: [], attributes: [], pseudos: [] };
  let specificity = 0;
  let at = start;
  const rest = () => text.slice(at);
  if (text[at] === '*') at++;
  else {
    const type = IDENT.exec(rest());
    if (type) {
      compound.type = type[0];
      specificity += 1;
      at += type[0].length;
    }
  }
  while (at < text.length && !/[\s>+~]/.test(text[at]!)) {
    const c = text[at]!;
    if (c === '.' || c === '#') {
      const name = IDENT.exec(text.slice(at + 1)) ?? /^[\w-]+/.exec(text.slice(at + 1));
      if (!name) return undefined;
      if (c === '.') {
        compound.classes.push(name[0]);
        specificity += 1_000;
      } else {
        if (compound.id !== undefined && compound.id !== name[0]) compound.pseudos.push({ kind: 'never' });
        compound.id = name[0];
        specificity += 1_000_000;
      }
      at += 1 + name[0].length;
    } else if (c === '[') {
      const close = text.indexOf(']', at);
      if (close < 0) return undefined;
      const inner = text.slice(at + 1, close).trim();
      const match = /^([\w:-]+)\s*(?:([~|^$*]?=)\s*("[^"]*"|'[^']*'|[\w-]+)\s*(?:[is])?)?$/.exec(inner);
      if (!match) return undefined;
      compound.attributes.push({ name: match[1]!, ...(match[2] ? { op: match[2] as AttributeTest['op'], value: unquote(match[3]!) } : {}) });
      specificity += 1_000;
      at = close + 1;
    } else if (c === ':') {
      if (text[at + 1] === ':') {
        // pseudo-elements never match an element
        const name = IDENT.exec(text.slice(at + 2));
        if (!name) return undefined;
        compound.pseudos.push({ kind: 'never' });
        specificity += 1;
        at += 2 + name[0].length;
        continue;
      }
      const name = IDENT.exec(text.slice(at + 1));
      if (!name) return undefined;
      const lower = name[0].toLowerCase();
      at += 1 + name[0].length;
      let argument: string | undefined;
      if (text[at] === '(') {
        let depth = 0;
        let i = at;
        for (; i < text.length; i++) {
          if (text[i] === '(') depth++;
          else if (text[i] === ')') {
            depth--;
            if (depth === 0) break;
          }
        }
        if (i >= text.length) return undefined;
        argument = text.slice(at + 1, i);
        at = i + 1;
      }
      const pseudo = parsePseudo(lower, argument);
      if (!pseudo) return undefined;
      compound.pseudos.push(pseudo.pseudo);
      specificity += pseudo.specificity;
    } else {
      return undefined;
    }
  }
  if (at === start) return undefined;
  return { compound, specificity, end: at };
}

function parsePseudo(name: string, argument: string | undefined): { pseudo: Pseudo; specificity: number } | undefined {
  const simple = ['root', 'first-child', 'last-child', 'only-child', 'first-of-type', 'last-of-type', 'only-of-type', 'empty'] as const;
  if (argument === undefined) {
    if ((simple as readonly string[]).includes(name)) return { pseudo: { kind: name as (typeof simple)[number] }, specificity: 1_000 };
    // States that a picture shown as an image never enters (hover, focus, target, …).
    return { pseudo: { kind: 'never' }, specificity: 1_000 };
  }
  if (name === 'nth-child' || name === 'nth-last-child' || name === 'nth-of-type' || name === 'nth-last-of-type') {
    const ab = parseNth(argument);
    return ab ? { pseudo: { kind: name, ...ab }, specificity: 1_000 } : undefined;
  }
  if (name === 'not' || name === 'is' || name === 'where' || name === 'matches' || name === '-webkit-any') {
    const list = parseSelectorList(argument);
    if (!list) return undefined;
    const kind = name === 'not' ? 'not' : name === 'where' ? 'where' : 'is';
    return { pseudo: { kind, list }, specificity: kind === 'where' ? 0 : Math.max(...list.map((s) => s.specificity)) };
  }
  return { pseudo: { kind: 'never' }, specificity: 1_000 };
}

function parseNth(text: string): { a: number; b: number } | undefined {
  const t = text.trim().toLowerCase().replace(/\s+/g, '');
  if (t === 'odd') return { a: 2, b: 1 };
  if (t === 'even') return { a: 2, b: 0 };
  const m = /^([+-]?\d*)n([+-]\d+)?$/.exec(t);
  if (m) {
    const a = m[1] === '' || m[1] === '+' ? 1 : m[1] === '-' ? -1 : Number(m[1]);
    return { a, b: m[2] ? Number(m[2]) : 0 };
  }
  if (/^[+-]?\d+$/.test(t)) return { a: 0, b: Number(t) };
  return undefined;
}

/* ---------- the document index and matching ---------- */

/** Parent and sibling links of a tree, for selector matching and inheritance. */
export class TreeIndex {
  readonly parent = new Map<SvgElement, SvgElement | undefined>();
  readonly siblings = new Map<SvgElement, { list: SvgElement[]; index: number }>();
  readonly byId = new Map<string, SvgElement>();
  /** Document order. */
  readonly elements: SvgElement[] = [];

  constructor(readonly root: SvgElement) {
    this.parent.set(root, undefined);
    this.siblings.set(root, { list: [root], index: 0 });
    const stack: SvgElement[] = [root];
    while (stack.length > 0) {
      const element = stack.pop()!;
      this.elements.push(element);
      const id = element.attributes.get('id');
      if (id !== undefined && !this.byId.has(id)) this.byId.set(id, element);
      const children = element.children.filter(isElement);
      children.forEach((child, index) => {
        this.parent.set(child, element);
        this.siblings.set(child, { list: children, index });
      });
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
  }

  ancestors(element: SvgElement): SvgElement[] {
    const out: SvgElement[] = [];
    for (let p = this.parent.get(element); p; p = this.parent.get(p)) out.push(p);
    return out;
  }
}

/** Selector steps allowed per document before matching gives up on structure (see `matches`). */
const MATCH_BUDGET = 2_000_000;

export class SelectorMatcher {
  private steps = 0;

  constructor(private readonly index: TreeIndex) {}

  /** Whether a complex selector matches the element. Past the step budget, only its subject is checked. */
  matches(selector: ComplexSelector, element: SvgElement): boolean {
    if (this.steps > MATCH_BUDGET) return this.compound(selector.compounds[0]!.compound, element);
    return this.from(selector, 0, element);
  }

  private from(selector: ComplexSelector, at: number, element: SvgElement): boolean {
    this.steps++;
    const { compound, combinator } = selector.compounds[at]!;
    if (!this.compound(compound, element)) return false;
    if (at + 1 >= selector.compounds.length) return true;
    switch (combinator) {
      case '>': {
        const parent = this.index.parent.get(element);
        return parent !== undefined && this.from(selector, at + 1, parent);
      }
      case ' ': {
        for (let p = this.index.parent.get(element); p; p = this.index.parent.get(p)) {
          if (this.steps > MATCH_BUDGET) return true;
          if (this.from(selector, at + 1, p)) return true;
        }
        return false;
      }
      case '+': {
        const s = this.index.siblings.get(element)!;
        const previous = s.list[s.index - 1];
        return previous !== undefined && this.from(selector, at + 1, previous);
      }
      case '~': {
        const s = this.index.siblings.get(element)!;
        for (let i = s.index - 1; i >= 0; i--) if (this.from(selector, at + 1, s.list[i]!)) return true;
        return false;
      }
      default:
        return true;
    }
  }

  private compound(compound: CompoundSelector, element: SvgElement): boolean {
    if (compound.type !== undefined && compound.type !== element.name) return false;
    if (compound.id !== undefined && element.attributes.get('id') !== compound.id) return false;
    if (compound.classes.length > 0) {
      const classes = (element.attributes.get('class') ?? '').split(/\s+/);
      for (const c of compound.classes) if (!classes.includes(c)) return false;
    }
    for (const test of compound.attributes) if (!attributeMatches(test, element.attributes.get(test.name))) return false;
    for (const pseudo of compound.pseudos) if (!this.pseudo(pseudo, element)) return false;
    return true;
  }

  private pseudo(pseudo: Pseudo, element: SvgElement): boolean {
    const s = this.index.siblings.get(element)!;
    const ofType = () => s.list.filter((e) => e.name === element.name);
    switch (pseudo.kind) {
      case 'never':
        return false;
      case 'root':
        return element === this.index.root;
      case 'empty':
        return element.children.length === 0;
      case 'first-child':
        return s.index === 0;
      case 'last-child':
        return s.index === s.list.length - 1;
      case 'only-child':
        return s.list.length === 1;
      case 'first-of-type':
        return ofType()[0] === element;
      case 'last-of-type':
        return ofType().at(-1) === element;
      case 'only-of-type':
        return ofType().length === 1;
      case 'nth-child':
        return nth(pseudo.a, pseudo.b, s.index + 1);
      case 'nth-last-child':
        return nth(pseudo.a, pseudo.b, s.list.length - s.index);
      case 'nth-of-type': {
        const list = ofType();
        return nth(pseudo.a, pseudo.b, list.indexOf(element) + 1);
      }
      case 'nth-last-of-type': {
        const list = ofType();
        return nth(pseudo.a, pseudo.b, list.length - list.indexOf(element));
      }
      case 'not':
        return !pseudo.list.some((selector) => this.matches(selector, element));
      case 'is':
      case 'where':
        return pseudo.list.some((selector) => this.matches(selector, element));
    }
  }
}

function nth(a: number, b: number, position: number): boolean {
  if (a === 0) return position === b;
  const n = (position - b) / a;
  return Number.isInteger(n) && n >= 0;
}

function attributeMatches(test: AttributeTest, value: string | undefined): boolean {
  if (value === undefined) return false;
  if (!test.op) return true;
  const v = test.value!;
  switch (test.op) {
    case '=':
      return value === v;
    case '~=':
      return value.split(/\s+/).includes(v);
    case '|=':
      return value === v || value.startsWith(`${v}-`);
    case '^=':
      return v !== '' && value.startsWith(v);
    case '$=':
      return v !== '' && value.endsWith(v);
    case '*=':
      return v !== '' && value.includes(v);
  }
}

/* ---------- the cascade ---------- */

/** Every active style rule of the document's sheets, in order, and its keyframes by name. */
export interface DocumentStyles {
  rules: StyleRule[];
  /** The last active `@keyframes` of each name wins, as in browsers. */
  keyframes: Map<string, KeyframesRule>;
  /** Each <style> element and its parsed items (for rewriting frames). */
  sheets: { element: SvgElement; items: SheetItem[] }[];
}

export function documentStyles(index: TreeIndex): DocumentStyles {
  const rules: StyleRule[] = [];
  const keyframes = new Map<string, KeyframesRule>();
  const sheets: DocumentStyles['sheets'] = [];
  for (const element of index.elements) {
    if (element.name !== 'style') continue;
    const media = element.attributes.get('media');
    const type = element.attributes.get('type');
    if (type !== undefined && type.trim() !== '' && type.trim().toLowerCase() !== 'text/css') continue;
    const css = element.children.map((c) => ('text' in c ? c.text : '')).join('');
    const items = parseItems(stripComments(css), 0, media === undefined || mediaMatches(media));
    sheets.push({ element, items });
    const visit = (list: SheetItem[]) => {
      for (const item of list) {
        if (item.kind === 'style' && item.active) rules.push(item);
        else if (item.kind === 'keyframes' && item.active) keyframes.set(item.name, item);
        else if (item.kind === 'group') visit(item.rules);
      }
    };
    visit(items);
  }
  return { rules, keyframes, sheets };
}

/** The cascaded declarations of one element: the winning value of each property. */
export type Cascaded = Map<string, string>;

/**
 * The cascaded value of every property set by a style sheet rule or the `style` attribute, per
 * element: important over normal, then the `style` attribute over rules, then specificity, then
 * order. Presentation attributes are not included (they sit below every author rule).
 * Only elements matched by some rule or carrying a `style` attribute appear.
 */
export function cascade(index: TreeIndex, styles: DocumentStyles): Map<SvgElement, Cascaded> {
  const matcher = new SelectorMatcher(index);
  const candidates = new Map<SvgElement, { declaration: Declaration; rank: number; order: number }[]>();
  let order = 0;
  const add = (element: SvgElement, declaration: Declaration, rank: number) => {
    let list = candidates.get(element);
    if (!list) candidates.set(element, (list = []));
    list.push({ declaration, rank, order: order++ });
  };
  // Rules by subject, found through indexes of ids, classes and names: linear for usual sheets.
  const byName = new Map<string, SvgElement[]>();
  const byClass = new Map<string, SvgElement[]>();
  const byIdAll = new Map<string, SvgElement[]>();
  for (const element of index.elements) {
    const push = (map: Map<string, SvgElement[]>, key: string) => {
      const list = map.get(key);
      if (list) list.push(element);
      else map.set(key, [element]);
    };
    push(byName, element.name);
    const id = element.attributes.get('id');
    if (id !== undefined) push(byIdAll, id);
    for (const c of new Set((element.attributes.get('class') ?? '').split(/\s+/).filter(Boolean))) push(byClass, c);
  }
  for (const rule of styles.rules) {
    if (!rule.selectors || rule.declarations.length === 0) continue;
    // Highest specificity of the selectors that match, per element.
    const best = new Map<SvgElement, number>();
    for (const selector of rule.selectors) {
      const subject = selector.compounds[0]!.compound;
      let pool: SvgElement[];
      if (subject.id !== undefined) pool = byIdAll.get(subject.id) ?? [];
      else if (subject.classes.length > 0) pool = byClass.get(subject.classes[0]!) ?? [];
      else if (subject.type !== undefined) pool = byName.get(subject.type) ?? [];
      else pool = index.elements;
      for (const element of pool) {
        if ((best.get(element) ?? -1) >= selector.specificity) continue;
        if (matcher.matches(selector, element)) best.set(element, selector.specificity);
      }
    }
    for (const [element, specificity] of best) {
      for (const declaration of rule.declarations) add(element, declaration, specificity);
    }
  }
  const INLINE = 1e12;
  for (const element of index.elements) {
    const style = element.attributes.get('style');
    if (style === undefined) continue;
    for (const declaration of parseDeclarations(style)) add(element, declaration, INLINE);
  }
  const result = new Map<SvgElement, Cascaded>();
  for (const [element, list] of candidates) {
    list.sort((a, b) => Number(a.declaration.important) - Number(b.declaration.important) || a.rank - b.rank || a.order - b.order);
    const values: Cascaded = new Map();
    for (const { declaration } of list) values.set(declaration.property, declaration.value);
    result.set(element, values);
  }
  return result;
}
