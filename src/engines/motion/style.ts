// The few computed style properties the animator needs (paint, stroke, opacity, visibility),
// read the way a renderer cascades them: presentation attributes, then the rules of `<style>`
// sheets that use simple selectors (type, #id, .class), then the `style` attribute, with
// inheritance down the tree. A rule this reader cannot match precisely (combinators, pseudo
// classes) marks the elements it might reach as uncertain instead of guessing.

import { readDeclarations, type Declaration } from '../../svg/css/declarations.ts';
import { meetsCompound } from '../../svg/css/matching.ts';
import { parseSelectorList, type ComplexSelector, type CompoundSelector } from '../../svg/css/selectors.ts';
import { parseSheet, type SheetItem } from '../../svg/css/sheet.ts';
import { splitTopLevel } from '../../svg/css/text.ts';
import type { SvgElement } from '../../svg/tree.ts';
import { parseOpaqueColour, type Rgb } from './colour.ts';

export type Paint =
  | { kind: 'none' }
  | { kind: 'colour'; rgb: Rgb }
  | { kind: 'url'; id: string }
  /** Drawn, but not with a colour the animator can shift (translucent, context-fill, …). */
  | { kind: 'other' };

export interface ComputedStyle {
  fill: Paint;
  stroke: Paint;
  strokeWidth: number;
  fillOpacity: number;
  strokeOpacity: number;
  /** The element's own opacity (not inherited). */
  opacity: number;
  displayed: boolean;
  visible: boolean;
  dashed: boolean;
  lineJoin: string;
  miterLimit: number;
  fontSize: number;
  colour: string;
  filtered: boolean;
  /** A style sheet rule the reader cannot evaluate may change this element's paint. */
  uncertain: boolean;
}

interface Rule {
  compounds: { compound: CompoundSelector; specificity: number }[];
  declarations: Map<string, { value: string; important: boolean }>;
  order: number;
}

export interface StyleSheet {
  rules: Rule[];
  /** Properties set by rules whose selectors this reader does not match (combinators, pseudo classes…). */
  uncertainProperties: Set<string>;
}

const INHERITED = new Set([
  'fill', 'stroke', 'stroke-width', 'fill-opacity', 'stroke-opacity', 'stroke-dasharray', 'stroke-linejoin',
  'stroke-miterlimit', 'font-size', 'color', 'visibility',
]);
const PROPERTIES = new Set([...INHERITED, 'opacity', 'display', 'filter']);
const PAINT_PROPERTIES = ['fill', 'stroke', 'color', 'fill-opacity', 'stroke-opacity'];

/** The declarations of a block this reader uses, by property (the last of a property wins). */
function relevantDeclarations(block: string | readonly Declaration[]): Map<string, { value: string; important: boolean }> {
  const declarations = typeof block === 'string' ? readDeclarations(block) : block;
  const out = new Map<string, { value: string; important: boolean }>();
  for (const { property, value, important } of declarations) if (PROPERTIES.has(property)) out.set(property, { value, important });
  return out;
}

/** A selector this reader matches exactly: one compound of type, id and classes, with its specificity. */
function simpleCompound(selector: string): { compound: CompoundSelector; specificity: number } | undefined {
  const parsed = parseSelectorList(selector);
  if (parsed?.length !== 1) return undefined;
  const [{ compounds, specificity }] = parsed as [ComplexSelector];
  const { compound } = compounds[0]!;
  if (compounds.length !== 1 || compound.attributes.length > 0 || compound.pseudos.length > 0) return undefined;
  return { compound, specificity };
}

/**
 * The rules of every `<style>` element. Rules in `@media` blocks may apply: the properties they
 * set are uncertain. Other at-rules (`@supports`, `@keyframes`, `@font-face`) are skipped.
 */
export function readStyleSheets(styles: string[]): StyleSheet {
  const sheet: StyleSheet = { rules: [], uncertainProperties: new Set() };
  let order = 0;
  for (const css of styles) {
    for (const item of parseSheet(css)) {
      if (item.kind === 'group' && /^@media/i.test(item.prelude)) {
        for (const property of propertiesWithin(item.rules)) sheet.uncertainProperties.add(property);
      }
      if (item.kind !== 'style') continue;
      const relevant = relevantDeclarations(item.declarations);
      if (relevant.size === 0) continue;
      const compounds: Rule['compounds'] = [];
      let complex = false;
      for (const selector of splitTopLevel(item.prelude, ',')) {
        const parsed = simpleCompound(selector);
        if (parsed) compounds.push(parsed);
        else complex = true;
      }
      if (complex) for (const property of relevant.keys()) sheet.uncertainProperties.add(property);
      if (compounds.length > 0) sheet.rules.push({ compounds, declarations: relevant, order: order++ });
    }
  }
  return sheet;
}

