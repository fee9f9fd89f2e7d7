// Selectors, read once for every user: type, `.class`, `#id`, `[attribute]` tests, pseudo-classes
// (structural ones, `:not()`, `:is()`, `:where()`; states a picture shown as an image never enters
// match nothing), pseudo-elements (match nothing) and the four combinators, with specificity.
import { splitTopLevel, unquote } from './text.ts';

const IDENT = /^-?[_a-zA-Z][\w-]*/;
const SPACE_OR_COMBINATOR = /[\s>+~]/;

export interface AttributeTest {
  name: string;
  op?: '=' | '~=' | '|=' | '^=' | '$=' | '*=';
  value?: string;
}

export type Pseudo =
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

export type Combinator = ' ' | '>' | '+' | '~' | '';

/** Compounds right to left (the subject first), each with the combinator that links it to the next one left. */
export interface ComplexSelector {
  compounds: { compound: CompoundSelector; combinator: Combinator }[];
  /** Ids count 1 000 000, classes, attributes and pseudo-classes 1 000, types and pseudo-elements 1. */
  specificity: number;
}

/** Parses a selector list; undefined when any selector is invalid or unsupported (a browser drops the whole rule). */
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
  const compounds: { compound: CompoundSelector; combinator: Combinator }[] = [];
  let at = 0;
  let combinator: Combinator = '';
  let specificity = 0;
  while (at < text.length) {
    // combinators and whitespace
    let sawSpace = false;
    let explicit: '>' | '+' | '~' | undefined;
    while (at < text.length && SPACE_OR_COMBINATOR.test(text[at]!)) {
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

type Step = { specificity: number; end: number } | undefined;

function parseCompound(text: string, start: number): { compound: CompoundSelector; specificity: number; end: number } | undefined {
  const compound: CompoundSelector = { classes: [], attributes: [], pseudos: [] };
  let specificity = 0;
  let at = start;
  if (text[at] === '*') at++;
  else {
    const type = IDENT.exec(text.slice(at));
    if (type) {
      compound.type = type[0];
      specificity += 1;
      at += type[0].length;
    }
  }
  while (at < text.length && !SPACE_OR_COMBINATOR.test(text[at]!)) {
    const step = readSimpleSelector(text, at, compound);
    if (!step) return undefined;
    specificity += step.specificity;
    at = step.end;
  }
  if (at === start) return undefined;
  return { compound, specificity, end: at };
}

/** One `.class`, `#id`, `[attribute]`, `:pseudo-class` or `::pseudo-element` at `at`, added to the compound. */
function readSimpleSelector(text: string, at: number, compound: CompoundSelector): Step {
  switch (text[at]) {
    case '.':
    case '#':
      return readClassOrId(text, at, compound);
    case '[':
      return readAttributeTest(text, at, compound);
    case ':':
      return text[at + 1] === ':' ? readPseudoElement(text, at, compound) : readPseudoClass(text, at, compound);
    default:
      return undefined;
  }
}

function readClassOrId(text: string, at: number, compound: CompoundSelector): Step {
  const name = IDENT.exec(text.slice(at + 1)) ?? /^[\w-]+/.exec(text.slice(at + 1));
  if (!name) return undefined;
  const end = at + 1 + name[0].length;
  if (text[at] === '.') {
    compound.classes.push(name[0]);
    return { specificity: 1_000, end };
  }
  // Two different ids can never both be an element's.
  if (compound.id !== undefined && compound.id !== name[0]) compound.pseudos.push({ kind: 'never' });
  compound.id = name[0];
  return { specificity: 1_000_000, end };
}

function readAttributeTest(text: string, at: number, compound: CompoundSelector): Step {
  const close = text.indexOf(']', at);
  if (close < 0) return undefined;
  const inner = text.slice(at + 1, close).trim();
  const match = /^([\w:-]+)\s*(?:([~|^$*]?=)\s*("[^"]*"|'[^']*'|[\w-]+)\s*(?:[is])?)?$/.exec(inner);
  if (!match) return undefined;
  compound.attributes.push({ name: match[1]!, ...(match[2] ? { op: match[2] as AttributeTest['op'], value: unquote(match[3]!) } : {}) });
  return { specificity: 1_000, end: close + 1 };
}

/** Pseudo-elements never match an element. */
function readPseudoElement(text: string, at: number, compound: CompoundSelector): Step {
  const name = IDENT.exec(text.slice(at + 2));
  if (!name) return undefined;
  compound.pseudos.push({ kind: 'never' });
  return { specificity: 1, end: at + 2 + name[0].length };
}

function readPseudoClass(text: string, at: number, compound: CompoundSelector): Step {
  const name = IDENT.exec(text.slice(at + 1));
  if (!name) return undefined;
  let end = at + 1 + name[0].length;
  let argument: string | undefined;
  if (text[end] === '(') {
    const close = closingParenthesis(text, end);
    if (close < 0) return undefined;
    argument = text.slice(end + 1, close);
    end = close + 1;
  }
  const pseudo = parsePseudo(name[0].toLowerCase(), argument);
  if (!pseudo) return undefined;
  compound.pseudos.push(pseudo.pseudo);
  return { specificity: pseudo.specificity, end };
}

/** The `)` matching the `(` at `open`, or -1. */
function closingParenthesis(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
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
    // The largest specificity in the list, without a spread (a list of any length is one argument).
    return { pseudo: { kind, list }, specificity: kind === 'where' ? 0 : list.reduce((most, s) => Math.max(most, s.specificity), 0) };
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
