import type { ReasoningEffort } from '../../contract/common.ts';

/** What the engine sends a tracer thread: the checked input and the request's options. */
export interface TraceTask {
  input: { kind: 'raster'; bytes: Uint8Array } | { kind: 'svg'; markup: string };
  autoCrop: boolean;
  targetSize?: number;
  effort: ReasoningEffort;
}

export type TraceOutcome = { ok: true; svg: string } | { ok: false; reason: 'undecodable'; detail: string };
