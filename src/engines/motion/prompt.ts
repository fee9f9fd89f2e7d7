// Reading a prompt such as "draw the outline, then pulse the heart": which motions, in which
// order, on what. Words are looked up in tables (every inflection written out, no stemming
// guesses); what is not in a table is either the name of a part of the drawing (matched later
// against ids, classes and titles) or ignored. One pass over the words.

import { singular } from './scene.ts';
import { MOTIONS, MOTION_NAMES, type Direction, type MotionName, type MotionOptions } from './motions/index.ts';

/** What a motion applies to when the prompt names no part of the drawing that exists. */
export type TargetKind = 'whole' | 'lines' | 'parts' | 'text' | 'wheels';

export interface PromptStep {
  motion: MotionName;
  /** Steps of one group start together; a group starts when the previous one's openings end. */
  group: number;
  /** Words that may name parts of the drawing (singular), in prompt order. */
  words: string[];
  /** A kind of target the clause names (`the outline`, `the wheels`, `everything`). */
  kind?: TargetKind;
  options: MotionOptions;
}

export interface ParsedPrompt {
  steps: PromptStep[];
  /** Motions the prompt rules out ("don't spin"). */
  negated: MotionName[];
  /** Duration factor: 1.5 for slow, 0.7 for fast (2 and 0.5 with very). */
  speed: number;
  /** Words that are neither motion vocabulary nor filler: part names, or ignored. */
  otherWords: string[];
}

/** The most motions one prompt may ask for; words beyond are ignored. */
export const MAX_STEPS = 16;

/** Multi-word phrases, read before single words. */
const PHRASES: { words: string[]; motion: MotionName }[] = [
  { words: ['one', 'by', 'one'], motion: 'stagger' },
  { words: ['piece', 'by', 'piece'], motion: 'stagger' },
  { words: ['part', 'by', 'part'], motion: 'stagger' },
  { words: ['bit', 'by', 'bit'], motion: 'stagger' },
  { words: ['one', 'after', 'another'], motion: 'stagger' },
  { words: ['one', 'after', 'the', 'other'], motion: 'stagger' },
  { words: ['in', 'turn'], motion: 'stagger' },
  { words: ['in', 'sequence'], motion: 'stagger' },
  { words: ['heart', 'beat'], motion: 'pulse' },
  { words: ['fly', 'in'], motion: 'slide' },
  { words: ['flies', 'in'], motion: 'slide' },
  { words: ['come', 'in'], motion: 'fade' },
  { words: ['comes', 'in'], motion: 'fade' },
];

/** Every word of every motion module. */
export const MOTION_WORDS: ReadonlyMap<string, MotionName> = new Map(MOTION_NAMES.flatMap((name) => MOTIONS[name].words.map((word) => [word, name] as const)));

const THEN = new Set(['then', 'after', 'afterwards', 'afterward', 'next', 'finally', 'later', 'followed', 'subsequently', 'once']);
const AND = new Set(['and', 'while', 'with', 'plus', 'also', 'as', 'meanwhile', 'together', 'simultaneously']);
const NEGATIONS = new Set(['no', 'not', 'dont', 'don', 'doesnt', 'never', 'without', 'stop', 'avoid', 'nor']);
const SLOW = new Set(['slow', 'slowly', 'slower', 'gentle', 'gently', 'calm', 'calmly', 'lazy', 'lazily', 'leisurely', 'soft', 'softly', 'subtle', 'subtly']);
const FAST = new Set(['fast', 'faster', 'quick', 'quickly', 'rapid', 'rapidly', 'snappy', 'brisk', 'briskly', 'speedy', 'swift', 'swiftly']);
const VERY = new Set(['very', 'really', 'super', 'extra', 'extremely']);
// Maps, not objects: a prompt word such as 'constructor' must not find Object.prototype.
const TRAVEL: ReadonlyMap<string, Direction> = new Map(Object.entries({
  left: 'left', leftward: 'left', leftwards: 'left', right: 'right', rightward: 'right', rightwards: 'right',
  up: 'up', upward: 'up', upwards: 'up', top: 'up', down: 'down', downward: 'down', downwards: 'down', bottom: 'down',
} satisfies Record<string, Direction>));
/** After "from": where it starts, so it travels the other way. */
const FROM: ReadonlyMap<string, Direction> = new Map(Object.entries({ left: 'right', right: 'left', top: 'down', above: 'down', up: 'down', bottom: 'up', below: 'up', down: 'up' } satisfies Record<string, Direction>));
const KINDS: ReadonlyMap<string, TargetKind> = new Map(Object.entries({
  everything: 'whole', all: 'whole', whole: 'whole', entire: 'whole', drawing: 'whole', picture: 'whole', image: 'whole', illustration: 'whole',
  icon: 'whole', logo: 'whole', scene: 'whole', artwork: 'whole', graphic: 'whole', design: 'whole', it: 'whole', svg: 'whole',
  outline: 'lines', line: 'lines', stroke: 'lines', contour: 'lines', edge: 'lines', path: 'lines', border: 'lines', lineart: 'lines',
  part: 'parts', piece: 'parts', shape: 'parts', element: 'parts', item: 'parts', component: 'parts', layer: 'parts', bit: 'parts',
  text: 'text', letter: 'text', word: 'text', title: 'text', label: 'text', lettering: 'text', caption: 'text',
  wheel: 'wheels', gear: 'wheels', cog: 'wheels', fan: 'wheels', propeller: 'wheels', rotor: 'wheels', tire: 'wheels', tyre: 'wheels',
  pinwheel: 'wheels', windmill: 'wheels',
} satisfies Record<string, TargetKind>));
/** Filler: understood as nothing in particular. */
const FILLER = new Set([
  'the', 'a', 'an', 'of', 'in', 'on', 'at', 'to', 'into', 'onto', 'its', 'this', 'that', 'these', 'those', 'please', 'make', 'makes', 'let',
  'lets', 'have', 'has', 'had', 'is', 'are', 'be', 'been', 'being', 'was', 'were', 'so', 'little', 'slightly', 'some', 'each', 'every', 'by',
  'for', 'me', 'my', 'our', 'your', 'them', 'they', 'their', 'there', 'here', 'like', 'kind', 'sort', 'too', 'more', 'way', 'just', 'out',
  'around', 'about', 'over', 'again', 'can', 'could', 'would', 'should', 'will', 'i', 'we', 'you', 'animate', 'animated', 'animates',
  'animation', 'animations', 'motion', 'move', 'moves', 'moving', 'movement', 'effect', 'effects', 'nice', 'nicely', 'smooth', 'smoothly',
  'loop', 'loops', 'looping', 'forever', 'repeat', 'repeats', 'repeatedly', 'continuously', 'constantly', 'start', 'starts', 'begin',
  'begins', 'first', 'from', 'clockwise', 'counterclockwise', 'anticlockwise', 'counter', 'anti', 'do', 'does', 'should', 'want', 'get',
  'gets', 'keep', 'keeps', 'go', 'goes', 'place', 'view', 'screen', 'away', 'off', 'back', 'forth', 'other', 'another', 'one', 'same',
  'time', 'times', 'bit', 'lot', 'very', 'really', 'super', 'extra', 'extremely', 'above', 'below', 'side', 'sides', 'direction',
  'shift', 'shifts', 'shifting', 'cycle', 'cycles', 'cycling', 'change', 'changes', 'changing', 'its', 'then',
]);

