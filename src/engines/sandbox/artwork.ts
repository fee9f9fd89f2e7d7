import { createHash } from 'node:crypto';
import type { ViewBox } from '../../contract/common.ts';
import { formatViewBox } from '../../svg/attributes.ts';
import { parseSvg } from '../../svg/parse.ts';
import { sanitizeTree } from '../../svg/sanitize.ts';
import { serializeNodes } from '../../svg/serialize.ts';
import { svgViewBox } from '../../svg/geometry.ts';
import type { SvgElement } from '../../svg/tree.ts';

/**
 * A sandbox drawing: a root opening tag plus element parts, so it can be streamed as drafts that
 * grow by one part each.
 */
export interface Artwork {
  open: string;
  parts: string[];
}

/** The document of the first `parts` parts (all of them by default), closed. */
export function artworkMarkup(art: Artwork, parts = art.parts.length): string {
  return `${art.open}${art.parts.slice(0, parts).join('')}</svg>`;
}

const DEFAULT_VIEWBOX: ViewBox = { minX: 0, minY: 0, width: 512, height: 512 };
const PALETTES = [
  ['#f4f1de', '#e07a5f', '#3d405b', '#81b29a', '#f2cc8f'],
  ['#edf2f4', '#2b2d42', '#8d99ae', '#ef233c', '#d90429'],
  ['#fefae0', '#606c38', '#283618', '#dda15e', '#bc6c25'],
  ['#f1faee', '#e63946', '#a8dadc', '#457b9d', '#1d3557'],
  ['#fff8f0', '#9c6644', '#7f5539', '#b08968', '#ddb892'],
];

/** A small seeded generator (mulberry32): the same seed always draws the same picture. */
function random(seed: string): () => number {
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Short numbers: three significant decimals relative to the drawing's size. */
function fmt(value: number): string {
  return String(Number(value.toPrecision(6)));
}

function label(box: ViewBox): string {
  const size = Math.min(box.width, box.height) * 0.09;
  const x = box.minX + box.width / 2;
  const y = box.minY + box.height - size * 0.6;
  return (
    `<text x="${fmt(x)}" y="${fmt(y)}" font-family="sans-serif" font-size="${fmt(size)}" font-weight="700" ` +
    `text-anchor="middle" fill="#000" fill-opacity="0.55" letter-spacing="${fmt(size * 0.15)}">SANDBOX</text>`
  );
}

function rootOpen(box: ViewBox, extra = ''): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${formatViewBox(box)}" data-sandbox="true"${extra}>`;
}

/**
 * The sandbox's drawing for a seed: deterministic, honoring the requested viewBox, marked with
 * data-sandbox="true" and a visible SANDBOX label.
 */
export function drawArtwork(seed: string, viewBox: ViewBox | null, animation?: { periodMs: number }): Artwork {
  const box = viewBox ?? DEFAULT_VIEWBOX;
  const next = random(seed);
  const palette = PALETTES[Math.floor(next() * PALETTES.length)]!;
  const pick = () => palette[1 + Math.floor(next() * (palette.length - 1))]!;
  const { minX, minY, width, height } = box;
  const unit = Math.min(width, height);
  const parts = [`<rect x="${fmt(minX)}" y="${fmt(minY)}" width="${fmt(width)}" height="${fmt(height)}" fill="${palette[0]}"/>`];
  const shapes = 3 + Math.floor(next() * 4);
  for (let i = 0; i < shapes; i++) {
    const cx = minX + width * (0.2 + 0.6 * next());
    const cy = minY + height * (0.15 + 0.55 * next());
    const size = unit * (0.08 + 0.2 * next());
    const kind = Math.floor(next() * 3);
    if (kind === 0) {
      parts.push(`<circle cx="${fmt(cx)}" cy="${fmt(cy)}" r="${fmt(size)}" fill="${pick()}"/>`);
    } else if (kind === 1) {
      parts.push(
        `<rect x="${fmt(cx - size)}" y="${fmt(cy - size * 0.7)}" width="${fmt(size * 2)}" height="${fmt(size * 1.4)}" ` +
          `rx="${fmt(size * 0.2)}" fill="${pick()}"/>`,
      );
    } else {
      const points = [0, 1, 2]
        .map((k) => {
          const angle = next() * 0.5 + (k * Math.PI * 2) / 3;
          return `${fmt(cx + Math.cos(angle) * size)},${fmt(cy + Math.sin(angle) * size)}`;
        })
        .join(' ');
      parts.push(`<polygon points="${points}" fill="${pick()}"/>`);
    }
  }
  if (animation) parts.splice(1, parts.length - 1, animated(parts.slice(1).join(''), box, animation.periodMs));
  parts.push(label(box));
  return { open: rootOpen(box), parts };
}

/** The sandbox animation's opening: a fade-in of this length. */
export const SANDBOX_OPENING_MS = 600;

/**
 * The sandbox's animation of some markup: a fade-in over SANDBOX_OPENING_MS, then a gentle
 * "breathing" loop — scaled to 94 % and back about the centre of the box, eased, every
 * `periodMs`. SMIL only, so it plays in an <img>; scaled down about the centre, it never leaves
 * the box. Deterministic: the period comes from the request's seed.
 */
function animated(markup: string, box: ViewBox, periodMs: number): string {
  const x = box.minX + box.width / 2;
  const y = box.minY + box.height / 2;
  return (
    `<g><animate attributeName="opacity" from="0" to="1" dur="${SANDBOX_OPENING_MS}ms" fill="freeze"/>` +
    `<g transform="translate(${fmt(x)} ${fmt(y)})"><g>` +
    `<animateTransform attributeName="transform" type="scale" values="1;0.94;1" keyTimes="0;0.5;1" calcMode="spline" ` +
    `keySplines="0.45 0 0.55 1;0.45 0 0.55 1" dur="${periodMs}ms" repeatCount="indefinite"/>` +
    `<g transform="translate(${fmt(-x)} ${fmt(-y)})">${markup}</g></g></g></g>`
  );
}

/**
 * The sandbox "edit" or "animation" of a supplied SVG: the source itself, marked as sandbox
 * output and labelled, and for animations wrapped in a gentle looping motion.
 */
export function decorateSource(
  markup: string,
  viewBox: ViewBox | null,
  animation?: { periodMs: number },
): Artwork {
  const root: SvgElement = sanitizeTree(parseSvg(markup));
  const sourceBox = svgViewBox(root) ?? sizeBox(root) ?? DEFAULT_VIEWBOX;
  const box = viewBox ?? sourceBox;
  const extra = [...root.attributes]
    .filter(([name]) => !['xmlns', 'viewBox', 'data-sandbox'].includes(name))
    .map(([name, value]) => ` ${name}="${value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')}"`)
    .join('');
  const body = serializeNodes(root.children);
  const parts = animation ? [animated(body, sourceBox, animation.periodMs), label(box)] : [body, label(box)];
  return { open: rootOpen(box, extra), parts: parts.filter((part) => part !== '') };
}

function sizeBox(root: SvgElement): ViewBox | undefined {
  const width = Number.parseFloat(root.attributes.get('width') ?? '');
  const height = Number.parseFloat(root.attributes.get('height') ?? '');
  return width > 0 && height > 0 ? { minX: 0, minY: 0, width, height } : undefined;
}

export function seededInt(seed: string, min: number, max: number): number {
  return min + Math.floor(random(seed)() * (max - min + 1));
}
