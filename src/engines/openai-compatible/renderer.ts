/** Renders sanitized SVG off the event loop (in the worker processes), with a deadline. */
export interface SvgRenderer {
  /** Whether the document shows anything at all. */
  isVisible(svg: string, signal: AbortSignal): Promise<boolean>;
  /** A PNG on white, at most `maxSide` pixels a side. */
  png(svg: string, maxSide: number, signal: AbortSignal): Promise<Buffer>;
}
