// What a drawing is made of, as the animator sees it: the drawn elements (leaves) with their
// computed style, their outline in their own coordinates and where they land on the canvas;
// the parts a drawing divides into; the names its elements carry (ids, classes, titles).

import type { ViewBox } from '../../contract/common.ts';
import { svgIntrinsicSize } from '../../svg/geometry.ts';
import { styleText } from '../../svg/css/text.ts';
import { parseSvg } from '../../svg/parse.ts';
import { walk } from '../../svg/sanitize.ts';
import { element as newElement, isElement, type SvgElement, type SvgNode } from '../../svg/tree.ts';
import {
  IDENTITY,
  applyMatrix,
  ellipseOutline,
  invert,
  meanScale,
  multiply,
  numbersIn,
  padBox,
  parsePathData,
  parseTransform,
  polyOutline,
  rectOutline,
  samplePoints,
  scaling,
  translation,
  outlineBox,
  type Box,
  type Matrix,
  type Point,
  type Subpath,
} from './geometry.ts';
import { ROOT_STYLE, computeStyle, readStyleSheets, type ComputedStyle, type StyleSheet } from './style.ts';

/** Elements drawn where they stand. */
export const SHAPES = new Set(['path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon']);
const LEAVES = new Set([...SHAPES, 'text', 'image', 'use']);
const CONTAINERS = new Set(['g', 'a', 'switch', 'svg']);

/** One drawn element. */
export interface Leaf {
  element: SvgElement;
  style: ComputedStyle;
  /** The element's own coordinates (its transform included) → the root's user space. */
  ctm: Matrix;
  /** Its outline in its own coordinates (a box for text and images). */
  outline: Subpath[];
  /** Root-space bounding box of what it paints, stroke and filters included. */
  box: Box;
  /** Root-space margin around the outline that paint may cover (half the stroke, filter room). */
  pad: number;
  /** Containers from the stage down to its parent. */
  ancestors: SvgElement[];
  /** Stroked and not filled: a line to draw. */
  lineArt: boolean;
  /** Filled with paint. */
  solid: boolean;
}

export interface Scene {
  root: SvgElement;
  /** The group that holds every drawn child of the root; put back in place when nothing animates it. */
  stage: SvgElement;
  viewBox: ViewBox;
  /** Where motion must stay: the viewBox, grown to hold whatever already lies outside it at rest. */
  region: Box;
  leaves: Leaf[];
  parentOf: Map<SvgElement, SvgElement>;
  /** Root-space transform of each container's own coordinates. */
  ctmOf: Map<SvgElement, Matrix>;
  leavesUnder: Map<SvgElement, Leaf[]>;
  byId: Map<string, SvgElement>;
  /** Rendered elements by the words of their names (id, class, data-* values, `<title>`), singular. */
  names: Map<string, SvgElement[]>;
  /** The root's children as they were, to restore when the stage is not used. */
  originalChildren: SvgNode[];
  styleOf: Map<SvgElement, ComputedStyle>;
}

/** A number attribute in user units (percentages of the viewport side given). */
function length(element: SvgElement, name: string, side: number, fallback = 0): number {
  const value = element.attributes.get(name);
  if (value === undefined) return fallback;
  const n = Number.parseFloat(value);
  if (!Number.isFinite(n)) return fallback;
  return value.trim().endsWith('%') ? (n / 100) * side : n;
}

function optionalLength(element: SvgElement, name: string, side: number): number | undefined {
  const value = element.attributes.get(name);
  if (value === undefined || value.trim() === 'auto') return undefined;
  const n = Number.parseFloat(value);
  if (!Number.isFinite(n)) return undefined;
  return value.trim().endsWith('%') ? (n / 100) * side : n;
}

function textContent(node: SvgNode): string {
  if (!isElement(node)) return node.text;
  return node.children.map(textContent).join('');
}

