// The animations of a document and when they run: CSS animations (from the cascade of its style
// sheets and `style` attributes) and SMIL animation elements (with their begin/end instance times
// resolved, syncbase chains included). Shared by the timing measurement and the frame evaluator.
import { SMIL_ELEMENTS, type SmilElementName } from '../allowlist.ts';
import { TreeIndex } from '../css/matching.ts';
import type { KeyframesRule } from '../css/sheet.ts';
import { splitTopLevel } from '../css/text.ts';
import type { SvgElement } from '../tree.ts';
import { isElement } from '../tree.ts';
import { cascade, documentStyles, type Cascaded, type DocumentStyles } from './cascade.ts';
import { clockMs, cssTimeMs, parseNumber, tidy } from './numbers.ts';

export type Direction = 'normal' | 'reverse' | 'alternate' | 'alternate-reverse';
export type FillMode = 'none' | 'forwards' | 'backwards' | 'both';

export interface CssAnimation {
  kind: 'css';
  element: SvgElement;
  name: string;
  keyframes: KeyframesRule;
  /** Properties its keyframes set. */
  properties: Set<string>;
  durationMs: number;
  delayMs: number;
  /** Infinity for `infinite`. */
  iterations: number;
  direction: Direction;
  fill: FillMode;
  easing: string;
  paused: boolean;
  /** Position in the element's animation-name list: later ones win. */
  order: number;
}

export interface Interval {
  beginMs: number;
  /** Infinity when the active duration is indefinite. */
  endMs: number;
}

export interface SmilAnimation {
  kind: 'smil';
  element: SvgElement;
  tag: SmilElementName;
  target: SvgElement;
  /** The animated attribute (`transform` for animateTransform, `motion` for animateMotion). */
  attribute: string;
  /** Simple duration; undefined when indefinite. */
  durMs: number | undefined;
  /** Resolved intervals in time order (within the simulated horizon). */
  intervals: Interval[];
  /** The intervals keep coming beyond the simulated horizon (a syncbase chain that loops). */
  recurring: boolean;
  fill: 'freeze' | 'remove';
  /** Document order, for the sandwich of animations of one attribute. */
  order: number;
}

export interface DocumentAnimations {
  index: TreeIndex;
  styles: DocumentStyles;
  cascaded: Map<SvgElement, Cascaded>;
  css: CssAnimation[];
  smil: SmilAnimation[];
}

/** Properties whose change is not a visible animation of the drawing. */
const NOT_ANIMATABLE = /^(animation|transition)/;

/** Reads every animation of a parsed (sanitized) document. */
export function documentAnimations(root: SvgElement): DocumentAnimations {
  const index = new TreeIndex(root);
  const styles = documentStyles(index);
  const cascaded = cascade(index, styles);
  return { index, styles, cascaded, css: cssAnimations(cascaded, styles), smil: smilAnimations(index) };
}

/* ---------- CSS ---------- */

function listOf(values: Cascaded, property: string, fallback: string): string[] {
  const value = values.get(property);
  return splitTopLevel(value ?? fallback, ',').map((v) => v.trim());
}

