import type { ViewBox } from '../contract/common.ts';
import { applyAttributes } from './attributes.ts';
import { parseSvg, parseSvgFragment } from './parse.ts';
import { sanitizeNodes, sanitizeTree } from './sanitize.ts';
import { serializeNodes, serializeSvg } from './serialize.ts';

/** Every SVG document that leaves the service passes here: parse, sanitize, apply attributes. */
export function finishSvg(markup: string, viewBox?: ViewBox | null): string {
  return serializeSvg(applyAttributes(sanitizeTree(parseSvg(markup)), viewBox));
}

/** Draft deltas are element content, sanitized the same way. */
export function finishFragment(markup: string): string {
  return serializeNodes(sanitizeNodes(parseSvgFragment(markup)));
}

/**
 * A snapshot draft is the document so far with its root left open (deltas append to it). It is
 * repaired by closing the root, sanitized, and returned open again.
 */
export function finishDraftSnapshot(markup: string, viewBox?: ViewBox | null): string {
  let closed: string;
  try {
    closed = finishSvg(markup, viewBox);
  } catch {
    closed = finishSvg(`${markup}</svg>`, viewBox);
  }
  return closed.endsWith('/>') && !closed.includes('><') ? `${closed.slice(0, -2)}>` : closed.slice(0, -'</svg>'.length);
}
