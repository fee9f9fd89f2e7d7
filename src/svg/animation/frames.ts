// The static SVG an animated SVG shows at time t, for a renderer that does not animate (resvg).
//
// Evaluated: CSS animations (`@keyframes` with percentages, from/to, per-keyframe timing
// functions; duration, delay, iteration count, direction, fill mode; every easing function) and
// SMIL (`animate`, `set`, `animateTransform`, `animateMotion` with from/to/by/values, keyTimes,
// keySplines, calcMode discrete/linear/paced/spline, additive, accumulate, fill, begin/end with
// offsets and syncbases), on any property: transforms (translate, scale, rotate, skew, matrix,
// with transform-origin and transform-box), colours, numbers and lengths (opacity,
// stroke-dashoffset, stroke-dasharray, r, x, …), path data with matching commands, and anything
// else discretely. Because resvg reads less CSS than a browser, each frame is written as plain
// SVG: every element's cascaded declarations (selectors, media queries, !important resolved
// here) are written into its `style` attribute and the sheets removed; transforms become one
// `matrix()` attribute with the origin applied; `pathLength` is applied to dash values; animation
// elements are removed. Approximations: see the README ("Frames at time t").
import { SMIL_ELEMENTS } from '../allowlist.ts';
import type { KeyframesRule } from '../css/sheet.ts';
import { splitTopLevel } from '../css/text.ts';
import { parseSvg } from '../parse.ts';
import type { SvgElement } from '../tree.ts';
import { isElement } from '../tree.ts';
import { parseEasing, type Easing } from './easing.ts';
import { childNamed, documentAnimations, type CssAnimation, type DocumentAnimations, type SmilAnimation } from './model.ts';
import { fmt, lengthPx, numbersIn, parseNumber } from './numbers.ts';
import { cssProgress, smilProgress, type SmilProgress } from './progress.ts';
import { flattenPath, objectBoundingBox, outline, outlineLength, pointAtLength, polylinesLength, type Polylines } from './shapes.ts';
import { pick, valueSpec } from './smil-values.ts';
import { timingOf, type AnimationTiming } from './timing.ts';
import {
  formatMatrix,
  interpolateTransforms,
  listMatrix,
  multiply,
  originPoint,
  parseCssTransform,
  parseSvgTransform,
  type Box,
  type Matrix,
  type TransformFunction,
} from './transforms.ts';
import { addValues, distance, interpolate } from './values.ts';

/** Properties that are CSS properties (written into `style`); anything else is an attribute. */
const CSS_PROPERTIES = new Set([
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-opacity', 'stroke-width', 'stroke-dasharray', 'stroke-dashoffset',
  'stroke-linecap', 'stroke-linejoin', 'stroke-miterlimit', 'opacity', 'visibility', 'display', 'color', 'stop-color',
  'stop-opacity', 'flood-color', 'flood-opacity', 'lighting-color', 'font-size', 'font-family', 'font-weight', 'font-style',
  'letter-spacing', 'word-spacing', 'text-anchor', 'clip-path', 'mask', 'filter', 'marker-start', 'marker-mid', 'marker-end',
  'mix-blend-mode', 'isolation', 'paint-order', 'vector-effect', 'shape-rendering', 'text-decoration', 'dominant-baseline',
  'clip-rule', 'overflow', 'image-rendering', 'color-interpolation-filters', 'baseline-shift',
]);

/** Geometry properties CSS may set but resvg reads only as attributes. */
const GEOMETRY_PROPERTIES = new Set(['x', 'y', 'cx', 'cy', 'r', 'rx', 'ry', 'width', 'height', 'd']);

const INHERITED = new Set([
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-opacity', 'stroke-width', 'stroke-dasharray', 'stroke-dashoffset',
  'stroke-linecap', 'stroke-linejoin', 'stroke-miterlimit', 'visibility', 'color', 'font-size', 'font-family', 'font-weight',
  'font-style', 'letter-spacing', 'word-spacing', 'text-anchor', 'paint-order', 'marker-start', 'marker-mid', 'marker-end',
  'clip-rule', 'dominant-baseline', 'shape-rendering', 'color-interpolation-filters', 'image-rendering',
]);

