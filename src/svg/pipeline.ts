import type { ViewBox } from '../contract/common.ts';
import { applyAttributes } from './attributes.ts';
import { parseSvg } from './parse.ts';
import { sanitizeTree } from './sanitize.ts';
import { serializeSvg } from './serialize.ts';

/** Every SVG document that leaves the service passes here: parse, sanitize, apply attributes. */
export function finishSvg(markup: string, viewBox?: ViewBox | null): string {
  return serializeSvg(applyAttributes(sanitizeTree(parseSvg(markup)), viewBox));
}

/**
 * A draft finished as a document is: a complete, sanitized SVG that renders on its own. A draft
 * is only a preview, so one that cannot be made safe is skipped (undefined) rather than failing
 * the output.
 */
export function finishDraft(markup: string, viewBox?: ViewBox | null): string | undefined {
  try {
    return finishSvg(markup, viewBox);
  } catch {
    return undefined;
  }
}
