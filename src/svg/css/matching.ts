// Selector matching over a parsed document: a selector against an element, with the parent and
// sibling links structural pseudo-classes and combinators need, under a step budget.
import { isElement, type SvgElement } from '../tree.ts';
import type { AttributeTest, ComplexSelector, CompoundSelector, Pseudo } from './selectors.ts';

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
    // Document order (children pushed in reverse), with parent and sibling links: not a plain walk.
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
}

/** Whether an element meets a compound's own conditions: type, id, classes and attribute tests (not its pseudo-classes). */
export function meetsCompound(compound: CompoundSelector, element: SvgElement): boolean {
  if (compound.type !== undefined && compound.type !== element.name) return false;
  if (compound.id !== undefined && element.attributes.get('id') !== compound.id) return false;
  if (compound.classes.length > 0) {
    const classes = (element.attributes.get('class') ?? '').split(/\s+/);
    for (const c of compound.classes) if (!classes.includes(c)) return false;
  }
  for (const test of compound.attributes) if (!attributeMatches(test, element.attributes.get(test.name))) return false;
  return true;
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
    if (!meetsCompound(compound, element)) return false;
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
