import type { ReasoningEffort, ViewBox } from '../../contract/common.ts';

/** What the engine sends a tracer process: the checked input and the request's options. */
export interface TraceTask {
  input: { kind: 'raster'; bytes: Uint8Array } | { kind: 'svg'; markup: string };
  autoCrop: boolean;
  targetSize?: number;
  effort: ReasoningEffort;
  /** Trace the subject alone, a plain background connected to the border left transparent (cutout.ts). */
  clearBackground?: boolean;
  /** Draw in this viewBox's units, the picture fitted whole and centred. */
  fit?: ViewBox;
}

/** A refusal the caller caused: raster data that does not decode, or an SVG that does not render. */
export type TraceOutcome = { ok: true; svg: string } | { ok: false; reason: 'undecodable' | 'unrenderable'; detail: string };
