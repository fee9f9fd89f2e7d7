import sharp from 'sharp';

/** One sample image: PNG bytes, as a client would send them. */
export interface Sample {
  name: string;
  /** Which tracer path it takes, for the report. */
  path: string;
  side: number;
  png: Buffer;
}

const NS = 'xmlns="http://www.w3.org/2000/svg"';

/**
 * Three small icons drawn on a 64-unit grid, one per tracer path a typical icon takes: a
 * one-colour glyph (bi-level mask), a flat multi-colour icon (colour clustering) and an icon
 * with a soft drop shadow (translucent layers under the colour trace).
 */
const DRAWINGS: { name: string; path: string; body: string }[] = [
  {
    name: 'glyph',
    path: 'bi-level mask',
    body: `<path d="M14 50 L32 10 L50 50 Z M24 42 L40 42 L32 24 Z" fill="#1d2a3a" fill-rule="evenodd"/><circle cx="32" cy="54" r="5" fill="#1d2a3a"/>`,
  },
  {
    name: 'flat-icon',
    path: 'colour trace',
    body: `<rect x="6" y="10" width="52" height="44" rx="8" fill="#2f80ed"/><circle cx="24" cy="28" r="9" fill="#f2c94c"/><path d="M10 50 L28 34 L40 44 L48 38 L58 50 Z" fill="#27ae60"/>`,
  },
  {
    name: 'shadow-icon',
    path: 'soft layers + colour trace',
    body: `<defs><filter id="s" x="-30%" y="-30%" width="160%" height="160%"><feGaussianBlur stdDeviation="2.5"/></filter></defs><ellipse cx="33" cy="55" rx="22" ry="5" fill="#000" fill-opacity=".55" filter="url(#s)"/><circle cx="32" cy="30" r="20" fill="#eb5757"/><circle cx="26" cy="24" r="6" fill="#fff" fill-opacity=".9"/>`,
  },
];

/** The sample icons rendered at each side (64 = the case; 256 = a larger icon). */
export async function sampleIcons(sides: number[]): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (const side of sides) {
    for (const drawing of DRAWINGS) {
      const svg = `<svg ${NS} viewBox="0 0 64 64" width="${side}" height="${side}">${drawing.body}</svg>`;
      samples.push({ name: drawing.name, path: drawing.path, side, png: await sharp(Buffer.from(svg)).png().toBuffer() });
    }
  }
  return samples;
}