type Token = { word: string } | { mark: 'then' | 'and' };

function tokenize(prompt: string): Token[] {
  const text = prompt.toLowerCase().replace(/[\u2018\u2019`]/g, "'");
  const tokens: Token[] = [];
  for (const match of text.matchAll(/[a-z]+(?:'[a-z]+)?|[,;.!?:]/g)) {
    const raw = match[0];
    if (raw === '.' || raw === ';' || raw === '!' || raw === '?' || raw === ':') tokens.push({ mark: 'then' });
    else if (raw === ',') tokens.push({ mark: 'and' });
    else tokens.push({ word: raw.replace(/'s$/, '').replace(/'/g, '') });
  }
  return tokens;
}

/** Reads a prompt into motion steps. A prompt with no motion words has no steps (the animator then chooses). */
export function parsePrompt(prompt: string | undefined): ParsedPrompt {
  if (!prompt) return { steps: [], negated: [], speed: 1, otherWords: [] };
  const reader = new ClauseReader(tokenize(prompt));
  const clauses = reader.read();
  joinTargetOnlyClauses(clauses);
  const { steps, negated } = stepsOf(clauses);
  // A motion ruled out anywhere is ruled out everywhere.
  const kept = steps.filter((s) => !negated.includes(s.motion));
  renumberGroups(kept);
  return { steps: kept, negated, speed: reader.speed, otherWords: reader.otherWords };
}

/** Clauses: runs of words between connectors; a clause's words, kinds and directions belong to its motions. */
interface Clause {
  motions: { motion: MotionName; negated: boolean }[];
  words: string[];
  kind?: TargetKind;
  options: MotionOptions;
  group: number;
}

/** Reads the tokens into clauses, in one pass; the speed and unknown words are read on the way. */
class ClauseReader {
  /** Duration factor (see ParsedPrompt.speed). */
  speed = 1;
  readonly otherWords: string[] = [];
  private readonly clauses: Clause[] = [];
  private group = 0;
  private groupHasMotion = false;
  private clause: Clause = { motions: [], words: [], options: {}, group: 0 };
  /** How many more words a negation still reaches ("don't ever spin"); the motion it reaches, or punctuation, ends it. */
  private negate = 0;

  constructor(private readonly tokens: Token[]) {}

  read(): Clause[] {
    const { tokens } = this;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if ('mark' in token) {
        this.close();
        if (token.mark === 'then') this.nextGroup();
        this.negate = 0;
        continue;
      }
      const taken = this.motionAt(i);
      if (taken > 0) {
        i += taken - 1;
        continue;
      }
      if (this.negate > 0) this.negate--;
      if (!this.connector(token.word)) this.modifierOrTarget(i, token.word);
    }
    this.close();
    return this.clauses;
  }

  /** A motion phrase or word at token i, added to the clause: how many tokens it takes (0 for none). */
  private motionAt(i: number): number {
    const { tokens } = this;
    const phrase = PHRASES.find((p) => p.words.every((w, k) => { const t = tokens[i + k]; return t !== undefined && 'word' in t && t.word === w; }));
    const motion = phrase ? phrase.motion : MOTION_WORDS.get((tokens[i] as { word: string }).word);
    if (!motion) return 0;
    this.clause.motions.push({ motion, negated: this.negate > 0 });
    this.negate = 0;
    return phrase ? phrase.words.length : 1;
  }

  /** "then", "and" and negations: whether the word was one. */
  private connector(word: string): boolean {
    if (THEN.has(word)) {
      this.close();
      this.nextGroup();
      return true;
    }
    if (AND.has(word)) {
      this.close();
      return true;
    }
    if (NEGATIONS.has(word)) {
      this.negate = 3;
      return true;
    }
    return false;
  }

  /** Speed, turning sense and direction words; then filler, kinds of target, and the names of parts. */
  private modifierOrTarget(i: number, word: string): void {
    const { clause, tokens } = this;
    const previous = tokens[i - 1];
    const after = (w: string) => previous !== undefined && 'word' in previous && previous.word === w;
    if (SLOW.has(word)) this.speed = [...VERY].some(after) ? 2 : 1.5;
    else if (FAST.has(word)) this.speed = [...VERY].some(after) ? 0.5 : 0.7;
    else if (word === 'clockwise') clause.options.clockwise = !(after('counter') || after('anti'));
    else if (word === 'counterclockwise' || word === 'anticlockwise') clause.options.clockwise = false;
    else if (FROM.has(word) && fromBefore(tokens, i)) clause.options.direction = FROM.get(word);
    else if (TRAVEL.has(word)) clause.options.direction = TRAVEL.get(word);
    else if (!FILLER.has(word)) this.target(word);
  }

  /** A kind of target ("the outline", "the wheels"), else a word that may name a part of the drawing. */
  private target(word: string): void {
    const { clause } = this;
    const noun = singular(word);
    const kind = KINDS.get(noun) ?? KINDS.get(word);
    if (kind) {
      clause.kind = kind;
      if (kind === 'wheels') clause.words.push(noun);
      return;
    }
    clause.words.push(noun);
    this.otherWords.push(word);
  }

  /** Ends the clause (kept when it has motions or words) and opens the next in the same group. */
  private close(): void {
    const { clause } = this;
    if (clause.motions.length > 0 || clause.words.length > 0) this.clauses.push(clause);
    if (clause.motions.some((m) => !m.negated)) this.groupHasMotion = true;
    this.clause = { motions: [], words: [], options: {}, group: this.group };
  }

  /** After "then" or a full stop the open clause starts a new group, once the current group has a motion. */
  private nextGroup(): void {
    if (!this.groupHasMotion) return;
    this.group++;
    this.groupHasMotion = false;
    this.clause.group = this.group;
  }
}

/** Whether "from" comes before token i, past filler ("from the left", "from the very top"). */
function fromBefore(tokens: Token[], i: number): boolean {
  let back = i - 1;
  while (back >= 0 && 'word' in tokens[back]! && ['the', 'a', 'its', 'very'].includes((tokens[back] as { word: string }).word)) back--;
  return back >= 0 && 'word' in tokens[back]! && (tokens[back] as { word: string }).word === 'from';
}

/** "draw the outline and the wheels": a clause without a motion adds its targets to the one before. */
function joinTargetOnlyClauses(clauses: Clause[]): void {
  for (let i = 1; i < clauses.length; i++) {
    const c = clauses[i]!;
    const before = clauses[i - 1]!;
    if (c.motions.length === 0 && before.motions.length > 0 && before.group === c.group) {
      before.words.push(...c.words);
      before.kind ??= c.kind;
      c.words = [];
    }
  }
}

/** The clauses' motions as steps (at most MAX_STEPS), and the motions ruled out. */
function stepsOf(clauses: Clause[]): { steps: PromptStep[]; negated: MotionName[] } {
  const steps: PromptStep[] = [];
  const negated: MotionName[] = [];
  for (const c of clauses) {
    for (const { motion, negated: ruledOut } of c.motions) {
      if (ruledOut) {
        if (!negated.includes(motion)) negated.push(motion);
        continue;
      }
      // The same motion on the same thing twice: once in a group, and a loop only once at all.
      const loop = MOTIONS[motion].kind === 'loop';
      if (steps.some((s) => s.motion === motion && (loop || s.group === c.group) && s.words.join() === c.words.join() && s.kind === c.kind)) continue;
      if (steps.length >= MAX_STEPS) break;
      steps.push({ motion, group: c.group, words: [...c.words], ...(c.kind ? { kind: c.kind } : {}), options: { ...c.options } });
    }
  }
  return { steps, negated };
}

/** Renumbers groups so they run 0, 1, 2… without gaps. */
function renumberGroups(steps: PromptStep[]): void {
  const groups = [...new Set(steps.map((s) => s.group))].sort((a, b) => a - b);
  for (const step of steps) step.group = groups.indexOf(step.group);
}
