import sharp from 'sharp';

/**
 * Pictures as an image model hands them out: a flat illustration (a sun over a hill, a few solid
 * colours with anti-aliased edges) drawn by resvg through sharp, on a plain background or on
 * transparency, and the blurry partial pictures a streaming model sends before it.
 */
function scene(width: number, height: number, background: string | null): string {
  const s = Math.min(width, height);
  const cx = width / 2;
  const cy = height / 2;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
${background ? `<rect width="${width}" height="${height}" fill="${background}"/>` : ''}
<circle cx="${cx}" cy="${cy - s * 0.12}" r="${s * 0.22}" fill="#ffb703"/>
<path d="M${cx - s * 0.4} ${cy + s * 0.32} Q${cx} ${cy - s * 0.05} ${cx + s * 0.4} ${cy + s * 0.32} Z" fill="#2a9d8f"/>
<rect x="${cx - s * 0.08}" y="${cy + s * 0.18}" width="${s * 0.16}" height="${s * 0.14}" rx="${s * 0.02}" fill="#264653"/>
</svg>`;
}

export type PictureFormat = 'png' | 'jpeg' | 'webp';

/** The illustration as a picture file: on white (default), another plain colour, or transparency (`background: null`, PNG or WebP). */
export async function picture(width = 512, height = 512, { background = '#ffffff' as string | null, format = 'png' as PictureFormat } = {}): Promise<Buffer> {
  const image = sharp(Buffer.from(scene(width, height, background)));
  if (format === 'jpeg') return image.flatten({ background: background ?? '#ffffff' }).jpeg({ quality: 85 }).toBuffer();
  return format === 'webp' ? image.webp({ quality: 90 }).toBuffer() : image.png().toBuffer();
}

/** Partial pictures: the final one blurred less and less, as gpt-image models stream them. */
export async function partials(final: Buffer, count: number): Promise<Buffer[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => sharp(final).blur(12 / (i + 1)).png().toBuffer()));
}
