import type { ImageInput, ReferenceItem, SvgInput } from '../contract/common.ts';
import { IMAGE_MAX_BYTES, SVG_MAX_BYTES } from '../contract/media-size.ts';
import { decodeBase64Input } from './base64.ts';
import { fetchMedia, type FetchPolicy } from './fetch.ts';
import { checkImageBytes, type CheckedImage } from './image.ts';
import { cleanSvgInput, svgFromBase64, svgFromBytes } from './svg-input.ts';

/**
 * An image input after the request-time checks: inline data is already decoded and checked;
 * a URL is fetched only by an engine that needs the pixels (the sandbox never fetches).
 */
export type ImageRef = { url: string; param: string } | { image: CheckedImage; param: string };

/** An SVG input after the request-time checks: inline markup is already sanitized. */
export type SvgRef = { markup: string } | { url: string; param: string };

/**
 * The one way inputs enter the service. Every operation prepares its image and SVG inputs here
 * when the request arrives (so bad base64 is a 400 before any work is admitted), and engines
 * load URL inputs here, through the SSRF-guarded fetcher and the same checks.
 */
export class MediaInputs {
  constructor(private readonly policy: FetchPolicy) {}

  async prepareImage(input: ImageInput | ReferenceItem, param: string): Promise<ImageRef> {
    if (typeof input === 'string') return { url: input, param };
    if ('url' in input) return { url: input.url, param: `${param}.url` };
    const base64Param = `${param}.base64`;
    const { bytes } = decodeBase64Input(input.base64, base64Param);
    return { image: await checkImageBytes(bytes, base64Param), param: base64Param };
  }

  prepareSvg(inline: string | undefined, source: SvgInput | null | undefined, param: string): SvgRef {
    if (inline !== undefined) return { markup: cleanSvgInput(inline, 'svg') };
    if (source && 'base64' in source) {
      return { markup: svgFromBase64(source.base64, `${param}.base64`) };
    }
    return { url: (source as { url: string }).url, param: `${param}.url` };
  }

  /** The checked image of a prepared input, fetching it first when it is a URL. */
  async loadImage(ref: ImageRef, signal?: AbortSignal): Promise<CheckedImage> {
    if ('image' in ref) return ref.image;
    const fetched = await fetchMedia(ref.url, { param: ref.param, accept: 'image', maxBytes: IMAGE_MAX_BYTES, policy: this.policy, signal });
    return checkImageBytes(fetched.bytes, ref.param);
  }

  /**
   * A picture a model server handed out by URL: fetched from that server's own host only (`host`,
   * as `base_url` names it), and checked as any image input is. Failures name `param`.
   */
  async loadServerImage(url: string, host: string, param: string, signal?: AbortSignal): Promise<CheckedImage> {
    const fetched = await fetchMedia(url, { param, accept: 'image', maxBytes: IMAGE_MAX_BYTES, policy: { ...this.policy, onlyHost: host }, signal });
    return checkImageBytes(fetched.bytes, param);
  }

  /** The sanitized markup of a prepared SVG input, fetching it first when it is a URL. */
  async loadSvg(ref: SvgRef, signal?: AbortSignal): Promise<string> {
    if ('markup' in ref) return ref.markup;
    const fetched = await fetchMedia(ref.url, { param: ref.param, accept: 'svg', maxBytes: SVG_MAX_BYTES, policy: this.policy, signal });
    return svgFromBytes(fetched.bytes, ref.param).markup;
  }
}