/** The outline of a shape in its own coordinates. */
export function shapeOutline(element: SvgElement, viewBox: ViewBox): Subpath[] {
  const w = viewBox.width;
  const h = viewBox.height;
  const diagonal = Math.hypot(w, h) / Math.SQRT2;
  switch (element.name) {
    case 'path':
      return parsePathData(element.attributes.get('d') ?? '');
    case 'rect':
      return rectOutline(
        length(element, 'x', w),
        length(element, 'y', h),
        length(element, 'width', w),
        length(element, 'height', h),
        optionalLength(element, 'rx', w),
        optionalLength(element, 'ry', h),
      );
    case 'circle': {
      const r = length(element, 'r', diagonal);
      return ellipseOutline(length(element, 'cx', w), length(element, 'cy', h), r, r);
    }
    case 'ellipse': {
      const rx = optionalLength(element, 'rx', w);
      const ry = optionalLength(element, 'ry', h);
      return ellipseOutline(length(element, 'cx', w), length(element, 'cy', h), rx ?? ry ?? 0, ry ?? rx ?? 0);
    }
    case 'line':
      return [
        {
          closed: false,
          segments: [{ kind: 'line', p0: { x: length(element, 'x1', w), y: length(element, 'y1', h) }, p1: { x: length(element, 'x2', w), y: length(element, 'y2', h) } }],
        },
      ];
    case 'polyline':
    case 'polygon':
      return polyOutline(element.attributes.get('points') ?? '', element.name === 'polygon');
    default:
      return [];
  }
}

function boxOutline(box: Box): Subpath[] {
  return rectOutline(box.minX, box.minY, box.maxX - box.minX, box.maxY - box.minY, undefined, undefined);
}

/** A rough box for text: fonts are not known here, so about 0.6 em per character. */
function textBox(element: SvgElement, style: ComputedStyle): Box | undefined {
  const text = textContent(element).trim();
  if (!text) return undefined;
  const x = numbersIn(element.attributes.get('x') ?? '0')[0] ?? 0;
  const y = numbersIn(element.attributes.get('y') ?? '0')[0] ?? 0;
  const size = style.fontSize || 16;
  const width = text.length * size * 0.6;
  const anchor = element.attributes.get('text-anchor') ?? '';
  const left = anchor === 'middle' ? x - width / 2 : anchor === 'end' ? x - width : x;
  return { minX: left, minY: y - size, maxX: left + width, maxY: y + size * 0.3 };
}

function transformSubpaths(subpaths: Subpath[], m: Matrix): Subpath[] {
  const p = (q: Point) => applyMatrix(m, q);
  return subpaths.map((subpath) => ({
    closed: subpath.closed,
    segments: subpath.segments.map((s) => (s.kind === 'line' ? { kind: 'line', p0: p(s.p0), p1: p(s.p1) } : { kind: 'cubic', p0: p(s.p0), p1: p(s.p1), p2: p(s.p2), p3: p(s.p3) })),
  }));
}

/** The viewport transform of a nested `<svg>` (x, y and its viewBox, preserveAspectRatio honoured). */
function nestedViewport(element: SvgElement, outer: ViewBox): Matrix {
  const x = length(element, 'x', outer.width);
  const y = length(element, 'y', outer.height);
  const width = length(element, 'width', outer.width, outer.width);
  const height = length(element, 'height', outer.height, outer.height);
  const vb = numbersIn(element.attributes.get('viewBox') ?? '');
  if (vb.length !== 4 || !(vb[2]! > 0) || !(vb[3]! > 0)) return translation(x, y);
  const [minX, minY, vw, vh] = vb as [number, number, number, number];
  const par = (element.attributes.get('preserveAspectRatio') ?? 'xMidYMid meet').trim().split(/\s+/);
  let sx = width / vw;
  let sy = height / vh;
  let tx = x;
  let ty = y;
  if (par[0] !== 'none') {
    const s = par[1] === 'slice' ? Math.max(sx, sy) : Math.min(sx, sy);
    const align = par[0] ?? 'xMidYMid';
    const fx = align.startsWith('xMid') ? 0.5 : align.startsWith('xMax') ? 1 : 0;
    const fy = align.endsWith('YMid') ? 0.5 : align.endsWith('YMax') ? 1 : 0;
    tx += (width - vw * s) * fx;
    ty += (height - vh * s) * fy;
    sx = sy = s;
  }
  return multiply(translation(tx, ty), multiply(scaling(sx, sy), translation(-minX, -minY)));
}

function nameWords(value: string): string[] {
  return value
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((word) => word.length > 1)
    .map(singular);
}

