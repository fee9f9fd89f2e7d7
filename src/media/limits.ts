/** The spec's decoded-image limits, shared by base64 and URL inputs and by rasterizing. */
export const IMAGE_MAX_BYTES = 12_582_912;
export const IMAGE_MAX_SIDE = 4096;
export const IMAGE_MAX_PIXELS = 16_777_216;
/** An SVG input's bytes: what the longest base64 SVG input (1 066 668 characters) decodes to. */
export const SVG_MAX_BYTES = 800_001;
