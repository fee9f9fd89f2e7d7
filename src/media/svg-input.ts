import { ApiError } from '../contract/errors.ts';
import { parseSvg, SvgParseError } from '../svg/parse.ts';
import { sanitizeTree } from '../svg/sanitize.ts';
import { serializeSvg } from '../svg/serialize.ts';
import type { SvgElement } from '../svg/tree.ts';
import { decodeBase64Input } from './base64.ts';
import { malformedSvgSize } from '../svg/geometry.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const SIZE_RULE = {
  viewBox: 'must be four finite numbers, with a width and height above 0',
  width: 'must be a finite length above 0',
  height: 'must be a finite length above 0',
};

/**
 * Parses and sanitizes SVG markup supplied by a caller; a refusal names the field. A root size
 * the caller wrote but that means nothing (a viewBox of NaN, a width of 1e400) is refused before
 * sanitizing, as written, rather than silently replaced by a default size.
 */
function cleanSvgTree(markup: string, param: string): { markup: string; root: SvgElement } {
  try {
    const parsed = parseSvg(markup);
    const malformed = malformedSvgSize(parsed);
    if (malformed) {
      throw new ApiError('invalid_request', { param, message: `Invalid SVG in '${param}': the root ${malformed} ${SIZE_RULE[malformed]}.` });
    }
    const root = sanitizeTree(parsed);
    return { markup: serializeSvg(root), root };
  } catch (error) {
    if (error instanceof SvgParseError) {
      throw new ApiError('invalid_request', { param, message: `Invalid SVG in '${param}': ${error.message}` });
    }
    throw error;
  }
}

export function cleanSvgInput(markup: string, param: string): string {
  return cleanSvgTree(markup, param).markup;
}

/** SVG bytes (decoded base64 or a fetched body): UTF-8 text, then parsed and sanitized. */
export function svgFromBytes(bytes: Buffer, param: string): { markup: string; root: SvgElement } {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError('invalid_request', { param, message: `Invalid SVG in '${param}': the decoded data is not UTF-8 text.` });
  }
  return cleanSvgTree(text, param);
}

/** An SVG input given as base64 (or a base64 data: URL). */
export function svgFromBase64(value: string, param: string): string {
  return svgFromBytes(decodeBase64Input(value, param).bytes, param).markup;
}
