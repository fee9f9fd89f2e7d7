/**
 * The image-trace picture of docs/models.md: for a few pictures of the tracer's benchmark set
 * (flattened on white, as an image model paints a plain background), the picture the Images API
 * returned and the SVG the engine delivered — through a real Inkwell server and a scripted Images
 * API, as bench/image-trace/run.ts does — side by side, the SVG on a checkerboard so its
 * transparent background shows. Written as docs/images/image-trace.png.
 * Usage (from the repository root): node --import tsx bench/image-trace/picture.ts [--names=category/name,…] [--out=FILE]
 *
 * The strip is one SVG rendered by resvg, the pictures and the SVGs embedded as images (the SVGs
 * stay vectors). Captions use the machine's fonts (DejaVu Sans or any sans-serif).
 */
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { BENCH_DIR, IMAGES_DIR, loadSet } from '../vectorize/build-set.ts';
import { generate, startInkwell, startPictureServer } from './service.ts';

const ROOT = join(BENCH_DIR, '..', '..');
/** An emoji, a shaded icon and a clip-art illustration: what a prompt for an icon gets back. */
const NAMES = ['emoji/noto-fox', 'icons/tango-weather-few-clouds', 'illustrations/openclipart-rubber_duck2_ganson'];
const PANEL = 240;
const CAPTION = 22;
const GAP = 6;

const { values: flags } = parseArgs({ options: { names: { type: 'string' }, out: { type: 'string', default: join(ROOT, 'docs', 'images', 'image-trace.png') } } });
const names = flags.names ? flags.names.split(',') : NAMES;
const set = await loadSet();
const api = await startPictureServer();
const inkwell = await startInkwell(api.url);
const rows: string[] = [];
try {
  for (const [row, name] of names.entries()) {
    const entry = set.find((m) => `${m.category}/${m.name}` === name);
    if (!entry) throw new Error(`picture: no image ${name} in the set (category/name, as in bench/vectorize/.cache/images/manifest.json)`);
    const picture = await sharp(join(IMAGES_DIR, entry.file)).flatten({ background: '#ffffff' }).png().toBuffer();
    api.next(picture);
    const svg = await generate(inkwell, entry);
    const scale = Math.min(PANEL / entry.width, PANEL / entry.height);
    const [w, h] = [Math.round(entry.width * scale), Math.round(entry.height * scale)];
    const y = row * (PANEL + CAPTION + GAP) + CAPTION;
    const captions = [`the picture: PNG, ${(picture.length / 1024).toFixed(1)} KiB`, `the SVG: ${(Buffer.byteLength(svg) / 1024).toFixed(1)} KiB`];
    const hrefs = [`data:image/png;base64,${picture.toString('base64')}`, `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`];
    hrefs.forEach((href, i) => {
      const x = i * (PANEL + GAP);
      rows.push(
        `<rect x="${x}" y="${y}" width="${PANEL}" height="${PANEL}" fill="${i === 0 ? '#fff' : 'url(#checker)'}"/>` +
          `<image x="${x + (PANEL - w) / 2}" y="${y + (PANEL - h) / 2}" width="${w}" height="${h}" href="${href}"/>` +
          `<text x="${x + PANEL / 2}" y="${y - 7}" text-anchor="middle">${captions[i]}</text>`,
      );
    });
    console.log(`${name}: ${captions.join(' | ')}`);
  }
} finally {
  await inkwell.close();
  api.close();
}
const width = 2 * PANEL + GAP;
const height = names.length * (PANEL + CAPTION + GAP) - GAP;
const strip =
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans, sans-serif" font-size="11" fill="#333">` +
  '<defs><pattern id="checker" width="16" height="16" patternUnits="userSpaceOnUse"><rect width="16" height="16" fill="#fff"/><path d="M0 0h8v8H0zM8 8h8v8H8z" fill="#ddd"/></pattern></defs>' +
  `<rect width="${width}" height="${height}" fill="#fff"/>${rows.join('')}</svg>`;
const png = new Resvg(strip, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng();
writeFileSync(flags.out, await sharp(png).png({ compressionLevel: 9, adaptiveFiltering: true }).toBuffer());
console.log(`${relative(ROOT, flags.out)} written`);
