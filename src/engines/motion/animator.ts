// The animator: a drawing and a prompt in, an animated drawing out. The prompt (or, without
// motion words, the drawing itself) chooses the motions; openings play group after group, then
// every loop starts together and repeats with one common period; each moving motion is made as
// large as the viewBox allows; everything is written as CSS keyframes in one style sheet.

import type { SvgElement } from '../../svg/tree.ts';
import { chooseMotions, describeDrawing, type DrawingKind } from './choose.ts';
import { FIT_TOLERANCE, fitAmplitude, overshoot } from './fit.ts';
import { boxCenter, type Point } from './geometry.ts';
import { MOTIONS, type Host, type LoopTiming, type MotionModule, type MotionName, type MotionOptions, type PlanInput } from './motions/index.ts';
import { writeAnimated } from './output.ts';
import { parsePrompt, type ParsedPrompt, type PromptStep, type TargetKind } from './prompt.ts';
import { nodeBox, partsOf, readScene, type Scene } from './scene.ts';
import { trackEnd } from './timeline.ts';
import { findWheels, topNodes, type Wheel } from './wheels.ts';

/** The source draws nothing the animator could move. */
export class NothingToAnimateError extends Error {
  override name = 'NothingToAnimateError';
}

export interface PlacedMotion {
  motion: MotionName;
  /** The motion asked for, when this one replaced it (it could not fit, or had nothing to act on). */
  insteadOf?: MotionName;
  targets: number;
  startMs: number;
  /** Openings: when the last of its animations ends. Loops: null. */
  endMs: number | null;
  /** The share of the full movement that fits the viewBox (1 for motions that do not move). */
  amplitude: number;
  variant: number;
  periodMs?: number;
}

export interface Animation {
  svg: string;
  /** One cycle of the loops (they share it), or null without loops. */
  loopPeriodMs: number | null;
  /** When the last opening animation ends, or null without openings. */
  openingAnimationMs: number | null;
  motions: PlacedMotion[];
  /** Whether the prompt chose the motions, or the drawing did. */
  chosenBy: 'prompt' | 'drawing';
  /** Prompt words that neither name a motion nor a part of this drawing. */
  ignoredWords: string[];
  drawing: DrawingKind;
}

interface Resolved {
  step: PromptStep;
  targets: SvgElement[];
}

/** When the last finite animation of the hosts ends, or `floor` when none ends later. */
function latestEnd(hosts: Host[], floor: number): number {
  let end = floor;
  for (const host of hosts) {
    for (const track of host.tracks) {
      const t = trackEnd(track);
      if (Number.isFinite(t) && t > end) end = t;
    }
  }
  return end;
}

/** Loop cycles are whole multiples of this. */
const PERIOD_GRAIN_MS = 100;

function resolveTargets(scene: Scene, step: PromptStep, wheels: () => Wheel[], usedWords: Set<string>): SvgElement[] {
  const named = new Set<SvgElement>();
  for (const word of step.words) {
    const found = scene.names.get(word);
    if (!found) continue;
    usedWords.add(word);
    for (const el of found) named.add(el);
  }
  if (named.size > 0) {
    // Keep the outermost of nested matches.
    const targets = [...named].filter((el) => !hasAncestorIn(scene, el, named));
    if (step.motion === 'stagger') return targets.length === 1 ? partsOf(scene, 24, targets[0]) : targets;
    return targets;
  }
  const kind: TargetKind | undefined = step.kind;
  switch (kind) {
    case 'lines': {
      const lines = scene.leaves.filter((leaf) => leaf.style.stroke.kind !== 'none' && leaf.style.strokeWidth > 0);
      if (lines.length > 0) return step.motion === 'draw' ? lines.map((l) => l.element) : topNodes(scene, lines);
      break;
    }
    case 'text': {
      const text = scene.leaves.filter((leaf) => leaf.element.name === 'text');
      if (text.length > 0) return step.motion === 'stagger' ? text.map((l) => l.element) : topNodes(scene, text);
      break;
    }
    case 'parts':
      return partsOf(scene);
    case 'wheels': {
      const found = wheels();
      if (found.length > 0) return found.flatMap((w) => w.nodes);
      break;
    }
    case 'whole':
      return step.motion === 'stagger' ? partsOf(scene) : [scene.stage];
  }
  if (step.motion === 'stagger') return partsOf(scene);
  if (step.motion === 'spin' && kind === undefined) {
    const found = wheels();
    if (found.length > 0) return found.flatMap((w) => w.nodes);
  }
  return [scene.stage];
}