const INITIAL: Record<string, string> = {
  fill: 'black', 'fill-opacity': '1', stroke: 'none', 'stroke-opacity': '1', 'stroke-width': '1', 'stroke-dasharray': 'none',
  'stroke-dashoffset': '0', opacity: '1', visibility: 'visible', display: 'inline', color: 'black', 'stop-color': 'black',
  'stop-opacity': '1', 'flood-color': 'black', 'flood-opacity': '1', 'font-size': '16',
};

/** Declarations a frame does not keep: its animations are evaluated, its transforms flattened. */
const DROPPED = /^(animation|transition|transform$|transform-origin$|transform-box$|will-change$|offset)/;

export interface FrameOptions {
  /**
   * Widen the viewBox by this fraction of its size on every side (0.25: a quarter), so what an
   * animation moves outside the picture shows in the frame. The root's width and height are
   * dropped (the frame's size is its viewBox).
   */
  margin?: number;
}

/** One document, parsed once, evaluated at any time. */
export class FrameEvaluator {
  readonly root: SvgElement;
  readonly doc: DocumentAnimations;
  readonly timing: AnimationTiming;
  /** The root viewBox (or its size), for `transform-box: view-box` and margins. */
  readonly viewBox: Box;
  private readonly staticStyle = new Map<SvgElement, Map<string, string>>();
  private readonly keyframeTracks = new Map<KeyframesRule, Map<string, Track[]>>();
  private readonly boxes = new Map<SvgElement, Box | undefined>();
  private readonly motionPaths = new Map<SmilAnimation, Polylines | undefined>();

  constructor(svg: string | SvgElement) {
    this.root = typeof svg === 'string' ? parseSvg(svg) : svg;
    this.doc = documentAnimations(this.root);
    this.timing = timingOf(this.doc);
    const vb = (this.root.attributes.get('viewBox') ?? '').trim().split(/[\s,]+/).map(Number);
    if (vb.length === 4 && vb.every(Number.isFinite) && vb[2]! > 0 && vb[3]! > 0) this.viewBox = { x: vb[0]!, y: vb[1]!, width: vb[2]!, height: vb[3]! };
    else {
      const w = lengthPx(this.root.attributes.get('width') ?? '') ?? 300;
      const h = lengthPx(this.root.attributes.get('height') ?? '') ?? 150;
      this.viewBox = { x: 0, y: 0, width: w > 0 ? w : 300, height: h > 0 ? h : 150 };
    }
    for (const [element, cascaded] of this.doc.cascaded) {
      const kept = new Map<string, string>();
      for (const [property, value] of cascaded) if (!DROPPED.test(property)) kept.set(property, value);
      this.staticStyle.set(element, kept);
    }
  }

  /** The static SVG shown at `ms` milliseconds. */
  frameAt(ms: number, options: FrameOptions = {}): string {
    const state = this.evaluate(ms);
    const out: string[] = [];
    this.write(this.root, state, options, out);
    return out.join('');
  }

  /* ---------- evaluation ---------- */

