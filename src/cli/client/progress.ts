import type { SvgStreamEvent } from '../../contract/svgs.ts';
import { printable } from './printable.ts';

// The progress of one streamed operation as plain data, and the one line that shows it. Pure, so
// the terminal side (status-line.ts) only decides when and where to draw.

export interface Progress {
  operation: string;
  /** Outputs asked for (n of a generation, 1 otherwise). */
  expected: number;
  /** What the stream is doing now, from its latest event. */
  phase: string;
  /** The latest status text of a `generating` event. */
  status: string | undefined;
  completed: number;
  /** Credits of the completed outputs (fixed-credit models). */
  credits: number | undefined;
  /** The latest total token count per output id (token-priced models report it as they go). */
  tokens: Readonly<Record<string, number>>;
  startedAt: number;
  /** A test key's run: its credits are what a live key would pay, and nothing is charged. */
  testKey: boolean;
}

const PHASES: Record<string, string> = {
  generating: 'generating',
  reasoning: 'reasoning',
  draft: 'drafting',
  content: 'output received',
  error: 'failed',
};

export function startProgress(operation: string, expected: number, now: number, testKey = false): Progress {
  return { operation, expected, phase: 'waiting', status: undefined, completed: 0, credits: undefined, tokens: {}, startedAt: now, testKey };
}

export function advance(progress: Progress, event: SvgStreamEvent): Progress {
  const next: Progress = { ...progress, phase: PHASES[event.type] ?? progress.phase };
  if (event.type === 'generating' && typeof event.text === 'string') next.status = event.text;
  if (event.type !== 'error' && event.usage && event.id !== undefined) {
    next.tokens = { ...progress.tokens, [event.id]: event.usage.total_tokens };
  }
  if (event.type === 'content') {
    next.completed = progress.completed + 1;
    if (typeof event.credits === 'number') next.credits = (progress.credits ?? 0) + event.credits;
  }
  return next;
}

/** `generate: drafting · 1/2 outputs · 4 credits · 3.4s · Sandbox: drawing…`, cut to fit `width`. */
export function progressLine(progress: Progress, now: number, width: number): string {
  const tokens = Object.values(progress.tokens).reduce((sum, count) => sum + count, 0);
  const parts = [
    `${progress.operation}: ${progress.phase}`,
    `${progress.completed}/${progress.expected} output${progress.expected === 1 ? '' : 's'}`,
    progress.credits !== undefined ? `${progress.credits} credit${progress.credits === 1 ? '' : 's'}${progress.testKey ? ' (test key: not charged)' : ''}` : undefined,
    tokens > 0 ? `${tokens} tokens` : undefined,
    `${((now - progress.startedAt) / 1000).toFixed(1)}s`,
    progress.status,
  ].filter((part) => part !== undefined && part !== '');
  const line = printable(parts.join(' · '));
  // One column short of the width: a line that fills the last column wraps on some terminals.
  const room = Math.max(10, width - 1);
  return line.length <= room ? line : `${line.slice(0, room - 1)}…`;
}
