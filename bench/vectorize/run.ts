/**
 * Tracer benchmark: Inkwell's built-in tracer (traceImage) against raw VTracer defaults
 * (@neplex/vectorizer's vectorizeRaw with no config), side by side in one process, on the image
 * set of build-set.ts. Every SVG is rendered back with resvg at the source size and compared with
 * the source: SSIM (grey and per RGB channel) and PSNR on white, SSIM on black for images with
 * transparency, plus output bytes, path count and trace time.
 * Usage: node --import tsx run.ts [--effort=low|medium|high|xhigh] [--category=NAME] [--limit=N] [--reps=N] [--dump] [--check]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { vectorizeRaw } from '@neplex/vectorizer';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import type { RgbaImage } from '../../src/engines/trace/pixels.ts';
import { traceImage } from '../../src/engines/trace/tracer.ts';
import type { ReasoningEffort } from '../../src/contract/common.ts';
import { BENCH_DIR, CACHE_DIR, CATEGORIES, IMAGES_DIR, loadSet, type ManifestEntry } from './build-set.ts';

const { values: flags } = parseArgs({
  options: {
    effort: { type: 'string', default: 'medium' },
    category: { type: 'string' },
    limit: { type: 'string' },
    reps: { type: 'string', default: '3' },
    dump: { type: 'boolean', default: false },
    check: { type: 'boolean', default: false }, // exit 1 when a target fails
  },
});
const EFFORTS = ['low', 'medium', 'high', 'xhigh'] as const satisfies readonly ReasoningEffort[];
const effort = flags.effort as (typeof EFFORTS)[number];
const usage = (message: string): never => {
  console.error(`bench:vectorize: ${message}`);
  process.exit(2);
};
if (!EFFORTS.includes(effort)) usage(`--effort must be one of ${EFFORTS.join(', ')}`);
const reps = Number(flags.reps);
if (flags.category && !(CATEGORIES as readonly string[]).includes(flags.category)) usage(`--category must be one of ${CATEGORIES.join(', ')}`);
if (!(reps >= 1) || (flags.limit && !(Number(flags.limit) >= 1))) usage('--reps and --limit take a number ≥ 1');

// ssim.js is this folder's own dependency, installed on first use (npm's output kept off the
// report's stdout). The root type-check runs without it installed, hence require + a local type.
if (!existsSync(join(BENCH_DIR, 'node_modules', 'ssim.js'))) {
  execFileSync('npm', ['ci'], { cwd: BENCH_DIR, stdio: ['ignore', 2, 2] });
}
interface ImageData { data: Uint8ClampedArray; width: number; height: number }
type Ssim = (a: ImageData, b: ImageData, options?: { downsample?: false | 'original' | 'fast'; ssim?: string }) => { mssim: number };
const { ssim } = createRequire(join(BENCH_DIR, 'package.json'))('ssim.js') as { ssim: Ssim };
// ssim.js's default (Weber's box-window algorithm, 11 px window), at full resolution: the default
// downsampling to ~256 px would hide the sub-pixel edge errors a tracer makes.
const SSIM_OPTIONS = { ssim: 'weber', downsample: false } as const;

const TRACERS = ['vtracer', 'inkwell'] as const;
type Tracer = (typeof TRACERS)[number];
const trace: Record<Tracer, (image: RgbaImage) => Promise<string>> = {
  vtracer: (image) => vectorizeRaw(image.pixels, { width: image.width, height: image.height }),
  inkwell: async (image) => (await traceImage(image, { effort })).svg,
};

interface Metrics {
  ssim: number; // grey (luma), both composited on white
  ssimR: number;
  ssimG: number;
  ssimB: number;
  ssimBlack: number | null; // grey, both composited on black; only for images with transparency
  psnr: number; // RGB on white, dB (capped at 100 for identical images)
  bytes: number;
  paths: number;
  ms: number;
}

/** Composites RGBA onto an opaque grey level; `premultiplied` is resvg's pixel layout. */
function composite(rgba: Uint8Array, bg: number, premultiplied: boolean): Uint8ClampedArray {
  const out = new Uint8ClampedArray(rgba.length);
  for (let i = 0; i < rgba.length; i += 4) {
    const a = rgba[i + 3]! / 255;
    for (let c = 0; c < 3; c++) out[i + c] = (premultiplied ? rgba[i + c]! : rgba[i + c]! * a) + bg * (1 - a);
    out[i + 3] = 255;
  }
  return out;
}