  private evaluate(t: number): FrameState {
    const state: FrameState = { style: new Map(), attributes: new Map(), cssTransform: new Map(), smilTransform: new Map(), motion: new Map() };
    const setStyle = (element: SvgElement, property: string, value: string) => {
      let map = state.style.get(element);
      if (!map) state.style.set(element, (map = new Map()));
      map.set(property, value);
    };
    // CSS animations, in each element's animation-name order (later wins).
    const css = [...this.doc.css].sort((a, b) => a.order - b.order);
    for (const animation of css) {
      const progress = cssProgress(animation, t);
      if (progress === undefined) continue;
      for (const property of animation.properties) {
        if (property === 'transform') {
          const list = this.cssKeyframeTransform(animation, progress);
          if (list) state.cssTransform.set(animation.element, list);
        } else {
          const value = this.cssKeyframeValue(animation, property, progress);
          if (value !== undefined) setStyle(animation.element, property, value);
        }
      }
    }
    // SMIL, attribute by attribute, in priority order (later begin, then later in the document, wins).
    const groups = new Map<string, { animation: SmilAnimation; progress: SmilProgress }[]>();
    const keys = new Map<SvgElement, number>();
    for (const animation of this.doc.smil) {
      const progress = smilProgress(animation, t);
      if (!progress) continue;
      let k = keys.get(animation.target);
      if (k === undefined) keys.set(animation.target, (k = keys.size));
      const key = `${k}\u0000${animation.attribute}`;
      const list = groups.get(key) ?? [];
      list.push({ animation, progress });
      groups.set(key, list);
    }
    for (const list of groups.values()) {
      list.sort((a, b) => a.progress.beginMs - b.progress.beginMs || a.animation.order - b.animation.order);
      const { target, attribute } = list[0]!.animation;
      if (attribute === 'transform') {
        let current = this.attributeTransform(target);
        for (const { animation, progress } of list) current = this.smilTransformValue(animation, progress, current);
        state.smilTransform.set(target, current);
      } else if (attribute === 'motion') {
        let m: Matrix | undefined;
        for (const { animation, progress } of list) {
          const next = this.motionMatrix(animation, progress);
          if (next) m = animation.element.attributes.get('additive') === 'sum' && m ? multiply(m, next) : next;
        }
        if (m) state.motion.set(target, m);
      } else {
        let current = this.baseValue(target, attribute);
        for (const { animation, progress } of list) current = this.smilValue(animation, progress, current);
        if (CSS_PROPERTIES.has(attribute)) setStyle(target, attribute, current);
        else {
          let map = state.attributes.get(target);
          if (!map) state.attributes.set(target, (map = new Map()));
          map.set(attribute, current);
        }
      }
    }
    return state;
  }

  /** The value a property has without animations: the cascade, the attribute, the parent's, or its initial value. */
  baseValue(element: SvgElement, property: string): string {
    for (let e: SvgElement | undefined = element; e; e = this.doc.index.parent.get(e)) {
      let value = this.staticStyle.get(e)?.get(property) ?? e.attributes.get(property);
      if (value !== undefined && value.includes('var(')) value = this.resolveVars(e, value);
      if (value !== undefined && value !== 'inherit') {
        if (value.trim().toLowerCase() === 'currentcolor' && property !== 'color') return this.baseValue(e, 'color');
        return value;
      }
      if (value === undefined && !INHERITED.has(property)) break;
    }
    return INITIAL[property] ?? (GEOMETRY_PROPERTIES.has(property) ? '0' : '');
  }

  /** `var(--x, fallback)` resolved from the custom properties of the element and its ancestors. */
  private resolveVars(element: SvgElement, value: string, depth = 0): string {
    if (depth > 8) return value;
    return value.replace(/var\(\s*(--[\w-]+)\s*(?:,([^()]*))?\)/g, (_all, name: string, fallback: string | undefined) => {
      for (let e: SvgElement | undefined = element; e; e = this.doc.index.parent.get(e)) {
        const v = this.doc.cascaded.get(e)?.get(name);
        if (v !== undefined) return this.resolveVars(e, v, depth + 1);
      }
      return fallback?.trim() ?? '';
    });
  }

  private cssValue(element: SvgElement, value: string): string {
    let v = value.includes('var(') ? this.resolveVars(element, value) : value;
    if (v.trim().toLowerCase() === 'currentcolor') v = this.baseValue(element, 'color');
    return v;
  }

  /* ---------- CSS keyframes ---------- */

