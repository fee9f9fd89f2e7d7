// What a `<style>` sheet can reference: each `url(#id)` in a declaration, with the property it
// sits in and the rightmost compound selector of each rule that holds it. This is an upper bound
// for the reference check (references.ts), not a browser's reading: comments, declarations and
// selectors are read by svg/css, and whatever they do not read as a browser would widens the
// bound (every element, every property) instead of narrowing it.
//
// The rules are found here rather than by css/sheet.ts (parseSheet) on purpose: parseSheet reads
// a sheet as a browser does and drops what a browser would not use (groups nested too deep, text
// outside any rule), where a bound has to keep it. This scan takes every brace for a brace
// (strings included), every at-rule prelude for a group whose rules are read whatever its
// condition, and text outside any rule for declarations that apply to every element. One
// forward pass.
import { readDeclarations } from './css/declarations.ts';
import { parseSelectorList, type CompoundSelector } from './css/selectors.ts';
import { asciiLower, splitTopLevel, stripComments, urlTargets } from './css/text.ts';

/** One `url(#id)` of a sheet: the id, the property it sits in, and whom its rule may apply to. */
export interface SheetReference {
  /** The referenced id, without '#'. */
  target: string;
  /** The CSS property, lower case (`fill`, `marker-mid`, …). */
  property: string;
  /** The subjects the rule may apply to; an empty list means every element. */
  subjects: Compound[];
}

/** The rightmost compound of a selector, its type, id and classes: an element can only match if it has these. */
export type Compound = Pick<CompoundSelector, 'type' | 'id' | 'classes'>;

/**
 * What a url() is counted under when its declaration is not read for sure: every way the
 * reference check multiplies a reference (inherited per shape like `fill`, per vertex like
 * `marker`, once like `mask`).
 */
const UNREAD_PROPERTIES = ['fill', 'marker', 'mask'];

function occurrences(text: string, piece: string): number {
  let count = 0;
  for (let at = text.indexOf(piece); at >= 0; at = text.indexOf(piece, at + piece.length)) count++;
  return count;
}

/**
 * `prop: value; …` → the url(#id) references of each declaration, read by css/declarations.ts.
 * When that reading may differ from a browser's (a `;` inside parentheses or quotes, a url() in a
 * comment or in a declaration it drops), each url(#id) of the block counts under every property
 * instead.
 */
export function declarationReferences(block: string): { property: string; target: string }[] {
  const urls = occurrences(asciiLower(block), 'url(');
  if (urls === 0) return [];
  const references: { property: string; target: string }[] = [];
  let read = 0;
  for (const { property, value } of readDeclarations(block)) {
    const found = occurrences(asciiLower(value), 'url(');
    if (found === 0) continue;
    read += found;
    for (const target of urlTargets(value)) references.push({ property, target });
  }
  const text = stripComments(block);
  if (read === urls && splitTopLevel(text, ';').length === occurrences(text, ';') + 1) return references;
  return urlTargets(block).flatMap((target) => UNREAD_PROPERTIES.map((property) => ({ property, target })));
}

/** Parentheses nested deeper than this are not read: each level is read again by every level around it. */
const MAX_PARENTHESES = 16;

function parenthesesDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(' && ++depth > limit) return true;
    if (text[i] === ')' && depth > 0) depth--;
  }
  return false;
}

/**
 * The longest selector list read for the bound; a longer one applies to every element. Real
 * lists are far shorter, and reading a list of hundreds of thousands of selectors inside one
 * `:is()` would hold the loop for a second.
 */
const MAX_SELECTOR_LIST = 4096;

/**
 * The subjects of a selector list: the rightmost compound of each selector. Empty (every
 * element) when any selector has no type, id or class there, and when the list is not read at
 * all (invalid for css/selectors.ts, or nested too deep): a browser may read it otherwise.
 */
function subjectsOf(selectorList: string): Compound[] {
  if (selectorList.length > MAX_SELECTOR_LIST || parenthesesDeeperThan(selectorList, MAX_PARENTHESES)) return [];
  let list: ReturnType<typeof parseSelectorList>;
  try {
    list = parseSelectorList(selectorList);
  } catch {
    return []; // e.g. a list too long for a spread argument: not read, so every element
  }
  if (!list) return [];
  const subjects = new Map<string, Compound>();
  for (const { compounds } of list) {
    const { type, id, classes } = compounds[0]!.compound;
    if (type === undefined && id === undefined && classes.length === 0) return [];
    subjects.set(`${type ?? ''}#${id ?? ''}.${classes.join('.')}`, { type, id, classes });
  }
  return [...subjects.values()];
}

/**
 * Every url(#id) reference of a sheet with the subjects of its rule. Declarations inside at-rule
 * blocks (`@media … { rule { … } }`) are read like top-level ones; a declaration outside any
 * rule (malformed) is treated as applying to every element.
 */
export function sheetReferences(css: string): SheetReference[] {
  const text = stripComments(css);
  const references: SheetReference[] = [];
  let at = 0;
  // The next brace of each kind, searched again only once passed: one pass however they nest.
  let open = -2;
  let close = -2;
  let nextUrl = -2;
  const lower = asciiLower(text);
  while (at < text.length) {
    if (open !== -1 && open < at) open = text.indexOf('{', at);
    if (close !== -1 && close < at) close = text.indexOf('}', at);
    if (open < 0 || (close >= 0 && close < open)) {
      // Text before a closing brace (or the end) that is not a block of its own: the end of an
      // at-rule group, or stray declarations.
      const end = close < 0 ? text.length : close;
      if (nextUrl !== -1 && nextUrl < at) nextUrl = lower.indexOf('url(', at);
      if (nextUrl !== -1 && nextUrl < end) {
        for (const { property, target } of declarationReferences(text.slice(at, end))) references.push({ target, property, subjects: [] });
      }
      at = end + 1;
      continue;
    }
    const prelude = text.slice(at, open).trim();
    if (prelude.startsWith('@')) {
      at = open + 1; // a group rule: its inner rules are read by the loop
      continue;
    }
    const end = close < 0 ? text.length : close;
    const block = text.slice(open + 1, end);
    const found = declarationReferences(block);
    if (found.length > 0) {
      const subjects = subjectsOf(prelude.slice(prelude.lastIndexOf(';') + 1));
      for (const { property, target } of found) references.push({ target, property, subjects });
    }
    at = end + 1;
  }
  return references;
}