/** One channel copied into R, G and B, so ssim.js's luma conversion gives it back unchanged. */
function channel(rgba: Uint8ClampedArray, c: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(rgba.length);
  for (let i = 0; i < rgba.length; i += 4) {
    out[i] = out[i + 1] = out[i + 2] = rgba[i + c]!;
    out[i + 3] = 255;
  }
  return out;
}

function psnr(a: Uint8ClampedArray, b: Uint8ClampedArray): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 4) for (let c = 0; c < 3; c++) sum += (a[i + c]! - b[i + c]!) ** 2;
  const mse = sum / ((a.length / 4) * 3);
  return mse === 0 ? 100 : Math.min(100, 10 * Math.log10((255 * 255) / mse));
}

const countPaths = (svg: string) => (svg.match(/<(path|circle|rect|polygon|ellipse|polyline)\b/g) ?? []).length;

/** Renders an SVG at the source width; returns premultiplied RGBA of exactly the source size. */
async function render(svg: string, width: number, height: number): Promise<{ pixels: Uint8Array; png: Buffer }> {
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: width }, font: { loadSystemFonts: false } }).render();
  if (image.height === height) return { pixels: image.pixels, png: flags.dump ? image.asPng() : Buffer.alloc(0) };
  // A tracer whose viewBox rounds differently: stretch to the source size so pixels line up.
  const png = await sharp(image.asPng()).resize(width, height, { fit: 'fill' }).png().toBuffer();
  const straight = await sharp(png).ensureAlpha().raw().toBuffer();
  const pixels = new Uint8Array(straight.length);
  for (let i = 0; i < straight.length; i += 4) {
    const a = straight[i + 3]! / 255;
    for (let c = 0; c < 3; c++) pixels[i + c] = Math.round(straight[i + c]! * a);
    pixels[i + 3] = straight[i + 3]!;
  }
  return { pixels, png };
}

function measure(source: RgbaImage, transparent: boolean, rendered: Uint8Array): Omit<Metrics, 'bytes' | 'paths' | 'ms'> {
  const { width, height } = source;
  const img = (data: Uint8ClampedArray): ImageData => ({ data, width, height });
  const srcWhite = composite(source.pixels, 255, false);
  const outWhite = composite(rendered, 255, true);
  const [ssimR, ssimG, ssimB] = [0, 1, 2].map((c) => ssim(img(channel(srcWhite, c)), img(channel(outWhite, c)), SSIM_OPTIONS).mssim);
  return {
    ssim: ssim(img(srcWhite), img(outWhite), SSIM_OPTIONS).mssim,
    ssimR: ssimR!,
    ssimG: ssimG!,
    ssimB: ssimB!,
    ssimBlack: transparent ? ssim(img(composite(source.pixels, 0, false)), img(composite(rendered, 0, true)), SSIM_OPTIONS).mssim : null,
    psnr: psnr(srcWhite, outWhite),
  };
}

/** Source | VTracer | Inkwell on a checkerboard, so lost or gained transparency shows. */
async function triptych(sourcePng: Buffer, renders: Buffer[], width: number, height: number): Promise<Buffer> {
  const board = Buffer.alloc(width * 3 * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width * 3; x++) board.fill(((x >> 4) + (y >> 4)) % 2 ? 0xcc : 0xff, (y * width * 3 + x) * 3, (y * width * 3 + x) * 3 + 3);
  return sharp(board, { raw: { width: width * 3, height, channels: 3 } })
    .composite([sourcePng, ...renders].map((input, i) => ({ input, left: i * width, top: 0 })))
    .png()
    .toBuffer();
}

interface ImageResult {
  category: string;
  name: string;
  width: number;
  height: number;
  transparent: boolean;
  vtracer: Metrics;
  inkwell: Metrics;
}