  private tracks(rule: KeyframesRule): Map<string, Track[]> {
    let tracks = this.keyframeTracks.get(rule);
    if (tracks) return tracks;
    tracks = new Map();
    // Keyframes with the same offset merge, later declarations winning.
    type Merged = { values: Map<string, string>; easing?: string };
    const merged = new Map<number, Merged>();
    for (const frame of rule.frames) {
      const easing = frame.declarations.findLast((d) => d.property === 'animation-timing-function')?.value;
      for (const offset of frame.offsets) {
        const entry: Merged = merged.get(offset) ?? { values: new Map() };
        for (const d of frame.declarations) if (!d.property.startsWith('animation')) entry.values.set(d.property, d.value);
        if (easing !== undefined) entry.easing = easing;
        merged.set(offset, entry);
      }
    }
    for (const [offset, entry] of [...merged].sort((a, b) => a[0] - b[0])) {
      for (const [property, value] of entry.values) {
        const list = tracks.get(property) ?? [];
        list.push({ offset, value, ...(entry.easing !== undefined ? { easing: parseEasing(entry.easing) } : {}) });
        tracks.set(property, list);
      }
    }
    this.keyframeTracks.set(rule, tracks);
    return tracks;
  }

  /** The segment of a property's keyframes at progress x, with the eased local progress. */
  private segment(animation: CssAnimation, property: string, x: number, base: string): { from: string; to: string; p: number } | undefined {
    const track = this.tracks(animation.keyframes).get(property);
    if (!track || track.length === 0) return undefined;
    const points: Track[] = [...track];
    if (points[0]!.offset > 0) points.unshift({ offset: 0, value: base });
    if (points.at(-1)!.offset < 1) points.push({ offset: 1, value: base });
    let i = 0;
    while (i < points.length - 2 && x >= points[i + 1]!.offset) i++;
    const a = points[i]!;
    const b = points[i + 1] ?? a;
    const span = b.offset - a.offset;
    const local = span > 0 ? Math.min(1, Math.max(0, (x - a.offset) / span)) : 1;
    const easing = a.easing ?? parseEasing(animation.easing);
    return { from: a.value, to: b.value, p: easing(local) };
  }

  private cssKeyframeValue(animation: CssAnimation, property: string, x: number): string | undefined {
    const element = animation.element;
    const base = this.baseValue(element, property);
    const seg = this.segment(animation, property, x, base);
    if (!seg) return undefined;
    const from = this.cssValue(element, seg.from);
    const to = this.cssValue(element, seg.to);
    if (property === 'visibility' && (from === 'visible' || to === 'visible') && seg.p > 0 && seg.p < 1) return 'visible';
    return interpolate(from, to, seg.p, { premultiplied: true });
  }

  private cssKeyframeTransform(animation: CssAnimation, x: number): TransformFunction[] | undefined {
    const element = animation.element;
    const box = this.referenceBox(element);
    const base = this.cssDeclaredTransform(element) ?? this.attributeTransform(element);
    const seg = this.segment(animation, 'transform', x, '\u0000base');
    if (!seg) return undefined;
    const read = (value: string) => (value === '\u0000base' ? base : parseCssTransform(this.cssValue(element, value), box));
    const from = read(seg.from);
    const to = read(seg.to);
    if (!from || !to) return from ?? to;
    return interpolateTransforms(from, to, seg.p);
  }

  /* ---------- transforms ---------- */

  private cssDeclaredTransform(element: SvgElement): TransformFunction[] | undefined {
    const value = this.doc.cascaded.get(element)?.get('transform');
    if (value === undefined) return undefined;
    return parseCssTransform(this.cssValue(element, value), this.referenceBox(element)) ?? [];
  }

  private attributeTransform(element: SvgElement): TransformFunction[] {
    const value = element.attributes.get('transform');
    return (value !== undefined ? parseSvgTransform(value) : undefined) ?? [];
  }

