import type { ViewBox } from '../contract/common.ts';
import { applyAttributes } from './attributes.ts';
import { extractSvg, svgCandidates } from './extract.ts';
import { optimizeTree } from './optimize.ts';
import { SvgParseError } from './parse.ts';
import { repairSvg } from './repair.ts';
import { markSafe, type SafeSvg } from './safe-svg.ts';
import { sanitizeTree } from './sanitize.ts';
import { serializeSvg } from './serialize.ts';
import { surelyVisible } from './visibility.ts';
import { isElement, type SvgElement } from './tree.ts';

// The model-output stage of the SVG pipeline: extract the answer's SVG, repair it, parse it
// strictly and sanitize it (the same sanitizer as every input), optimize. What comes out is a
// safe document; whether it draws anything is checked by rendering it (off the event loop).

/** How to read one answer. */
export interface ModelOutputOptions {
  /** The answer was cut short (`finish_reason: length`): keep what is complete. */
  truncated: boolean;
  /** The viewBox the model was asked for, used when it wrote none and no size either. */
  fallbackViewBox: string;
}

/** The delivered document, and its tree (for checks that read structure). */
export interface ModelSvg {
  svg: SafeSvg;
  root: SvgElement;
}

/**
 * The answer's SVG, finished as the runner would finish any SVG (sanitized, the request's viewBox
 * applied), so it need not be parsed again. Throws SvgParseError, with a message fit for the
 * client, when there is no usable SVG.
 */
export function svgFromModelText(text: string, options: ModelOutputOptions & { viewBox?: ViewBox | null }): ModelSvg {
  const candidate = extractSvg(text);
  if (!candidate) throw new SvgParseError('The answer contains no SVG.');
  const repaired = repairSvg(candidate.markup, { truncated: options.truncated || !candidate.complete, fallbackViewBox: options.fallbackViewBox });
  if (!repaired) throw new SvgParseError('The answer contains no SVG.');
  const clean = sanitizeTree(repaired);
  if (!hasDrawing(clean)) throw new SvgParseError('The SVG draws nothing.');
  optimizeTree(clean);
  const root = applyAttributes(clean, options.viewBox);
  return { svg: markSafe(serializeSvg(root)), root };
}

/** A model's answer with what finishing it needs (svgFromModelText's input, in one object a worker can take). */
export interface ModelAnswer extends ModelOutputOptions {
  text: string;
  /** The request's viewBox, applied to the delivered document. */
  viewBox: ViewBox | null;
}

/**
 * What became of an answer: the delivered document and whether it surely shows something
 * (`undefined`: only a render can tell), or why there is no usable SVG in it (a message fit for
 * the client). A plain object, so it crosses to and from a worker process unchanged (the brand is
 * a compile-time mark: the worker made the document with this same code).
 */
export type ModelSvgVerdict = { svg: SafeSvg; visible: boolean | undefined } | { refused: string };

/** svgFromModelText as a verdict: the document and what its structure says of its visibility, or the refusal. */
export function modelSvgVerdict(text: string, options: ModelOutputOptions & { viewBox?: ViewBox | null }): ModelSvgVerdict {
  let output: ModelSvg;
  try {
    output = svgFromModelText(text, options);
  } catch (error) {
    if (error instanceof SvgParseError) return { refused: error.message };
    throw error;
  }
  return { svg: output.svg, visible: surelyVisible(output.root) ? true : undefined };
}

/** Elements that draw something themselves (what a draft needs at least one of). */
export const DRAWING_ELEMENTS = ['path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'text', 'use', 'image'] as const;
const SHAPES = new Set<string>(DRAWING_ELEMENTS);

/** Whether any element could draw something (the render decides whether it really does). */
export function hasDrawing(root: SvgElement): boolean {
  for (const pending: SvgElement[] = [root]; pending.length > 0; ) {
    const element = pending.pop()!;
    if (SHAPES.has(element.name)) return true;
    for (const child of element.children) if (isElement(child)) pending.push(child);
  }
  return false;
}

/**
 * A preview of an answer still streaming, finished for delivery like the answer will be: the SVG
 * begun so far with its complete elements only (an element still being written is left out),
 * every open element closed, sanitized, the request's viewBox applied — a document that renders
 * as it is. Undefined while nothing drawable is complete, or when the part so far cannot be made
 * safe (a draft is only a preview: the next one may succeed).
 */
export function draftFromModelText(text: string, fallbackViewBox: string, viewBox?: ViewBox | null): SafeSvg | undefined {
  const current = svgCandidates(text).at(-1);
  if (!current) return undefined;
  // Not `truncated`: an element still being written is dropped, not completed.
  const tree = repairSvg(current.markup, { truncated: false, open: !current.complete, fallbackViewBox });
  if (!tree) return undefined;
  try {
    const clean = sanitizeTree(tree);
    return hasDrawing(clean) ? markSafe(serializeSvg(applyAttributes(clean, viewBox))) : undefined;
  } catch (error) {
    if (error instanceof SvgParseError) return undefined; // references that would not be safe yet
    throw error;
  }
}
