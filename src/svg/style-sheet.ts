// What a `<style>` sheet can reference: each `url(#id)` in a declaration, with the property it
// sits in and the rightmost compound selector of each rule that holds it. This is not a CSS
// parser: it only has to bound which elements a rule *could* apply to, so it reads selectors
// conservatively (anything it does not understand matches every element). One forward pass.

/** One `url(#id)` of a sheet: the id, the property it sits in, and whom its rule may apply to. */
export interface SheetReference {
  /** The referenced id, without '#'. */
  target: string;
  /** The CSS property, lower case (`fill`, `marker-mid`, …). */
  property: string;
  /** The subjects the rule may apply to; an empty list means every element. */
  subjects: Compound[];
}

/** The rightmost compound of a selector: an element can only match if it matches this. */
export interface Compound {
  type?: string;
  id?: string;
  classes: string[];
}

/** Sanitized CSS has no escapes, so comments are the only thing that can hide a brace. */
function stripComments(css: string): string {
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

/** `url(#id)` targets in a declaration value, quoted or not. */
export function urlTargets(value: string): string[] {
  const targets: string[] = [];
  const lower = value.replace(/[A-Z]/g, (c) => c.toLowerCase());
  for (let at = lower.indexOf('url('); at >= 0; ) {
    const close = value.indexOf(')', at + 4);
    if (close < 0) break;
    const inner = value.slice(at + 4, close).trim().replace(/^(['"])(.*)\1$/, '$2').trim();
    if (inner.startsWith('#') && inner.length > 1) targets.push(inner.slice(1));
    at = lower.indexOf('url(', close + 1);
  }
  return targets;
}

/** `prop: value; …` → the url(#id) references of each declaration. */
export function declarationReferences(block: string): { property: string; target: string }[] {
  const references: { property: string; target: string }[] = [];
  for (const declaration of block.split(';')) {
    const colon = declaration.indexOf(':');
    if (colon < 0) continue;
    const value = declaration.slice(colon + 1);
    if (!value.toLowerCase().includes('url(')) continue;
    const property = declaration.slice(0, colon).trim().toLowerCase();
    for (const target of urlTargets(value)) references.push({ property, target });
  }
  return references;
}

/** Removes the contents of (...) so `:not(.a .b)` or `:is(a, b)` cannot split a selector. */
function withoutParentheses(selector: string): string {
  let out = '';
  let depth = 0;
  for (const char of selector) {
    if (char === '(') depth++;
    else if (char === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += char;
  }
  return out;
}

const COMBINATORS = /[\s>+~]+/;

/** The rightmost compound of one complex selector, or undefined when it may match anything. */
function rightmostCompound(selector: string): Compound | undefined {
  const parts = selector.trim().split(COMBINATORS).filter(Boolean);
  const last = parts[parts.length - 1];
  if (!last) return undefined;
  const compound: Compound = { classes: [] };
  // type, then .class / #id / [attr] / :pseudo in any order; attributes and pseudos are ignored
  // (ignoring a condition only widens the match, which keeps the bound safe).
  const pieces = last.split(/(?=[.#[:])/);
  for (const piece of pieces) {
    if (piece.startsWith('.')) compound.classes.push(piece.slice(1));
    else if (piece.startsWith('#')) compound.id = piece.slice(1);
    else if (piece.startsWith('[') || piece.startsWith(':') || piece === '*' || piece.includes('|')) continue;
    else compound.type = piece;
  }
  return compound.type === undefined && compound.id === undefined && compound.classes.length === 0 ? undefined : compound;
}

/** The subjects of a selector list; empty when any of its selectors may match every element. */
function subjectsOf(selectorList: string): Compound[] {
  const subjects: Compound[] = [];
  const list = selectorList.includes('(') ? withoutParentheses(selectorList) : selectorList;
  for (const selector of new Set(list.split(','))) {
    const compound = rightmostCompound(selector);
    if (!compound) return [];
    subjects.push(compound);
  }
  return subjects;
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
  const lower = text.replace(/[A-Z]/g, (c) => c.toLowerCase());
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
    const blockEnd = close < 0 ? text.length : close;
    const block = text.slice(open + 1, blockEnd);
    const found = declarationReferences(block);
    if (found.length > 0) {
      const subjects = subjectsOf(prelude.slice(prelude.lastIndexOf(';') + 1));
      for (const { property, target } of found) references.push({ target, property, subjects });
    }
    at = blockEnd + 1;
  }
  return references;
}