  /** The box of `transform-box`: the viewBox (at the origin) by default, else the element's bounding box. */
  private referenceBox(element: SvgElement): Box {
    const kind = (this.doc.cascaded.get(element)?.get('transform-box') ?? element.attributes.get('transform-box') ?? 'view-box').trim();
    if (kind === 'view-box') return { x: 0, y: 0, width: this.viewBox.width, height: this.viewBox.height };
    if (!this.boxes.has(element)) this.boxes.set(element, objectBoundingBox(element, this.doc.index.byId));
    const box = this.boxes.get(element) ?? { x: 0, y: 0, width: 0, height: 0 };
    if (kind === 'stroke-box' || kind === 'border-box') {
      const stroke = this.baseValue(element, 'stroke');
      const half = stroke === 'none' ? 0 : (lengthPx(this.baseValue(element, 'stroke-width')) ?? 1) / 2;
      return { x: box.x - half, y: box.y - half, width: box.width + 2 * half, height: box.height + 2 * half };
    }
    return box;
  }

  /** transform-origin as a point in user space. */
  private origin(element: SvgElement): [number, number] {
    // SVG elements default to `transform-origin: 0 0`, the corner of the reference box.
    const value = this.doc.cascaded.get(element)?.get('transform-origin') ?? element.attributes.get('transform-origin') ?? '0 0';
    return originPoint(this.cssValue(element, value), this.referenceBox(element));
  }

  /** The transform an element shows: CSS (animated, else declared) over SMIL over the attribute, with its origin and motion. */
  private finalTransform(element: SvgElement, state: FrameState): Matrix | undefined {
    const css = state.cssTransform.get(element) ?? this.cssDeclaredTransform(element);
    const smil = state.smilTransform.get(element);
    const motion = state.motion.get(element);
    const cascaded = this.doc.cascaded.get(element);
    const hasOrigin =
      (cascaded?.has('transform-origin') ?? false) || (cascaded?.has('transform-box') ?? false) || element.attributes.has('transform-origin') || element.attributes.has('transform-box');
    if (!css && !smil && !motion && !hasOrigin) return undefined;
    const list = css ?? smil ?? this.attributeTransform(element);
    let m = listMatrix(list);
    const origin = list.length > 0 ? this.origin(element) : undefined;
    if (origin) m = multiply(multiply([1, 0, 0, 1, origin[0], origin[1]], m), [1, 0, 0, 1, -origin[0], -origin[1]]);
    if (motion) m = multiply(motion, m);
    return m;
  }

  /* ---------- SMIL values ---------- */

  private smilValue(animation: SmilAnimation, progress: SmilProgress, underlying: string): string {
    const element = animation.element;
    if (animation.tag === 'set') return element.attributes.get('to') ?? underlying;
    const spec = valueSpec(element, underlying);
    if (!spec) return underlying;
    const calcMode = element.attributes.get('calcMode')?.trim() ?? 'linear';
    let value = pick(spec.values, progress.p, calcMode, element, (a, b, q) => interpolate(a, b, q, { premultiplied: false, discreteAt: 0.5 }), distance);
    if (element.attributes.get('accumulate') === 'sum' && progress.iteration > 0 && !spec.toOnly) value = addValues(value, spec.values.at(-1)!, progress.iteration);
    return spec.additive ? addValues(underlying, value) : value;
  }

  private smilTransformValue(animation: SmilAnimation, progress: SmilProgress, underlying: TransformFunction[]): TransformFunction[] {
    const element = animation.element;
    const type = (element.attributes.get('type') ?? 'translate').trim() as 'translate' | 'scale' | 'rotate' | 'skewX' | 'skewY';
    const normalize = (value: string): number[] => {
      const n = numbersIn(value);
      switch (type) {
        case 'translate':
          return [n[0] ?? 0, n[1] ?? 0];
        case 'scale':
          return [n[0] ?? 1, n[1] ?? n[0] ?? 1];
        case 'rotate':
          return [n[0] ?? 0, n[1] ?? 0, n[2] ?? 0];
        default:
          return [n[0] ?? 0];
      }
    };
    const zero = type === 'scale' ? '1' : '0';
    const spec = valueSpec(element, zero);
    if (!spec) return underlying;
    const calcMode = element.attributes.get('calcMode')?.trim() ?? 'linear';
    const lerp = (a: string, b: string, q: number) => {
      const x = normalize(a);
      const y = normalize(b);
      return x.map((v, i) => fmt(v + (y[i]! - v) * q)).join(' ');
    };
    const dist = (a: string, b: string) => {
      const x = normalize(a);
      const y = normalize(b);
      return type === 'rotate' ? Math.abs(x[0]! - y[0]!) : Math.hypot(...x.map((v, i) => v - y[i]!));
    };
    let args = normalize(pick(spec.values, progress.p, calcMode, element, lerp, dist));
    if (element.attributes.get('accumulate') === 'sum' && progress.iteration > 0) {
      const last = normalize(spec.values.at(-1)!);
      args = args.map((v, i) => v + last[i]! * progress.iteration * (type === 'scale' ? 0 : 1));
    }
    const f: TransformFunction = { name: type, args };
    if (spec.toOnly) return [f];
    return spec.additive || element.attributes.get('additive') === 'sum' ? [...underlying, f] : [f];
  }