/** The properties this reader uses that the rules and keyframes of a group set, nested groups included. */
function propertiesWithin(items: SheetItem[]): string[] {
  const properties: string[] = [];
  for (const item of items) {
    const blocks = item.kind === 'style' ? [item.declarations] : item.kind === 'keyframes' ? item.frames.map((f) => f.declarations) : [];
    for (const block of blocks) properties.push(...relevantDeclarations(block).keys());
    if (item.kind === 'group') properties.push(...propertiesWithin(item.rules));
  }
  return properties;
}

/** The declared value of each property for one element: attribute < sheet < style attribute < !important sheet. */
function declared(element: SvgElement, sheet: StyleSheet): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of element.attributes) if (PROPERTIES.has(name)) out.set(name, value.trim());
  const hits: { specificity: number; order: number; declarations: Rule['declarations'] }[] = [];
  for (const rule of sheet.rules) {
    let best = -1;
    for (const { compound, specificity } of rule.compounds) if (specificity > best && meetsCompound(compound, element)) best = specificity;
    if (best >= 0) hits.push({ specificity: best, order: rule.order, declarations: rule.declarations });
  }
  hits.sort((a, b) => a.specificity - b.specificity || a.order - b.order);
  for (const hit of hits) for (const [property, { value, important }] of hit.declarations) if (!important) out.set(property, value);
  const inline = element.attributes.get('style');
  if (inline) for (const [property, { value }] of relevantDeclarations(inline)) out.set(property, value);
  for (const hit of hits) for (const [property, { value, important }] of hit.declarations) if (important) out.set(property, value);
  return out;
}

export const ROOT_STYLE: ComputedStyle = {
  fill: { kind: 'colour', rgb: { r: 0, g: 0, b: 0 } },
  stroke: { kind: 'none' },
  strokeWidth: 1,
  fillOpacity: 1,
  strokeOpacity: 1,
  opacity: 1,
  displayed: true,
  visible: true,
  dashed: false,
  lineJoin: 'miter',
  miterLimit: 4,
  fontSize: 16,
  colour: 'black',
  filtered: false,
  uncertain: false,
};

function readNumber(value: string, relativeTo: number): number | undefined {
  const n = Number.parseFloat(value);
  if (!Number.isFinite(n)) return undefined;
  if (value.trim().endsWith('%')) return (n / 100) * relativeTo;
  if (/em$/i.test(value.trim())) return n * 16;
  return n;
}

function readPaint(value: string, colour: string, parent: Paint): Paint {
  const v = value.trim();
  if (v === 'inherit') return parent;
  if (v === 'none' || v === 'transparent') return { kind: 'none' };
  const url = /^url\(\s*['"]?#([^'")\s]+)['"]?\s*\)/.exec(v);
  if (url) return { kind: 'url', id: url[1]! };
  const source = /^currentcolor$/i.test(v) ? colour : v;
  const rgb = parseOpaqueColour(source);
  return rgb ? { kind: 'colour', rgb } : { kind: 'other' };
}

/** The computed style of an element given its parent's; `diagonal` resolves percentages of stroke widths. */
export function computeStyle(element: SvgElement, parent: ComputedStyle, sheet: StyleSheet, diagonal: number): ComputedStyle {
  const values = declared(element, sheet);
  const get = (property: string) => {
    const value = values.get(property);
    return value === 'inherit' || value === 'unset' ? undefined : value;
  };
  const colour = get('color') ?? parent.colour;
  const number = (property: string, fallback: number, relativeTo = 1) => {
    const value = get(property);
    if (value === undefined) return fallback;
    return readNumber(value, relativeTo) ?? fallback;
  };
  const fill = get('fill');
  const stroke = get('stroke');
  const dash = get('stroke-dasharray');
  const display = get('display');
  const visibility = get('visibility');
  const filter = get('filter');
  const uncertain = parent.uncertain || PAINT_PROPERTIES.some((property) => sheet.uncertainProperties.has(property));
  return {
    fill: fill === undefined ? parent.fill : readPaint(fill, colour, parent.fill),
    stroke: stroke === undefined ? parent.stroke : readPaint(stroke, colour, parent.stroke),
    strokeWidth: Math.max(0, number('stroke-width', parent.strokeWidth, diagonal)),
    fillOpacity: Math.min(1, Math.max(0, number('fill-opacity', parent.fillOpacity))),
    strokeOpacity: Math.min(1, Math.max(0, number('stroke-opacity', parent.strokeOpacity))),
    opacity: Math.min(1, Math.max(0, number('opacity', 1))),
    displayed: display === undefined || display !== 'none',
    visible: visibility === undefined ? parent.visible : visibility === 'visible',
    dashed: dash === undefined ? parent.dashed : dash !== 'none' && dash !== '0',
    lineJoin: get('stroke-linejoin') ?? parent.lineJoin,
    miterLimit: Math.max(1, number('stroke-miterlimit', parent.miterLimit)),
    fontSize: Math.max(0, number('font-size', parent.fontSize, parent.fontSize)),
    colour,
    filtered: filter !== undefined && filter !== 'none',
    uncertain,
  };
}
