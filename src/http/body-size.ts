import { URL_MAX_LENGTH } from '../contract/common.ts';
import { IMAGE_BASE64_MAX_LENGTH, SVG_BASE64_MAX_LENGTH } from '../contract/media-size.ts';
import { JSON_MAX_DEPTH } from '../contract/schema-helpers.ts';
import { EDIT_PROMPT_MAX_LENGTH, EDIT_SVG_MAX_LENGTH, MAX_REFERENCE_IMAGES, PROMPT_MAX_LENGTH } from '../contract/svgs.ts';

/** Room for formatting and field names around the largest values: 5% and 1 MiB. */
const SLACK = 1_048_576;
const withSlack = (bytes: number) => Math.ceil(bytes * 1.05) + SLACK;

/** A character of text may take up to 6 bytes of JSON (as \uXXXX). */
const TEXT_BYTES_PER_CHAR = 6;

/** The largest image input: base64 at its longest, or a URL. */
const image = IMAGE_BASE64_MAX_LENGTH + URL_MAX_LENGTH;

/**
 * The most request-body bytes each route accepts, derived from the field bounds: the largest
 * valid request plus room for JSON escapes and formatting. Anything larger is 413
 * payload_too_large before it is parsed. A generation's size depends on the most references a
 * model in the catalog accepts (`maxReferences`).
 */
export function maxBodyBytes(maxReferences: number) {
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

/**
 * Responses replays whole conversations (a long tool loop is tens of thousands of items and
 * parts) and carries caller JSON Schemas up to JSON_MAX_DEPTH deep, a few levels below the root.
 */
export const RESPONSES_JSON_SHAPE = { maxDepth: JSON_MAX_DEPTH + 16, maxContainers: 100_000 };