  private motionPath(animation: SmilAnimation): Polylines | undefined {
    if (this.motionPaths.has(animation)) return this.motionPaths.get(animation);
    const element = animation.element;
    let lines: Polylines | undefined;
    const mpath = childNamed(element, 'mpath');
    const href = mpath ? (mpath.attributes.get('href') ?? mpath.attributes.get('xlink:href'))?.trim() : undefined;
    const referenced = href?.startsWith('#') ? this.doc.index.byId.get(href.slice(1)) : undefined;
    if (referenced) lines = outline(referenced);
    else if (element.attributes.has('path')) lines = flattenPath(element.attributes.get('path')!);
    else {
      const spec = valueSpec(element, '0,0');
      if (spec) {
        const points = spec.values.map((v) => numbersIn(v)).map((n) => [n[0] ?? 0, n[1] ?? 0] as [number, number]);
        lines = [points.length === 1 ? [points[0]!, points[0]!] : points];
      }
    }
    this.motionPaths.set(animation, lines);
    return lines;
  }

  private motionMatrix(animation: SmilAnimation, progress: SmilProgress): Matrix | undefined {
    const lines = this.motionPath(animation);
    if (!lines || lines.length === 0) return undefined;
    const element = animation.element;
    const total = polylinesLength(lines);
    let fraction = progress.p;
    const keyPoints = element.attributes.get('keyPoints');
    const keyTimes = element.attributes.get('keyTimes');
    if (keyPoints && keyTimes) {
      const points = keyPoints.split(';').map((v) => parseNumber(v) ?? 0);
      fraction = Number(pick(points.map(String), progress.p, element.attributes.get('calcMode') === 'discrete' ? 'discrete' : 'linear', element, (a, b, q) => String(Number(a) + (Number(b) - Number(a)) * q)));
    } else if (element.attributes.get('calcMode')?.trim() === 'discrete' && !element.attributes.has('path') && !childNamed(element, 'mpath')) {
      const n = lines[0]!.length;
      const index = Math.min(n - 1, Math.floor(progress.p * n));
      const [x, y] = lines[0]![index]!;
      return [1, 0, 0, 1, x, y];
    }
    const { point, angle } = pointAtLength(lines, fraction * total);
    const rotate = element.attributes.get('rotate')?.trim();
    let degrees = 0;
    if (rotate === 'auto') degrees = angle;
    else if (rotate === 'auto-reverse') degrees = angle + 180;
    else if (rotate !== undefined) degrees = parseNumber(rotate) ?? 0;
    const c = Math.cos((degrees * Math.PI) / 180);
    const s = Math.sin((degrees * Math.PI) / 180);
    return [c, s, -s, c, point[0], point[1]];
  }

  /* ---------- writing ---------- */