function hasAncestorIn(scene: Scene, el: SvgElement, set: Set<SvgElement>): boolean {
  for (let node = scene.parentOf.get(el); node; node = scene.parentOf.get(node)) if (set.has(node)) return true;
  return false;
}

/**
 * In a group that says both "one by one" and how each part enters ("pop in one by one"), the
 * entrance is made per part: the stagger takes the pop, fade or slide over.
 */
function mergeStagger(steps: Resolved[]): Resolved[] {
  const out: Resolved[] = [];
  const groups = [...new Set(steps.map((s) => s.step.group))];
  for (const group of groups) {
    const inGroup = steps.filter((s) => s.step.group === group);
    const stagger = inGroup.find((s) => s.step.motion === 'stagger');
    const entrance = stagger ? inGroup.find((s) => ['pop', 'fade', 'slide'].includes(s.step.motion)) : undefined;
    for (const s of inGroup) {
      if (s === entrance) continue;
      if (s === stagger && entrance) {
        const options: MotionOptions = { ...entrance.step.options, ...s.step.options, entrance: entrance.step.motion as 'pop' | 'fade' | 'slide' };
        out.push({ step: { ...s.step, options }, targets: s.targets });
      } else out.push(s);
    }
  }
  return out;
}

/** Reads, chooses, fits and writes: the animated document and its timing. */
export function animate(markup: string, prompt?: string): Animation {
  const scene = readScene(markup);
  if (scene.leaves.length === 0) throw new NothingToAnimateError('The SVG draws nothing to animate.');
  const parsed = parsePrompt(prompt);
  const chosen = chooseSteps(scene, parsed);
  const placement = new Placement(scene, parsed.speed, pivotFinder(scene, chosen.wheels));
  const openingEnd = placeOpenings(placement, chosen.resolved);
  const loopPeriodMs = placeLoops(placement, chosen.resolved, openingEnd);
  if (placement.placed.length === 0) placeFallbackFade(placement);

  const openingEnds = latestEnd(placement.placed, -1);
  const openingAnimationMs = openingEnds >= 0 ? openingEnds : null;
  return {
    svg: writeAnimated(scene, placement.placed, markup),
    loopPeriodMs,
    openingAnimationMs,
    motions: placement.motions,
    chosenBy: chosen.chosenBy,
    ignoredWords: chosen.ignoredWords,
    drawing: chosen.drawing,
  };
}

interface ChosenSteps {
  chosenBy: 'prompt' | 'drawing';
  drawing: DrawingKind;
  /** The steps in prompt (or chosen) order, each with the nodes it acts on; steps with none are dropped. */
  resolved: Resolved[];
  ignoredWords: string[];
  /** The wheels, when choosing or resolving needed them (they are looked for only then). */
  wheels: Wheel[] | undefined;
}

/**
 * The motions to place and what each acts on: the prompt's steps, or the drawing's choice when
 * the prompt names no motion. Wheels are looked for only when the drawing chooses or a step asks
 * for them (so the drawing is described without them otherwise); the calls keep this order
 * because finding parts (partsOf) may regroup the scene.
 */
function chooseSteps(scene: Scene, parsed: ParsedPrompt): ChosenSteps {
  let wheelCache: Wheel[] | undefined;
  const wheels = () => (wheelCache ??= findWheels(scene));
  const chosenBy = parsed.steps.length > 0 ? 'prompt' : 'drawing';
  if (chosenBy === 'drawing') wheels();
  const drawing = describeDrawing(scene, wheelCache ?? []);
  const steps = parsed.steps.length > 0 ? parsed.steps : chooseMotions(scene, wheels(), parsed.negated);
  const usedWords = new Set<string>();
  const resolved = mergeStagger(
    steps.map((step) => ({ step, targets: resolveTargets(scene, step, wheels, usedWords) })).filter((r) => r.targets.length > 0),
  );
  const ignoredWords = [...new Set(parsed.otherWords)].filter((w) => !usedWords.has(w) && !usedWords.has(w.replace(/s$/, '')));
  return { chosenBy, drawing, resolved, ignoredWords, wheels: wheelCache };
}

/** The point a node turns and scales about: its wheel's centre, else the centre of what it paints, else of the viewBox. */
function pivotFinder(scene: Scene, wheels: Wheel[] | undefined): (node: SvgElement) => Point {
  const centres = new Map<SvgElement, Point>();
  if (wheels) for (const wheel of wheels) for (const node of wheel.nodes) centres.set(node, wheel.centre);
  const vb = scene.viewBox;
  return (node: SvgElement): Point => {
    const centre = centres.get(node);
    if (centre) return centre;
    const box = nodeBox(scene, node);
    return box ? boxCenter(box) : { x: vb.minX + vb.width / 2, y: vb.minY + vb.height / 2 };
  };
}

