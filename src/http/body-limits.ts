import { IMAGE_BASE64_MAX_LENGTH, SVG_BASE64_MAX_LENGTH, URL_MAX_LENGTH } from '../contract/common.ts';
import { EDIT_PROMPT_MAX_LENGTH, EDIT_SVG_MAX_LENGTH, MAX_REFERENCE_IMAGES, PROMPT_MAX_LENGTH } from '../contract/svgs.ts';

/**
 * Body limits per route, derived from the field bounds: the largest valid request plus room for
 * JSON escapes (a character of text may take up to 6 bytes as \uXXXX) and formatting. Anything
 * larger is 413 payload_too_large before it is parsed.
 */
const SLACK = 1_048_576;
const TEXT_BYTES_PER_CHAR = 6;
const image = IMAGE_BASE64_MAX_LENGTH + URL_MAX_LENGTH;

const withSlack = (bytes: number) => Math.ceil(bytes * 1.05) + SLACK;

export function bodyLimits(maxReferences: number) {
  return {
    generation: withSlack(2 * PROMPT_MAX_LENGTH * TEXT_BYTES_PER_CHAR + Math.max(1, maxReferences) * image),
    vectorization: withSlack(image),
    edit: withSlack(
      (EDIT_PROMPT_MAX_LENGTH + EDIT_SVG_MAX_LENGTH) * TEXT_BYTES_PER_CHAR + SVG_BASE64_MAX_LENGTH + MAX_REFERENCE_IMAGES * image,
    ),
    animation: withSlack(PROMPT_MAX_LENGTH * TEXT_BYTES_PER_CHAR + SVG_BASE64_MAX_LENGTH),
    /** Responses input is a whole replayed conversation; 32 MiB holds a long tool loop. */
    responses: 32 * 1_048_576,
  };
}