  private write(element: SvgElement, state: FrameState, options: FrameOptions, out: string[]): void {
    const attributes = new Map(element.attributes);
    const isRoot = element === this.root;
    if (isRoot && options.margin) {
      const m = options.margin;
      const vb = this.viewBox;
      attributes.set('viewBox', [vb.x - vb.width * m, vb.y - vb.height * m, vb.width * (1 + 2 * m), vb.height * (1 + 2 * m)].map(fmt).join(' '));
      attributes.delete('width');
      attributes.delete('height');
      attributes.set('preserveAspectRatio', 'xMidYMid meet');
    }
    // Style: the static cascade, then animated values on top.
    const style = new Map(this.staticStyle.get(element) ?? []);
    for (const [property, value] of style) if (value.includes('var(')) style.set(property, this.resolveVars(element, value));
    for (const [property, value] of state.style.get(element) ?? []) style.set(property, value);
    for (const [name, value] of state.attributes.get(element) ?? []) attributes.set(name, value);
    // Geometry that CSS set goes to attributes, where resvg reads it.
    for (const property of GEOMETRY_PROPERTIES) {
      const value = style.get(property);
      if (value === undefined) continue;
      style.delete(property);
      if (property === 'd') {
        const path = /^path\(\s*(['"])(.*)\1\s*\)$/.exec(value.trim());
        if (path) attributes.set('d', path[2]!);
      } else attributes.set(property, value);
    }
    const matrix = isRoot ? undefined : this.finalTransform(element, state);
    if (matrix) attributes.set('transform', formatMatrix(matrix));
    attributes.delete('transform-origin');
    attributes.delete('transform-box');
    this.applyPathLength(element, style, attributes);
    attributes.delete('style');
    if (style.size > 0) attributes.set('style', [...style].map(([p, v]) => `${p}:${v}`).join(';'));
    out.push('<', element.name);
    for (const [name, value] of attributes) out.push(' ', name, '="', escapeAttribute(value), '"');
    const children = element.children.filter((c) => !isElement(c) || !(SMIL_ELEMENTS.has(c.name) || c.name === 'mpath' || c.name === 'style'));
    if (children.length === 0) {
      out.push('/>');
      return;
    }
    out.push('>');
    for (const child of children) {
      if (isElement(child)) this.write(child, state, options, out);
      else out.push(escapeText(child.text));
    }
    out.push('</', element.name, '>');
  }

  /** Dash lengths are in `pathLength` units; resvg ignores pathLength, so they are scaled here. */
  private applyPathLength(element: SvgElement, style: Map<string, string>, attributes: Map<string, string>): void {
    const pathLength = parseNumber(attributes.get('pathLength'));
    if (pathLength === undefined || pathLength <= 0) return;
    const length = outlineLength({ ...element, attributes });
    if (length <= 0) return;
    const scale = length / pathLength;
    const dash = style.get('stroke-dasharray') ?? this.baseValue(element, 'stroke-dasharray');
    if (dash.trim() !== 'none' && dash.trim() !== '') {
      const numbers = splitTopLevel(dash.replace(/,/g, ' '), ' ').map((v) => lengthPx(v.trim())).filter((v): v is number => v !== undefined);
      if (numbers.length > 0) style.set('stroke-dasharray', numbers.map((n) => fmt(n * scale)).join(' '));
    }
    const offset = lengthPx(style.get('stroke-dashoffset') ?? this.baseValue(element, 'stroke-dashoffset'));
    if (offset !== undefined) style.set('stroke-dashoffset', fmt(offset * scale));
    attributes.delete('pathLength');
  }
}

interface Track {
  offset: number;
  value: string;
  easing?: Easing;
}

interface FrameState {
  style: Map<SvgElement, Map<string, string>>;
  attributes: Map<SvgElement, Map<string, string>>;
  cssTransform: Map<SvgElement, TransformFunction[]>;
  smilTransform: Map<SvgElement, TransformFunction[]>;
  motion: Map<SvgElement, Matrix>;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The static SVG of `svg` at `ms` (one-off; use FrameEvaluator for many frames). */
export function frameAt(svg: string, ms: number, options: FrameOptions = {}): string {
  return new FrameEvaluator(svg).frameAt(ms, options);
}
