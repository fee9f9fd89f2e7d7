import type { ViewBox } from '../contract/common.ts';
import { applyAttributes } from './attributes.ts';
import { parseSvg } from './parse.ts';
import { markSafe, type SafeSvg } from './safe-svg.ts';
import { sanitizeTree } from './sanitize.ts';
import { serializeSvg } from './serialize.ts';

/**
 * Every SVG document that leaves the service passes here: parse, sanitize, apply attributes. What
 * comes out is a SafeSvg (safe-svg.ts), the only type a delivered document can have.
 */
export function finishSvg(markup: string, viewBox?: ViewBox | null): SafeSvg {
  return markSafe(serializeSvg(applyAttributes(sanitizeTree(parseSvg(markup)), viewBox)));
}

/**
 * A draft finished as a document is: a complete, sanitized SVG that renders on its own. A draft
 * is only a preview, so one that cannot be made safe is skipped (undefined) rather than failing
 * the output.
 */
export function finishDraft(markup: string, viewBox?: ViewBox | null): SafeSvg | undefined {
  try {
    return finishSvg(markup, viewBox);
  } catch {
    return undefined;
  }
}
