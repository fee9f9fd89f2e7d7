import { ApiError } from '../contract/errors.ts';
import { parseSvg, SvgParseError } from '../svg/parse.ts';
import { sanitizeTree } from '../svg/sanitize.ts';
import { serializeSvg } from '../svg/serialize.ts';
import { decodeBase64Input } from './base64.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Parses and sanitizes SVG markup supplied by a caller; a refusal names the field. */
export function cleanSvgInput(markup: string, param: string): string {
  try {
    return serializeSvg(sanitizeTree(parseSvg(markup)));
  } catch (error) {
    if (error instanceof SvgParseError) {
      throw new ApiError('invalid_request', { param, message: `Invalid SVG in '${param}': ${error.message}` });
    }
    throw error;
  }
}

/** An SVG input given as base64 (or a base64 data: URL): UTF-8 text, then cleaned. */
export function svgFromBase64(value: string, param: string): string {
  const { bytes } = decodeBase64Input(value, param);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError('invalid_request', { param, message: `Invalid SVG in '${param}': the decoded data is not UTF-8 text.` });
  }
  return cleanSvgInput(text, param);
}