type BaseInput = Omit<PlanInput, 'amplitude' | 'variant' | 'periodMs'>;

interface Fitted {
  module: MotionModule;
  hosts: Host[];
  amplitude: number;
  variant: number;
}

/** What is placed so far (the hosts, and the motions they make); fits each new motion beside it. */
class Placement {
  readonly placed: Host[] = [];
  readonly motions: PlacedMotion[] = [];

  constructor(
    readonly scene: Scene,
    private readonly speed: number,
    private readonly pivotOf: (node: SvgElement) => Point,
  ) {}

  /** A motion's plan input before its amplitude, variant and period are chosen. */
  input(targets: SvgElement[], startMs: number, options: MotionOptions): BaseInput {
    const { scene, speed, pivotOf } = this;
    return { scene, targets, startMs, speed, options, pivotOf };
  }

  /** The motion's hosts at its best fitting variant and amplitude, or its fallback's; undefined when nothing fits. */
  fit(module: MotionModule, targets: SvgElement[], startMs: number, options: MotionOptions, periodMs: number | undefined, depth = 0): Fitted | undefined {
    const input = this.input(targets, startMs, options);
    const best = this.bestVariant(module, input, periodMs);
    const good = best && best.hosts.length > 0 && (best.amplitude >= module.minimumAmplitude || !module.fallback) && (best.amplitude > 0 || !module.moves);
    if (good) return { module, ...best! };
    if (module.fallback && depth < 3) {
      const fallback = MOTIONS[module.fallback];
      const period = fallback.kind === 'loop' && periodMs !== undefined ? Math.max(periodMs, fallback.period!(input).minimumMs) : periodMs;
      return this.fit(fallback, targets, startMs, options, period, depth + 1);
    }
    return best && best.hosts.length > 0 && best.amplitude > 0 ? { module, ...best } : undefined;
  }

  /** Variants in order: the first that fits at the motion's minimum amplitude, else the one that fits largest. */
  private bestVariant(module: MotionModule, input: BaseInput, periodMs: number | undefined): Omit<Fitted, 'module'> | undefined {
    const { startMs } = input;
    const build = (amplitude: number, variant: number) => module.plan({ ...input, amplitude, variant, periodMs } satisfies PlanInput);
    const windowOf = (hosts: Host[]) => {
      const end = latestEnd(hosts, startMs);
      return { fromMs: startMs, toMs: module.kind === 'loop' ? startMs + (periodMs ?? 0) : end };
    };
    let best: Omit<Fitted, 'module'> | undefined;
    const variants = module.variants(input);
    for (let variant = 0; variant < variants; variant++) {
      const full = build(1, variant);
      if (full.length === 0) break;
      let amplitude = 1;
      if (module.moves) {
        const window = windowOf(full);
        if (module.scalable) amplitude = fitAmplitude(this.scene, this.placed, (a) => build(a, variant), window);
        else amplitude = this.wholeOrNothing(full, window);
      }
      if (!best || amplitude > best.amplitude) best = { hosts: build(amplitude, variant), amplitude, variant };
      if (amplitude >= module.minimumAmplitude) break;
    }
    return best;
  }

  /** For a motion that cannot be made smaller: 1 when its full movement stays in bounds beside what is placed, else 0. */
  wholeOrNothing(full: Host[], window: { fromMs: number; toMs: number }): number {
    const vb = this.scene.viewBox;
    return overshoot(this.scene, [...this.placed, ...full], window.fromMs, window.toMs) <= FIT_TOLERANCE * Math.min(vb.width, vb.height) ? 1 : 0;
  }
}

/** Openings, group after group: a group starts when the one before has ended. Returns when the last ends. */
function placeOpenings(placement: Placement, resolved: Resolved[]): number {
  let cursor = 0;
  const groups = [...new Set(resolved.map((r) => r.step.group))].sort((a, b) => a - b);
  for (const group of groups) {
    let groupEnd = cursor;
    for (const { step, targets } of resolved.filter((r) => r.step.group === group && MOTIONS[r.step.motion].kind === 'opening')) {
      const fitted = placement.fit(MOTIONS[step.motion], targets, cursor, step.options, undefined);
      if (!fitted) continue;
      placement.placed.push(...fitted.hosts);
      const end = latestEnd(fitted.hosts, cursor);
      groupEnd = Math.max(groupEnd, end);
      placement.motions.push({
        motion: fitted.module.name,
        ...(fitted.module.name !== step.motion ? { insteadOf: step.motion } : {}),
        targets: targets.length,
        startMs: cursor,
        endMs: end,
        amplitude: fitted.amplitude,
        variant: fitted.variant,
      });
    }
    cursor = groupEnd;
  }
  return cursor;
}