function cssAnimations(cascaded: Map<SvgElement, Cascaded>, styles: DocumentStyles): CssAnimation[] {
  const out: CssAnimation[] = [];
  for (const [element, values] of cascaded) {
    const names = values.get('animation-name');
    if (names === undefined) continue;
    const nameList = listOf(values, 'animation-name', 'none');
    const at = <T>(list: T[], i: number) => list[i % list.length]!;
    const durations = listOf(values, 'animation-duration', '0s');
    const delays = listOf(values, 'animation-delay', '0s');
    const counts = listOf(values, 'animation-iteration-count', '1');
    const directions = listOf(values, 'animation-direction', 'normal');
    const fills = listOf(values, 'animation-fill-mode', 'none');
    const easings = listOf(values, 'animation-timing-function', 'ease');
    const states = listOf(values, 'animation-play-state', 'running');
    const timelines = listOf(values, 'animation-timeline', 'auto');
    nameList.forEach((raw, i) => {
      const name = raw.replace(/^(['"])(.*)\1$/, '$2');
      if (name === '' || name.toLowerCase() === 'none') return;
      const keyframes = styles.keyframes.get(name);
      if (!keyframes) return;
      // Scroll- and view-driven animations do not run on time.
      if (at(timelines, i).toLowerCase() !== 'auto') return;
      const properties = new Set<string>();
      for (const frame of keyframes.frames) for (const d of frame.declarations) if (!NOT_ANIMATABLE.test(d.property)) properties.add(d.property);
      const duration = cssTimeMs(at(durations, i)) ?? 0;
      const countText = at(counts, i).toLowerCase();
      const count = countText === 'infinite' ? Infinity : parseNumber(countText) ?? 1;
      const direction = at(directions, i).toLowerCase();
      const fill = at(fills, i).toLowerCase();
      out.push({
        kind: 'css',
        element,
        name,
        keyframes,
        properties,
        durationMs: Math.max(0, duration),
        delayMs: cssTimeMs(at(delays, i)) ?? 0,
        iterations: Math.max(0, count),
        direction: (['normal', 'reverse', 'alternate', 'alternate-reverse'].includes(direction) ? direction : 'normal') as Direction,
        fill: (['none', 'forwards', 'backwards', 'both'].includes(fill) ? fill : 'none') as FillMode,
        easing: at(easings, i),
        paused: at(states, i).toLowerCase() === 'paused',
        order: i,
      });
    });
  }
  return out;
}

/* ---------- SMIL ---------- */

/** A begin or end value: an offset, or a time relative to another element's interval. */
type TimeSpec =
  | { kind: 'offset'; ms: number }
  | { kind: 'sync'; id: string; edge: 'begin' | 'end'; ms: number }
  | { kind: 'repeat'; id: string; iteration: number; ms: number };

const SYNC = /^([A-Za-z_][\w.-]*?)\.(begin|end)\s*(?:([+-])\s*(.+))?$/;
const REPEAT = /^([A-Za-z_][\w.-]*?)\.repeat\((\d+)\)\s*(?:([+-])\s*(.+))?$/;

/**
 * A begin/end list. Offsets and syncbase values (`a.end+1s`, `a.repeat(2)`) are read; `indefinite`,
 * events (`click`, `a.mouseover`), access keys and wallclock times never happen in a picture shown
 * as an image, so they add no instance time.
 */
function timeSpecs(value: string | undefined, fallback: TimeSpec[]): TimeSpec[] {
  if (value === undefined) return fallback;
  const specs: TimeSpec[] = [];
  for (const part of value.split(';')) {
    const v = part.trim();
    if (v === '' || v === 'indefinite') continue;
    const signed = /^([+-])?\s*(.+)$/.exec(v)!;
    const offset = clockMs(signed[2]!);
    if (offset !== undefined) {
      specs.push({ kind: 'offset', ms: signed[1] === '-' ? -offset : offset });
      continue;
    }
    const offsetOf = (sign: string | undefined, text: string | undefined) => {
      if (text === undefined) return 0;
      const ms = clockMs(text);
      return ms === undefined ? undefined : sign === '-' ? -ms : ms;
    };
    const sync = SYNC.exec(v);
    if (sync) {
      const ms = offsetOf(sync[3], sync[4]);
      if (ms !== undefined) specs.push({ kind: 'sync', id: sync[1]!, edge: sync[2] as 'begin' | 'end', ms });
      continue;
    }
    const repeat = REPEAT.exec(v);
    if (repeat) {
      const ms = offsetOf(repeat[3], repeat[4]);
      if (ms !== undefined) specs.push({ kind: 'repeat', id: repeat[1]!, iteration: Number(repeat[2]), ms });
    }
  }
  return specs;
}

interface Timed {
  animation: SmilAnimation;
  begins: TimeSpec[];
  ends: TimeSpec[];
  /** Active duration from the timing attributes alone (before `end`): Infinity when indefinite. */
  iadMs: number;
  minMs: number;
  maxMs: number;
  restart: 'always' | 'whenNotActive' | 'never';
  /** Instance times waiting to be used, ascending. */
  pending: number[];
  /** End instance times known so far. */
  endTimes: number[];
  current?: Interval;
}

/** Times simulated: ten minutes, or this many interval starts, whichever comes first. */
const HORIZON_MS = 600_000;
const MAX_STARTS = 20_000;

function activeDuration(element: SvgElement, durMs: number | undefined): number {
  const repeatCount = element.attributes.get('repeatCount')?.trim();
  const repeatDur = element.attributes.get('repeatDur')?.trim();
  const d = durMs ?? Infinity;
  const count = repeatCount === undefined ? undefined : repeatCount === 'indefinite' ? Infinity : parseNumber(repeatCount);
  const rd = repeatDur === undefined ? undefined : repeatDur === 'indefinite' ? Infinity : clockMs(repeatDur);
  const validCount = count !== undefined && count > 0 ? count : undefined;
  const validDur = rd !== undefined && rd > 0 ? rd : undefined;
  if (validCount === undefined && validDur === undefined) return d;
  const p1 = validCount === undefined ? Infinity : d === Infinity ? Infinity : d * validCount;
  const p2 = validDur ?? Infinity;
  if (validCount !== undefined && validDur !== undefined) return Math.min(p1, p2);
  return validCount !== undefined ? p1 : p2;
}

function smilAnimations(index: TreeIndex): SmilAnimation[] {
  const timed: Timed[] = [];
  const byId = new Map<string, Timed>();
  let order = 0;
  for (const element of index.elements) {
    if (!SMIL_ELEMENTS.has(element.name)) continue;
    const href = (element.attributes.get('href') ?? element.attributes.get('xlink:href'))?.trim();
    const target = href ? (href.startsWith('#') ? index.byId.get(href.slice(1)) : undefined) : index.parent.get(element);
    if (!target) continue;
    const tag = element.name as SmilElementName;
    const attribute = tag === 'animateTransform' ? 'transform' : tag === 'animateMotion' ? 'motion' : element.attributes.get('attributeName')?.trim();
    if (!attribute) continue;
    const durText = element.attributes.get('dur')?.trim();
    const dur = durText === undefined || durText === 'indefinite' ? undefined : clockMs(durText);
    const durMs = dur !== undefined && dur > 0 ? dur : undefined;
    let iadMs = activeDuration(element, durMs);
    const ends = timeSpecs(element.attributes.get('end'), []);
    const hasEnd = element.attributes.has('end');
    // Without dur, repeatCount or repeatDur, an end makes the simple duration indefinite (AD from end).
    if (durMs === undefined && !element.attributes.has('repeatCount') && !element.attributes.has('repeatDur') && hasEnd) iadMs = Infinity;
    const min = clockMs(element.attributes.get('min') ?? '') ?? 0;
    const maxText = element.attributes.get('max');
    const max = maxText === undefined || maxText.trim() === 'indefinite' ? Infinity : clockMs(maxText) ?? Infinity;
    const restart = element.attributes.get('restart')?.trim();
    const animation: SmilAnimation = {
      kind: 'smil',
      element,
      tag,
      target,
      attribute,
      durMs,
      intervals: [],
      recurring: false,
      fill: element.attributes.get('fill')?.trim() === 'freeze' ? 'freeze' : 'remove',
      order: order++,
    };
    const t: Timed = {
      animation,
      begins: timeSpecs(element.attributes.get('begin'), [{ kind: 'offset', ms: 0 }]),
      ends,
      iadMs,
      minMs: min,
      maxMs: max >= min ? max : Infinity,
      restart: restart === 'never' || restart === 'whenNotActive' ? restart : 'always',
      pending: [],
      endTimes: [],
    };
    timed.push(t);
    const id = element.attributes.get('id');
    if (id !== undefined && !byId.has(id)) byId.set(id, t);
  }
  simulate(timed, byId);
  return timed.map((t) => t.animation);
}

/**
 * Runs the timing model forward: offsets are instance times from the start; each interval that
 * begins or ends adds instance times to the elements that name it (`a.begin`, `a.end`,
 * `a.repeat(n)`, plus offsets), in time order, until ten minutes or MAX_STARTS interval starts.
 * An element that still has instance times waiting then is `recurring` (its chain loops).
 */
function simulate(timed: Timed[], byId: Map<string, Timed>): void {
  const dependents = dependentsOf(timed, byId);
  // Interval ends announced in time order alongside begins.
  const ends: { t: Timed; interval: Interval }[] = [];
  let starts = 0;
  for (;;) {
    // The earliest waiting begin across elements, or the earliest interval end to announce.
    let next: Timed | undefined;
    for (const t of timed) if (t.pending.length > 0 && (!next || t.pending[0]! < next.pending[0]!)) next = t;
    let endIndex = -1;
    for (let k = 0; k < ends.length; k++) if (endIndex < 0 || ends[k]!.interval.endMs < ends[endIndex]!.interval.endMs) endIndex = k;
    const beginAt = next ? next.pending[0]! : Infinity;
    const endAt = endIndex >= 0 ? ends[endIndex]!.interval.endMs : Infinity;
    if (beginAt === Infinity && endAt === Infinity) break;
    if (Math.min(beginAt, endAt) > HORIZON_MS || starts >= MAX_STARTS) {
      // Still starting intervals in the second half of the simulated time: its chain loops.
      const stopAt = Math.min(beginAt, endAt, HORIZON_MS);
      for (const t of timed) {
        const last = t.animation.intervals.at(-1);
        t.animation.recurring = t.animation.intervals.length >= 2 && last !== undefined && last.beginMs >= stopAt / 2;
      }
      break;
    }
    if (endAt <= beginAt) {
      const { t, interval } = ends.splice(endIndex, 1)[0]!;
      if (t.current === interval) t.current = undefined;
      announce(dependents, t, 'end', interval.endMs, interval);
      continue;
    }
    const t = next!;
    const begin = t.pending.shift()!;
    const active = t.current && begin < t.current.endMs ? t.current : undefined;
    if (t.restart === 'never' && t.animation.intervals.length > 0) continue;
    if (active && t.restart === 'whenNotActive') continue;
    if (active) {
      // restart="always": the running interval ends now.
      active.endMs = begin;
      const k = ends.findIndex((e) => e.interval === active);
      if (k >= 0) ends.splice(k, 1);
      t.current = undefined;
      announce(dependents, t, 'end', begin, active);
    }
    const endInstance = t.endTimes.find((e) => e > begin || (e === begin && t.iadMs === 0));
    let duration = Math.min(t.iadMs, endInstance === undefined ? Infinity : endInstance - begin);
    // An end list that names only past times ends nothing new; one with times still to come bounds it.
    duration = Math.min(Math.max(duration, t.minMs), t.maxMs);
    const interval: Interval = { beginMs: begin, endMs: tidy(begin + duration) };
    t.animation.intervals.push(interval);
    t.current = interval;
    starts++;
    announce(dependents, t, 'begin', begin, interval);
    if (interval.endMs !== Infinity) ends.push({ t, interval });
  }
}

type Dependents = Map<Timed, { t: Timed; spec: TimeSpec; role: 'begin' | 'end' }[]>;

/** Offsets become instance times now; syncbase values wait on the element they name. */
function dependentsOf(timed: Timed[], byId: Map<string, Timed>): Dependents {
  const dependents: Dependents = new Map();
  for (const t of timed) {
    for (const [role, list] of [['begin', t.begins], ['end', t.ends]] as const) {
      for (const spec of list) {
        if (spec.kind === 'offset') {
          if (role === 'begin') t.pending.push(spec.ms);
          else t.endTimes.push(spec.ms);
          continue;
        }
        const source = byId.get(spec.id);
        if (!source) continue;
        const waiting = dependents.get(source) ?? [];
        waiting.push({ t, spec, role });
        dependents.set(source, waiting);
      }
    }
    t.pending.sort((a, b) => a - b);
    t.endTimes.sort((a, b) => a - b);
  }
  return dependents;
}

/** An interval of `source` began or ended at `time`: the elements that name that edge get an instance time. */
function announce(dependents: Dependents, source: Timed, edge: 'begin' | 'end', time: number, interval: Interval): void {
  for (const { t, spec, role } of dependents.get(source) ?? []) {
    let at: number | undefined;
    if (spec.kind === 'sync' && spec.edge === edge) at = time + spec.ms;
    else if (spec.kind === 'repeat' && edge === 'begin' && source.animation.durMs !== undefined) {
      const repeatAt = interval.beginMs + spec.iteration * source.animation.durMs;
      if (repeatAt < interval.endMs) at = repeatAt + spec.ms;
    }
    if (at === undefined) continue;
    at = tidy(at);
    const list = role === 'begin' ? t.pending : t.endTimes;
    let k = list.length;
    while (k > 0 && list[k - 1]! > at) k--;
    list.splice(k, 0, at);
  }
}

/** The first element child of a kind (e.g. an animateMotion's `<mpath>`). */
export function childNamed(element: SvgElement, name: string): SvgElement | undefined {
  return element.children.find((c): c is SvgElement => isElement(c) && c.name === name);
}
