/**
 * The tracer gallery of the README: for a few images of the benchmark set, the source, raw
 * VTracer's trace and Inkwell's (the working tree's tracer) side by side, captioned with each
 * trace's size and PSNR, as docs/images/tracer/<name>.png.
 * Usage (from the repository root): node --import tsx bench/vectorize/gallery.ts [--names=category/name,…] [--effort=medium] [--ref=COMMIT] [--out=DIR]
 * `--ref` draws Inkwell's panel with the tracer at that commit (baseline.ts) instead of the
 * working tree's, e.g. to redo the committed gallery while the tracer is being changed.
 *
 * Each strip is one SVG rendered by resvg: the source PNG and both traces embedded as images
 * (the traces stay vectors, drawn at the panel size), on a checkerboard where there is
 * transparency. Captions use the machine's fonts (DejaVu Sans or any sans-serif); without fonts
 * the strips come out uncaptioned.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { vectorizeRaw } from '@neplex/vectorizer';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { traceImage } from '../../src/engines/trace/tracer.ts';
import type { ReasoningEffort } from '../../src/contract/common.ts';
import { loadBaseline } from './baseline.ts';
import { BENCH_DIR, IMAGES_DIR, loadSet } from './build-set.ts';
import { composite, psnr, render } from './metrics.ts';

const ROOT = join(BENCH_DIR, '..', '..');
/** A few soft images (issue 18's subject), a shaded icon, a logo with gradients and fine line art. */
const NAMES = [
  'smooth/desktop-base-softwaves',
  'smooth/lomiri-warty-final-ubuntu',
  'smooth/gnome-face-smile',
  'icons/tango-weather-few-clouds',
  'logos/logos-firefox',
  'line-art/openclipart-crawfish2_bw_ganson',
];
/** Panels wider than this are scaled down, to keep each PNG small. */
const PANEL_MAX = 320;
const CAPTION = 22;
const GAP = 6;

const { values: flags } = parseArgs({
  options: {
    names: { type: 'string' },
    effort: { type: 'string', default: 'medium' },
    ref: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'docs', 'images', 'tracer') },
  },
});
const effort = flags.effort as ReasoningEffort;
const names = flags.names ? flags.names.split(',') : NAMES;
const atRef = flags.ref ? await loadBaseline(flags.ref) : null;
const inkwell = atRef ? atRef.traceImage : traceImage;

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const dataUri = (type: string, bytes: Buffer | string) => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;

const set = await loadSet();
mkdirSync(flags.out, { recursive: true });
for (const name of names) {
  const entry = set.find((m) => `${m.category}/${m.name}` === name);
  if (!entry) throw new Error(`gallery: no image ${name} in the set (category/name, as in .cache/images/manifest.json)`);
  const sourcePng = readFileSync(join(IMAGES_DIR, entry.file));
  const { data, info } = await sharp(sourcePng).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const image = { width: info.width, height: info.height, pixels: data };
  const traces = [
    { label: 'VTracer (defaults)', svg: await vectorizeRaw(image.pixels, { width: image.width, height: image.height }) },
    { label: atRef ? `Inkwell (${atRef.commit})` : 'Inkwell', svg: (await inkwell(image, { effort })).svg },
  ];
  // PSNR on white at the source size, as the benchmark measures it.
  const white = composite(image.pixels, 255, false);
  const captions = [`source, ${image.width}×${image.height}`];
  for (const t of traces) {
    const rendered = await render(t.svg, image.width, image.height);
    captions.push(`${t.label}: ${(Buffer.byteLength(t.svg) / 1024).toFixed(1)} KiB, ${psnr(white, composite(rendered.pixels, 255, true)).toFixed(1)} dB`);
  }

  const scale = Math.min(1, PANEL_MAX / image.width);
  const w = Math.round(image.width * scale);
  const h = Math.round(image.height * scale);
  const hrefs = [dataUri('image/png', sourcePng), ...traces.map((t) => dataUri('image/svg+xml', t.svg))];
  const width = hrefs.length * w + (hrefs.length - 1) * GAP;
  const height = h + CAPTION;
  const panels = hrefs.map((href, i) => {
    const x = i * (w + GAP);
    return (
      `<rect x="${x}" y="${CAPTION}" width="${w}" height="${h}" fill="${entry.transparent ? 'url(#checker)' : '#fff'}"/>` +
      `<image x="${x}" y="${CAPTION}" width="${w}" height="${h}" preserveAspectRatio="none" href="${href}"/>` +
      `<text x="${x + w / 2}" y="${CAPTION - 7}" text-anchor="middle">${escape(captions[i]!)}</text>`
    );
  });
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans, sans-serif" font-size="11" fill="#333">` +
    '<defs><pattern id="checker" width="16" height="16" patternUnits="userSpaceOnUse"><rect width="16" height="16" fill="#fff"/><path d="M0 0h8v8H0zM8 8h8v8H8z" fill="#ddd"/></pattern></defs>' +
    `<rect width="${width}" height="${height}" fill="#fff"/>${panels.join('')}</svg>`;
  const png = new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng();
  const file = join(flags.out, `${entry.name}.png`);
  writeFileSync(file, await sharp(png).png({ compressionLevel: 9, adaptiveFiltering: true }).toBuffer());
  console.log(`${relative(ROOT, file)}: ${captions.join(' | ')}`);
}
