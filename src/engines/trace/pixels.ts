/** Decoded, straight-alpha RGBA pixels, row-major, 4 bytes per pixel. */
export interface RgbaImage {
  width: number;
  height: number;
  pixels: Buffer;
}