interface ProvisionalLoop {
  step: PromptStep;
  targets: SvgElement[];
  module: MotionModule;
  variant: number;
}

/**
 * Loops: all start when the openings end. First choose each loop's motion (fallbacks included)
 * at its own preferred pace, then give them one common period and fit them again in it.
 * Returns the common period, or null when no loop could be placed.
 */
function placeLoops(placement: Placement, resolved: Resolved[], openingEnd: number): number | null {
  const provisional = chooseLoopMotions(placement, resolved, openingEnd);
  if (provisional.length === 0) return null;
  const timings = provisional.map(({ module, targets, step }) => module.period!(placement.input(targets, openingEnd, step.options)));
  const period = Math.ceil(Math.max(...timings.map((t) => Math.max(t.preferredMs, t.minimumMs))) / PERIOD_GRAIN_MS) * PERIOD_GRAIN_MS;
  provisional.forEach((loop, i) => placeLoop(placement, loop, timings[i]!, period, openingEnd));
  return placement.motions.some((m) => m.endMs === null) ? period : null;
}

/** Each loop's motion and variant, fitted at its own preferred pace (the trial hosts are taken back out). */
function chooseLoopMotions(placement: Placement, resolved: Resolved[], openingEnd: number): ProvisionalLoop[] {
  const { placed } = placement;
  const provisional: ProvisionalLoop[] = [];
  const trial: Host[] = [];
  for (const { step, targets } of resolved.filter((r) => MOTIONS[r.step.motion].kind === 'loop')) {
    const module = MOTIONS[step.motion];
    const timing = module.period!(placement.input(targets, openingEnd, step.options));
    const fitted = placement.fit(module, targets, openingEnd, step.options, Math.max(timing.preferredMs, timing.minimumMs));
    if (!fitted) continue;
    placed.push(...fitted.hosts);
    trial.push(...fitted.hosts);
    provisional.push({ step, targets, module: fitted.module, variant: fitted.variant });
  }
  for (const host of trial) placed.splice(placed.indexOf(host), 1);
  return provisional;
}

/** Fits one loop again at its cycle within the common period and places it (unless it no longer fits at all). */
function placeLoop(placement: Placement, { step, targets, module, variant }: ProvisionalLoop, timing: LoopTiming, period: number, openingEnd: number): void {
  const cycle = cycleWithin(period, timing);
  const input = placement.input(targets, openingEnd, step.options);
  const build = (amplitude: number) => module.plan({ ...input, amplitude, variant, periodMs: cycle });
  let amplitude = 1;
  if (module.moves) {
    const window = { fromMs: openingEnd, toMs: openingEnd + period };
    amplitude = module.scalable ? fitAmplitude(placement.scene, placement.placed, build, window) : placement.wholeOrNothing(build(1), window);
  }
  if (module.moves && amplitude <= 0) return;
  const hosts = build(amplitude);
  placement.placed.push(...hosts);
  placement.motions.push({
    motion: module.name,
    ...(module.name !== step.motion ? { insteadOf: step.motion } : {}),
    targets: targets.length,
    startMs: openingEnd,
    endMs: null,
    amplitude,
    variant,
    periodMs: cycle,
  });
}

/** The cycle that divides the common period, no shorter than safe, nearest the preferred one. */
function cycleWithin(period: number, timing: LoopTiming): number {
  let cycle = period;
  for (let n = 1; n <= 64; n++) {
    if (period % n !== 0) continue;
    const candidate = period / n;
    if (candidate < timing.minimumMs) break;
    if (Math.abs(candidate - timing.preferredMs) < Math.abs(cycle - timing.preferredMs)) cycle = candidate;
  }
  return cycle;
}

/** Nothing could be placed (every motion was ruled out or had nothing to act on): the whole drawing fades in. */
function placeFallbackFade(placement: Placement): void {
  const hosts = MOTIONS.fade.plan({ ...placement.input([placement.scene.stage], 0, {}), amplitude: 1, variant: 0 });
  placement.placed.push(...hosts);
  placement.motions.push({ motion: 'fade', targets: 1, startMs: 0, endMs: latestEnd(hosts, 0), amplitude: 1, variant: 0 });
}