async function main(): Promise<void> {
  let set = await loadSet();
  if (flags.category) set = set.filter((m) => m.category === flags.category);
  if (flags.limit) {
    // --limit=N keeps the first N of each category, so a short run still covers every category.
    const limit = Number(flags.limit);
    set = set.filter((m, i) => set.slice(0, i).filter((o) => o.category === m.category).length < limit);
  }
  const outDir = join(CACHE_DIR, 'out');
  console.error(`bench:vectorize: ${set.length} images, effort ${effort}, ${reps} timed runs each${flags.dump ? `, dumping to ${outDir}` : ''}`);

  const load = async (m: ManifestEntry): Promise<RgbaImage> => {
    const { data, info } = await sharp(join(IMAGES_DIR, m.file)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, pixels: data };
  };

  // One warm-up of each tracer (native module load, first-call allocations) before anything is timed.
  const first = await load(set[0]!);
  for (const t of TRACERS) await trace[t](first);

  const started = performance.now();
  const results: ImageResult[] = [];
  for (const [index, m] of set.entries()) {
    const source = await load(m);
    // Each tracer runs `reps` times, alternating which goes first so neither always runs on a
    // warmer cache; the median time counts (one sample per image is too noisy for a 1.2× target).
    const svgs = {} as Record<Tracer, { svg: string; ms: number }>;
    const times: Record<Tracer, number[]> = { vtracer: [], inkwell: [] };
    for (let rep = 0; rep < reps; rep++) {
      for (const t of (index + rep) % 2 === 0 ? TRACERS : ([...TRACERS].reverse() as Tracer[])) {
        const t0 = performance.now();
        const svg = await trace[t](source);
        times[t].push(performance.now() - t0);
        svgs[t] ??= { svg, ms: 0 };
      }
    }
    for (const t of TRACERS) svgs[t].ms = median(times[t]);
    const row = { category: m.category, name: m.name, width: m.width, height: m.height, transparent: m.transparent } as ImageResult;
    const pngs: Buffer[] = [];
    for (const t of TRACERS) {
      const { svg, ms } = svgs[t];
      const rendered = await render(svg, source.width, source.height);
      row[t] = { ...measure(source, m.transparent, rendered.pixels), bytes: Buffer.byteLength(svg), paths: countPaths(svg), ms };
      pngs.push(rendered.png);
      if (flags.dump) {
        mkdirSync(join(outDir, m.category), { recursive: true });
        writeFileSync(join(outDir, m.category, `${m.name}.${t}.svg`), svg);
      }
    }
    if (flags.dump) {
      const sourcePng = await sharp(join(IMAGES_DIR, m.file)).png().toBuffer();
      writeFileSync(join(outDir, m.category, `${m.name}.png`), await triptych(sourcePng, pngs, m.width, m.height));
    }
    results.push(row);
    const v = row.vtracer;
    const k = row.inkwell;
    console.error(`  ${m.category}/${m.name}: SSIM ${v.ssim.toFixed(3)} → ${k.ssim.toFixed(3)}, ${v.bytes} → ${k.bytes} B, ${v.ms.toFixed(0)} → ${k.ms.toFixed(0)} ms`);
  }

  const report = summarize(results);
  console.log(report.markdown);
  writeFileSync(join(CACHE_DIR, 'report.md'), report.markdown);
  writeFileSync(
    join(CACHE_DIR, 'results.json'),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, effort, seconds: (performance.now() - started) / 1000, summary: report.summary, images: results }, null, 2)}\n`,
  );
  console.error(`bench:vectorize: ${((performance.now() - started) / 1000).toFixed(1)} s; per image in ${join(CACHE_DIR, 'results.json')}`);
  if (flags.check && !report.pass) process.exitCode = 1;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
type Summary = Record<Tracer, Record<keyof Metrics, number>> & { n: number; transparent: number };

function summarizeGroup(rows: ImageResult[]): Summary {
  const pick = (t: Tracer) => {
    const avg = (k: keyof Metrics) => mean(rows.map((r) => r[t][k]).filter((x): x is number => x !== null));
    return { ssim: avg('ssim'), ssimR: avg('ssimR'), ssimG: avg('ssimG'), ssimB: avg('ssimB'), ssimBlack: avg('ssimBlack'), psnr: avg('psnr'), bytes: avg('bytes'), paths: avg('paths'), ms: avg('ms') };
  };
  return { n: rows.length, transparent: rows.filter((r) => r.transparent).length, vtracer: pick('vtracer'), inkwell: pick('inkwell') };
}

function summarize(results: ImageResult[]): { markdown: string; summary: Record<string, Summary>; pass: boolean } {
  const groups: Array<[string, ImageResult[]]> = CATEGORIES.map((c): [string, ImageResult[]] => [c, results.filter((r) => r.category === c)]).filter(([, rows]) => rows.length > 0);
  groups.push(['**all**', results]);
  const summary = Object.fromEntries(groups.map(([name, rows]) => [name.replaceAll('*', ''), summarizeGroup(rows)]));

  const f3 = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(3));
  const d3 = (x: number) => (Number.isNaN(x) ? '–' : `${x >= 0 ? '+' : ''}${x.toFixed(3)}`);
  const f1 = (x: number) => x.toFixed(1);
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const kb = (x: number) => (x / 1024).toFixed(1);
  const lines: string[] = [];
  lines.push(`Inkwell tracer (effort ${effort}) vs raw VTracer defaults: means per image; Δ = Inkwell − VTracer, × = Inkwell / VTracer.`, '');
  lines.push('| category | n | SSIM VT | SSIM IW | Δ | SSIM on black VT | IW | Δ (n) | PSNR VT | PSNR IW | KiB VT | KiB IW | × | paths VT | paths IW | ms VT | ms IW | × |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, s] of groups.map(([name]) => [name, summary[name.replaceAll('*', '')]!] as const)) {
    const v = s.vtracer;
    const k = s.inkwell;
    lines.push(
      `| ${name} | ${s.n} | ${f3(v.ssim)} | ${f3(k.ssim)} | ${d3(k.ssim - v.ssim)} | ${f3(v.ssimBlack)} | ${f3(k.ssimBlack)} | ${d3(k.ssimBlack - v.ssimBlack)} (${s.transparent}) | ${f1(v.psnr)} | ${f1(k.psnr)} | ${kb(v.bytes)} | ${kb(k.bytes)} | ${ratio(k.bytes, v.bytes)} | ${Math.round(v.paths)} | ${Math.round(k.paths)} | ${f1(v.ms)} | ${f1(k.ms)} | ${ratio(k.ms, v.ms)} |`,
    );
  }
  lines.push('', 'SSIM per RGB channel (on white):', '');
  lines.push('| category | R VT | R IW | G VT | G IW | B VT | B IW |', '|---|---:|---:|---:|---:|---:|---:|');
  for (const [name] of groups) {
    const s = summary[name.replaceAll('*', '')]!;
    lines.push(`| ${name} | ${f3(s.vtracer.ssimR)} | ${f3(s.inkwell.ssimR)} | ${f3(s.vtracer.ssimG)} | ${f3(s.inkwell.ssimG)} | ${f3(s.vtracer.ssimB)} | ${f3(s.inkwell.ssimB)} |`);
  }

  // Targets. Bytes and time compare totals over the set (= means per image).
  const all = summary.all!;
  const lower = groups.filter(([name]) => name !== '**all**').map(([name]) => [name, summary[name]!] as const).filter(([, s]) => s.inkwell.ssim < s.vtracer.ssim);
  const checks: Array<[boolean, string]> = [
    [all.inkwell.ssim - all.vtracer.ssim >= 0.03, `mean SSIM ${f3(all.inkwell.ssim)} vs ${f3(all.vtracer.ssim)}: Δ ${d3(all.inkwell.ssim - all.vtracer.ssim)} (target ≥ +0.030)`],
    [lower.length === 0, `no category below VTracer's SSIM${lower.length ? `: below in ${lower.map(([n, s]) => `${n} (${d3(s.inkwell.ssim - s.vtracer.ssim)})`).join(', ')}` : ''}`],
    [all.inkwell.bytes <= 0.5 * all.vtracer.bytes, `bytes ${ratio(all.inkwell.bytes, all.vtracer.bytes)} VTracer's (target ≤ 0.50×)`],
    [all.inkwell.ms <= 1.2 * all.vtracer.ms, `time ${ratio(all.inkwell.ms, all.vtracer.ms)} VTracer's (target ≤ 1.20×)`],
  ];
  const subset = flags.category || flags.limit ? ' (on a subset: the targets are for the full set)' : '';
  lines.push('', `Targets${subset}:`, '');
  for (const [ok, text] of checks) lines.push(`- ${ok ? 'PASS' : 'FAIL'} ${text}`);
  return { markdown: `${lines.join('\n')}\n`, summary, pass: checks.every(([ok]) => ok) };
}

await main();
