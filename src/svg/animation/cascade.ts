// The cascade the animation evaluator needs: every active rule and `@keyframes` of a document's
// style sheets (those a picture shown in a page applies: media queries evaluated), and the
// winning declarations of each element, selectors matched and `!important` resolved.
import { readDeclarations, type Declaration } from '../css/declarations.ts';
import { SelectorMatcher, type TreeIndex } from '../css/matching.ts';
import { mediaMatches, parseSheet, type KeyframesRule, type SheetItem, type StyleRule } from '../css/sheet.ts';
import { styleText } from '../css/text.ts';
import type { SvgElement } from '../tree.ts';

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
  const visit = (list: SheetItem[]) => {
    for (const item of list) {
      if (item.kind === 'style' && item.active) rules.push(item);
      else if (item.kind === 'keyframes' && item.active) keyframes.set(item.name, item);
      else if (item.kind === 'group') visit(item.rules);
    }
  };
  for (const element of index.elements) {
    if (element.name !== 'style') continue;
    const media = element.attributes.get('media');
    const type = element.attributes.get('type');
    if (type !== undefined && type.trim() !== '' && type.trim().toLowerCase() !== 'text/css') continue;
    const items = parseSheet(styleText(element), media === undefined || mediaMatches(media));
    sheets.push({ element, items });
    visit(items);
  }
  return { rules, keyframes, sheets };
}

/** The cascaded declarations of one element: the winning value of each property. */
export type Cascaded = Map<string, string>;

/** The `style` attribute ranks above every rule, whatever its specificity. */
const INLINE = 1e12;

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
  const pools = new SubjectPools(index);
  for (const rule of styles.rules) {
    if (!rule.selectors || rule.declarations.length === 0) continue;
    // Highest specificity of the selectors that match, per element.
    const best = new Map<SvgElement, number>();
    for (const selector of rule.selectors) {
      for (const element of pools.candidates(selector.compounds[0]!.compound)) {
        if ((best.get(element) ?? -1) >= selector.specificity) continue;
        if (matcher.matches(selector, element)) best.set(element, selector.specificity);
      }
    }
    for (const [element, specificity] of best) {
      for (const declaration of rule.declarations) add(element, declaration, specificity);
    }
  }
  for (const element of index.elements) {
    const style = element.attributes.get('style');
    if (style === undefined) continue;
    for (const declaration of readDeclarations(style)) add(element, declaration, INLINE);
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

/** Elements by id, class and name: the subject of a selector picks its candidates, linear for usual sheets. */
class SubjectPools {
  private readonly byName = new Map<string, SvgElement[]>();
  private readonly byClass = new Map<string, SvgElement[]>();
  private readonly byId = new Map<string, SvgElement[]>();

  constructor(private readonly index: TreeIndex) {
    for (const element of index.elements) {
      SubjectPools.push(this.byName, element.name, element);
      const id = element.attributes.get('id');
      if (id !== undefined) SubjectPools.push(this.byId, id, element);
      for (const c of new Set((element.attributes.get('class') ?? '').split(/\s+/).filter(Boolean))) SubjectPools.push(this.byClass, c, element);
    }
  }

  candidates(subject: { type?: string; id?: string; classes: string[] }): SvgElement[] {
    if (subject.id !== undefined) return this.byId.get(subject.id) ?? [];
    if (subject.classes.length > 0) return this.byClass.get(subject.classes[0]!) ?? [];
    if (subject.type !== undefined) return this.byName.get(subject.type) ?? [];
    return this.index.elements;
  }

  private static push(map: Map<string, SvgElement[]>, key: string, element: SvgElement): void {
    const list = map.get(key);
    if (list) list.push(element);
    else map.set(key, [element]);
  }
}
