import type { SafeSvg } from '../../svg/safe-svg.ts';
import type { ChatMessage } from './completion.ts';
import { EDIT_SYSTEM_PROMPT, redoUserPrompt, REVIEW_SYSTEM_PROMPT, reviewUserPrompt } from './prompts.ts';
import type { SvgRenderer } from './renderer.ts';

/** What a reviewer said of one version. */
export interface Verdict {
  score: number;
  done: boolean;
  faults: string[];
}

export interface ReviewLoop {
  instruction: string;
  /** The first edit's SVG (sanitized, shown to be visible). */
  svg: SafeSvg;
  steps: number;
  renderer: SvgRenderer;
  signal: AbortSignal;
  /** A review call (the "orchestrator": it judges and says what to fix); returns the answer text. */
  review(messages: ChatMessage[]): Promise<string>;
  /** A redo call (a "shallow" pass fixing what was found); returns the new SVG, ready to deliver. */
  redo(messages: ChatMessage[]): Promise<SafeSvg>;
  /** Progress for the stream's `generating` events. */
  status(text: string): void;
}

/** Size of the PNG the reviewer sees. */
export const REVIEW_RENDER_SIDE = 768;

/**
 * Up to `steps` rounds of: render the current version on white, let the vision model judge it
 * against the instruction, and when it finds faults, redo the edit with them. Every version
 * seen is scored (the last one too), and the best is delivered, not simply the last: revisions
 * can make a drawing worse. A reviewer answer that is not a verdict ends the rounds.
 */
export async function reviewEdit(loop: ReviewLoop): Promise<SafeSvg> {
  const seen: { svg: SafeSvg; score: number }[] = [];
  let current = loop.svg;
  for (let round = 1; round <= loop.steps + 1; round++) {
    const verdict = await judge(loop, current);
    if (!verdict) break;
    seen.push({ svg: current, score: verdict.score });
    loop.status(`Review ${round}: ${verdict.score}/10${verdict.done ? ', done' : `; fixing: ${verdict.faults.join('; ').slice(0, 200)}`}`);
    if (verdict.done || round > loop.steps) break;
    current = await loop.redo([
      { role: 'system', content: EDIT_SYSTEM_PROMPT },
      { role: 'user', content: redoUserPrompt(loop.instruction, current, verdict.faults) },
    ]);
  }
  if (seen.length === 0) return current;
  // The earliest of the best: a later version that is only as good is no reason to change.
  return seen.reduce((best, next) => (next.score > best.score ? next : best)).svg;
}

async function judge(loop: ReviewLoop, svg: string): Promise<Verdict | undefined> {
  const png = await loop.renderer.png(svg, REVIEW_RENDER_SIDE, loop.signal);
  const answer = await loop.review([
    { role: 'system', content: REVIEW_SYSTEM_PROMPT },
    {
      role: 'user',
      content: [
        { type: 'text', text: reviewUserPrompt(loop.instruction) },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
      ],
    },
  ]);
  return parseVerdict(answer);
}

/** Most `{` tried as the start of the verdict: a reviewer's answer is short, but is not trusted to be. */
const VERDICT_STARTS = 16;

/**
 * The verdict in a reviewer's answer: the first JSON object in it that holds a score, fences and
 * prose around it (braces in prose included) ignored.
 */
export function parseVerdict(answer: string): Verdict | undefined {
  let start = answer.indexOf('{');
  for (let tries = 0; start >= 0 && tries < VERDICT_STARTS; tries++) {
    const end = objectEnd(answer, start);
    const verdict = end < 0 ? undefined : verdictOf(answer.slice(start, end + 1));
    if (verdict) return verdict;
    start = answer.indexOf('{', start + 1);
  }
  return undefined;
}

/** The index of the `}` that closes the object opening at `start` (strings skipped), or -1. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

function verdictOf(json: string): Verdict | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const { score, done, faults } = parsed as Record<string, unknown>;
  if (typeof score !== 'number' || !Number.isFinite(score)) return undefined;
  const list = Array.isArray(faults) ? faults.filter((f): f is string => typeof f === 'string' && f.trim() !== '') : [];
  return { score: Math.max(0, Math.min(10, score)), done: done === true || list.length === 0, faults: list };
}
