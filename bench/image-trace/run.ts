/**
 * Image-trace benchmark: what the engine delivers against the picture the image model returned,
 * and the time it adds to the model's own. An in-process Inkwell server has an image-trace entry
 * pointing at a scripted Images API (in this process) that answers each request with one picture
 * of the tracer's benchmark set (bench/vectorize), flattened on white as an image model paints a
 * plain background. Each picture is generated through POST /v1/svgs/generations (JSON, live key,
 * the viewBox the picture's own size), and the SVG is rendered back at that size and compared
 * with the picture on white: SSIM (grey, as bench/vectorize), bytes. The time added is the
 * request's wall time less the scripted API's (which answers at once): the picture's transfer,
 * checks and decode, the background clearing, the trace in a worker, the SVG pipeline, billing.
 * Beside it, the tracer alone on the same picture (background kept, in this process) gives the
 * SSIM and bytes the engine's background clearing changes.
 * Usage: node --import tsx bench/image-trace/run.ts [--category=NAME] [--limit=N] [--detail=low|medium|high|xhigh]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { decodeRgba } from '../../src/engines/trace/raster.ts';
import { traceImage } from '../../src/engines/trace/tracer.ts';
import { generate, startInkwell, startPictureServer } from './service.ts';
import { BENCH_DIR as SET_DIR, CATEGORIES, IMAGES_DIR, loadSet, type ManifestEntry } from '../vectorize/build-set.ts';
import { composite, render } from '../vectorize/metrics.ts';

const { values: flags } = parseArgs({
  options: {
    category: { type: 'string' },
    limit: { type: 'string' },
    detail: { type: 'string', default: 'medium' },
  },
});
const detail = flags.detail as 'low' | 'medium' | 'high' | 'xhigh';
if (!['low', 'medium', 'high', 'xhigh'].includes(detail)) throw new Error('--detail is low, medium, high or xhigh');

// ssim.js is bench/vectorize's own dependency (installed there on first use).
if (!existsSync(join(SET_DIR, 'node_modules', 'ssim.js'))) execFileSync('npm', ['ci'], { cwd: SET_DIR, stdio: ['ignore', 2, 2] });
interface ImageData { data: Uint8ClampedArray; width: number; height: number }
const { ssim } = createRequire(join(SET_DIR, 'package.json'))('ssim.js') as { ssim: (a: ImageData, b: ImageData, options?: object) => { mssim: number } };
const SSIM_OPTIONS = { ssim: 'weber', downsample: false } as const;

interface Row {
  category: string;
  name: string;
  ssim: number;
  bytes: number;
  addedMs: number;
  tracerSsim: number;
  tracerBytes: number;
}

const greySsim = (picture: Uint8ClampedArray, rendered: Uint8Array, width: number, height: number) =>
  ssim({ data: picture, width, height }, { data: composite(rendered, 255, true), width, height }, SSIM_OPTIONS).mssim;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.9) - 1]!;
const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

async function main(): Promise<void> {
  let set: ManifestEntry[] = await loadSet();
  if (flags.category) set = set.filter((entry) => entry.category === flags.category);
  if (flags.limit) set = set.filter((entry, i) => set.slice(0, i).filter((other) => other.category === entry.category).length < Number(flags.limit));
  const api = await startPictureServer();
  const inkwell = await startInkwell(api.url, detail);
  const rows: Row[] = [];
  try {
    // One warm-up request: the first starts connections and a tracer worker.
    api.next(await sharp(join(IMAGES_DIR, set[0]!.file)).flatten({ background: '#ffffff' }).png().toBuffer());
    await generate(inkwell, set[0]!);
    for (const entry of set) {
      const png = await sharp(join(IMAGES_DIR, entry.file)).flatten({ background: '#ffffff' }).png().toBuffer();
      api.next(png);
      const started = performance.now();
      const svg = await generate(inkwell, entry);
      const wallMs = performance.now() - started;
      const picture = await decodeRgba(png);
      const flat = composite(picture.pixels, 255, false);
      const rendered = await render(svg, entry.width, entry.height);
      const alone = (await traceImage(picture, { effort: detail })).svg;
      const renderedAlone = await render(alone, entry.width, entry.height);
      rows.push({
        category: entry.category,
        name: entry.name,
        ssim: greySsim(flat, rendered.pixels, entry.width, entry.height),
        bytes: Buffer.byteLength(svg),
        addedMs: wallMs - api.answerMs(),
        tracerSsim: greySsim(flat, renderedAlone.pixels, entry.width, entry.height),
        tracerBytes: Buffer.byteLength(alone),
      });
    }
  } finally {
    await inkwell.close();
    api.close();
  }
  const lines = [
    `image-trace benchmark: ${rows.length} pictures of the tracer's set on white, trace_detail ${detail}`,
    '',
    '| category | pictures | SSIM (engine) | KB (engine) | SSIM (tracer alone) | KB (tracer alone) | added ms (median) | added ms (p90) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const group = (name: string, of: Row[]) =>
    `| ${name} | ${of.length} | ${mean(of.map((r) => r.ssim)).toFixed(3)} | ${(mean(of.map((r) => r.bytes)) / 1024).toFixed(1)} | ${mean(of.map((r) => r.tracerSsim)).toFixed(3)} | ${(mean(of.map((r) => r.tracerBytes)) / 1024).toFixed(1)} | ${median(of.map((r) => r.addedMs)).toFixed(0)} | ${p90(of.map((r) => r.addedMs)).toFixed(0)} |`;
  for (const category of CATEGORIES) {
    const of = rows.filter((r) => r.category === category);
    if (of.length > 0) lines.push(group(category, of));
  }
  lines.push(group('**all**', rows));
  const report = lines.join('\n');
  console.log(report);
  const out = join(import.meta.dirname, '.cache');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'report.md'), `${report}\n`);
  writeFileSync(join(out, 'results.json'), JSON.stringify(rows, null, 1));
}

await main();
