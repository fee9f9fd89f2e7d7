import type { ImageInput, ReferenceItem, SvgInput } from '../contract/common.ts';
import type { SvgSource } from '../engines/engine.ts';
import { decodeBase64Input } from '../media/base64.ts';
import { cleanSvgInput, svgFromBase64 } from '../media/svg-input.ts';

/** Checks an image input that arrived inline; URL inputs are checked when they are fetched. */
export function checkImageInput(input: ImageInput | ReferenceItem, param: string): void {
  if (typeof input === 'object' && 'base64' in input) decodeBase64Input(input.base64, `${param}.base64`);
}

/** The source SVG of an edit or animation: inline or base64 markup is parsed and sanitized now. */
export function svgSource(inline: string | undefined, source: SvgInput | null | undefined, sourceParam: string): SvgSource {
  if (inline !== undefined) return { markup: cleanSvgInput(inline, 'svg') };
  if (source && 'base64' in source) return { markup: svgFromBase64(source.base64, `${sourceParam}.base64`) };
  return source as { url: string };
}