/** A word's singular for matching: wheels → wheel, bodies → body, boxes → box. */
export function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(?:sh|ch|x|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

export function isRendered(node: SvgNode): node is SvgElement {
  return isElement(node) && (LEAVES.has(node.name) || CONTAINERS.has(node.name));
}

/** The viewBox the drawing is seen through: its own, else its size, else 300×150. */
export function sceneViewBox(root: SvgElement): ViewBox {
  const size = svgIntrinsicSize(root);
  return size.viewBox ?? { minX: 0, minY: 0, width: size.width, height: size.height };
}

/** Reads a sanitized SVG document into a scene. */
export function readScene(markup: string): Scene {
  const root = parseSvg(markup);
  const viewBox = sceneViewBox(root);
  const byId = new Map<string, SvgElement>();
  const styles: string[] = [];
  for (const el of walk(root)) {
    const id = el.attributes.get('id');
    if (id !== undefined && !byId.has(id)) byId.set(id, el);
    if (el.name === 'style') styles.push(styleText(el));
  }
  const scene = stagedScene(root, viewBox, byId);
  new LeafReader(scene, readStyleSheets(styles)).read();
  scene.region = regionOf(scene);
  indexNames(scene);
  return scene;
}

/** An empty scene whose stage holds every drawn child of the root, in order; the rest stays before it. */
function stagedScene(root: SvgElement, viewBox: ViewBox, byId: Map<string, SvgElement>): Scene {
  const originalChildren = [...root.children];
  const stage = newElement('g');
  stage.children = originalChildren.filter(isRendered);
  root.children = [...originalChildren.filter((node) => !isRendered(node)), stage];
  return {
    root,
    stage,
    viewBox,
    region: { minX: viewBox.minX, minY: viewBox.minY, maxX: viewBox.minX + viewBox.width, maxY: viewBox.minY + viewBox.height },
    leaves: [],
    parentOf: new Map(),
    ctmOf: new Map(),
    leavesUnder: new Map(),
    byId,
    names: new Map(),
    originalChildren,
    styleOf: new Map(),
  };
}

/** Walks the stage down to the drawn elements: their computed style, transform, outline and box. */
class LeafReader {
  private readonly diagonal: number;

  constructor(
    private readonly scene: Scene,
    private readonly sheet: StyleSheet,
  ) {
    this.diagonal = Math.hypot(scene.viewBox.width, scene.viewBox.height) / Math.SQRT2;
  }

  read(): void {
    const { scene } = this;
    const rootStyle = computeStyle(scene.root, ROOT_STYLE, this.sheet, this.diagonal);
    scene.styleOf.set(scene.root, rootStyle);
    scene.ctmOf.set(scene.stage, IDENTITY);
    scene.styleOf.set(scene.stage, rootStyle);
    for (const child of scene.stage.children) {
      if (!isElement(child)) continue;
      scene.parentOf.set(child, scene.stage);
      this.visit(child, IDENTITY, rootStyle, [scene.stage], false);
    }
  }

  private visit(node: SvgElement, parentCtm: Matrix, parentStyle: ComputedStyle, ancestors: SvgElement[], filtered: boolean): void {
    const { scene } = this;
    const style = computeStyle(node, parentStyle, this.sheet, this.diagonal);
    scene.styleOf.set(node, style);
    if (!style.displayed) return;
    const own = node.name === 'svg' ? nestedViewport(node, scene.viewBox) : parseTransform(node.attributes.get('transform'));
    const ctm = multiply(parentCtm, own);
    const underFilter = filtered || style.filtered;
    if (CONTAINERS.has(node.name)) {
      scene.ctmOf.set(node, ctm);
      const children = node.name === 'switch' ? switchChild(node) : node.children.filter(isRendered);
      for (const child of children) {
        scene.parentOf.set(child, node);
        this.visit(child, ctm, style, [...ancestors, node], underFilter);
      }
      return;
    }
    const outline = this.outline(node, style);
    if (outline.every((subpath) => subpath.segments.length === 0)) return;
    const leaf = leafOf(node, style, ctm, outline, ancestors, underFilter);
    if (!leaf) return;
    scene.leaves.push(leaf);
    for (const ancestor of ancestors) {
      const list = scene.leavesUnder.get(ancestor);
      if (list) list.push(leaf);
      else scene.leavesUnder.set(ancestor, [leaf]);
    }
    scene.leavesUnder.set(node, [leaf]);
  }

  /** A drawn element's outline in its own coordinates (a box for text and images). */
  private outline(node: SvgElement, style: ComputedStyle): Subpath[] {
    const { viewBox } = this.scene;
    if (SHAPES.has(node.name)) return shapeOutline(node, viewBox);
    if (node.name === 'text') {
      const box = textBox(node, style);
      return box ? boxOutline(box) : [];
    }
    if (node.name === 'image') {
      return rectOutline(length(node, 'x', viewBox.width), length(node, 'y', viewBox.height), length(node, 'width', viewBox.width), length(node, 'height', viewBox.height), 0, 0);
    }
    if (node.name === 'use') return this.useOutline(node, style, 0);
    return [];
  }

  /** The subpaths a `<use>` draws, in its own coordinates. */
  private useOutline(use: SvgElement, style: ComputedStyle, depth: number): Subpath[] {
    const { viewBox, byId } = this.scene;
    const target = byId.get((use.attributes.get('href') ?? use.attributes.get('xlink:href') ?? '').trim().slice(1));
    const shift = translation(length(use, 'x', viewBox.width), length(use, 'y', viewBox.height));
    return target ? transformSubpaths(this.referenced(target, style, depth), shift) : [];
  }

  /** Subpaths of a referenced element in the coordinates of the `<use>` (depth-limited; cycles were refused by the sanitizer). */
  private referenced(target: SvgElement, style: ComputedStyle, depth: number): Subpath[] {
    if (depth > 8) return [];
    const own = computeStyle(target, style, this.sheet, this.diagonal);
    if (!own.displayed) return [];
    const m = target.name === 'symbol' ? IDENTITY : parseTransform(target.attributes.get('transform'));
    let outline: Subpath[] = [];
    if (SHAPES.has(target.name)) outline = shapeOutline(target, this.scene.viewBox);
    else if (target.name === 'text') {
      const box = textBox(target, own);
      outline = box ? boxOutline(box) : [];
    } else if (target.name === 'use') {
      outline = this.useOutline(target, own, depth + 1);
    } else {
      for (const child of target.children) if (isElement(child) && (child.name === 'symbol' || isRendered(child))) outline.push(...this.referenced(child, own, depth + 1));
    }
    return transformSubpaths(outline, m);
  }
}

/** The leaf of a drawn element, or undefined when it paints nothing (no fill or stroke, hidden, no extent). */
function leafOf(node: SvgElement, style: ComputedStyle, ctm: Matrix, outline: Subpath[], ancestors: SvgElement[], underFilter: boolean): Leaf | undefined {
  const stroked = style.stroke.kind !== 'none' && style.strokeWidth > 0;
  // A line has no inside to fill.
  const filled = style.fill.kind !== 'none' && node.name !== 'line';
  const paints = node.name === 'image' || node.name === 'use' || node.name === 'text' || stroked || filled;
  if (!paints || !style.visible) return undefined;
  const scale = meanScale(ctm);
  const bare = outlineBox(outline, ctm);
  if (!bare) return undefined;
  const strokePad = stroked ? (style.strokeWidth / 2) * (style.lineJoin === 'miter' || style.lineJoin === 'miter-clip' ? Math.min(style.miterLimit, 1.5) : 1) * scale : 0;
  const size = Math.max(bare.maxX - bare.minX, bare.maxY - bare.minY);
  const filterPad = underFilter ? 0.1 * size + strokePad : 0;
  const textPad = node.name === 'text' ? 0.1 * size : 0;
  const pad = strokePad + filterPad + textPad;
  return {
    element: node,
    style,
    ctm,
    outline,
    box: padBox(bare, pad),
    pad,
    ancestors,
    lineArt: SHAPES.has(node.name) && stroked && !filled,
    solid: filled || node.name === 'image' || node.name === 'use',
  };
}

/** Motion stays in the viewBox, or within what the drawing already covers beyond it at rest. */
function regionOf(scene: Scene): Box {
  let region = scene.region;
  for (const leaf of scene.leaves) {
    region = {
      minX: Math.min(region.minX, leaf.box.minX),
      minY: Math.min(region.minY, leaf.box.minY),
      maxX: Math.max(region.maxX, leaf.box.maxX),
      maxY: Math.max(region.maxY, leaf.box.maxY),
    };
  }
  return region;
}

/** Names: ids, classes, data-* values and <title> text of every rendered element. */
function indexNames(scene: Scene): void {
  const addName = (word: string, el: SvgElement) => {
    const list = scene.names.get(word);
    if (!list) scene.names.set(word, [el]);
    else if (!list.includes(el)) list.push(el);
  };
  const named = [...scene.leavesUnder.keys()].filter((el) => el !== scene.stage);
  for (const el of named) {
    const sources: string[] = [];
    for (const [name, value] of el.attributes) if (name === 'id' || name === 'class' || name.startsWith('data-')) sources.push(value);
    for (const child of el.children) if (isElement(child) && child.name === 'title') sources.push(textContent(child));
    for (const source of sources) for (const word of nameWords(source)) addName(word, el);
  }
}

function switchChild(node: SvgElement): SvgElement[] {
  const rendered = node.children.filter(isRendered);
  const plain = rendered.find((child) => !['requiredFeatures', 'requiredExtensions', 'systemLanguage'].some((a) => child.attributes.has(a)));
  const chosen = plain ?? rendered[0];
  return chosen ? [chosen] : [];
}

/** The transform from a wrapper's coordinates (those of the node's parent) to the root's, and back. */
export function parentSpace(scene: Scene, node: SvgElement): { toRoot: Matrix; fromRoot: Matrix } | undefined {
  const parent = scene.parentOf.get(node);
  const toRoot = node === scene.stage ? IDENTITY : parent ? scene.ctmOf.get(parent) : undefined;
  if (!toRoot) return undefined;
  const fromRoot = invert(toRoot);
  return fromRoot ? { toRoot, fromRoot } : undefined;
}

const boxes = new WeakMap<SvgElement, Box | null>();

/** The root-space box of what a node paints (remembered per node). */
export function nodeBox(scene: Scene, node: SvgElement): Box | undefined {
  const known = boxes.get(node);
  if (known !== undefined) return known ?? undefined;
  const leaves = scene.leavesUnder.get(node);
  let box: Box | undefined;
  for (const leaf of leaves ?? []) {
    box = box
      ? { minX: Math.min(box.minX, leaf.box.minX), minY: Math.min(box.minY, leaf.box.minY), maxX: Math.max(box.maxX, leaf.box.maxX), maxY: Math.max(box.maxY, leaf.box.maxY) }
      : { ...leaf.box };
  }
  boxes.set(node, box ?? null);
  return box;
}

const samples = new WeakMap<Leaf, Map<number, Point[]>>();

/** Root-space sample points of a leaf's outline (at most `limit`; remembered per leaf). */
export function leafPoints(leaf: Leaf, limit: number): Point[] {
  let byLimit = samples.get(leaf);
  if (!byLimit) samples.set(leaf, (byLimit = new Map()));
  let points = byLimit.get(limit);
  if (!points) byLimit.set(limit, (points = samplePoints(leaf.outline, 0, limit).map((p) => applyMatrix(leaf.ctm, p))));
  return points;
}

/**
 * The parts a drawing divides into: below the stage, through groups that hold everything, the
 * children that draw something. At most `max`: beyond that, runs of neighbours are grouped.
 */
export function partsOf(scene: Scene, max = 24, from: SvgElement = scene.stage): SvgElement[] {
  let node = from;
  for (;;) {
    const drawn = node.children.filter((c): c is SvgElement => isElement(c) && scene.leavesUnder.has(c));
    if (drawn.length === 0) return node === from ? [from] : [];
    if (drawn.length === 1 && CONTAINERS.has(drawn[0]!.name) && drawn[0]!.name !== 'svg') {
      node = drawn[0]!;
      continue;
    }
    if (drawn.length <= max) return drawn;
    // Group runs of neighbours so the count stays within max; each run becomes a new group.
    const per = Math.ceil(drawn.length / max);
    const groups: SvgElement[] = [];
    const children: SvgNode[] = [];
    const runOf = new Map<Leaf, SvgElement>();
    let run: SvgElement | undefined;
    let count = 0;
    for (const child of node.children) {
      if (!(isElement(child) && scene.leavesUnder.has(child))) {
        (run ? run.children : children).push(child);
        continue;
      }
      if (!run || count === per) {
        run = newElement('g');
        groups.push(run);
        children.push(run);
        scene.parentOf.set(run, node);
        scene.ctmOf.set(run, scene.ctmOf.get(node) ?? IDENTITY);
        scene.leavesUnder.set(run, []);
        count = 0;
      }
      run.children.push(child);
      scene.parentOf.set(child, run);
      for (const leaf of scene.leavesUnder.get(child) ?? []) {
        scene.leavesUnder.get(run)!.push(leaf);
        runOf.set(leaf, run);
      }
      count++;
    }
    node.children = children;
    for (const [leaf, group] of runOf) {
      const at = leaf.ancestors.indexOf(node);
      if (at >= 0) leaf.ancestors = [...leaf.ancestors.slice(0, at + 1), group, ...leaf.ancestors.slice(at + 1)];
    }
    return groups;
  }
}
