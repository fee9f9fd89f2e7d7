/**
 * Tracer benchmark: raw VTracer defaults (@neplex/vectorizer's vectorizeRaw with no config), the
 * Inkwell tracer at a baseline commit (baseline.ts) and the working tree's Inkwell tracer
 * (traceImage), side by side in one process, on the image set of build-set.ts. Every SVG is
 * rendered back with resvg at the source size and compared with the source: SSIM (grey and per
 * RGB channel), PSNR and GMSD on white, SSIM on black for images with transparency, plus output
 * bytes, path count and trace time. Ends with the target checks.
 * Usage: node --import tsx run.ts [--effort=low|medium|high|xhigh] [--baseline=REF|none] [--category=NAME] [--limit=N] [--reps=N] [--dump] [--check]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { vectorizeRaw } from '@neplex/vectorizer';
import sharp from 'sharp';
import type { RgbaImage } from '../../src/engines/trace/pixels.ts';
import { traceImage } from '../../src/engines/trace/tracer.ts';
import type { ReasoningEffort } from '../../src/contract/common.ts';
import { loadBaseline } from './baseline.ts';
import { BENCH_DIR, CACHE_DIR, CATEGORIES, IMAGES_DIR, loadSet, type ManifestEntry } from './build-set.ts';
import { channel, composite, gmsd, psnr, render, sideBySide } from './metrics.ts';

/** The Inkwell tracer before issue 18's work (smooth colour, faster bi-level path). */
const DEFAULT_BASELINE = 'ed05220';

const { values: flags } = parseArgs({
  options: {
    effort: { type: 'string', default: 'medium' },
    baseline: { type: 'string', default: DEFAULT_BASELINE }, // a git ref, or `none`
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

type Tracer = 'vtracer' | 'baseline' | 'inkwell';
const LABEL: Record<Tracer, string> = { vtracer: 'VT', baseline: 'base', inkwell: 'IW' };
const baseline = flags.baseline === 'none' ? null : await loadBaseline(flags.baseline!).catch((error: Error) => usage(error.message));
const TRACERS: Tracer[] = baseline ? ['vtracer', 'baseline', 'inkwell'] : ['vtracer', 'inkwell'];
const trace: Record<Tracer, (image: RgbaImage) => Promise<string>> = {
  vtracer: (image) => vectorizeRaw(image.pixels, { width: image.width, height: image.height }),
  baseline: async (image) => (await baseline!.traceImage(image, { effort })).svg,
  inkwell: async (image) => (await traceImage(image, { effort })).svg,
};

interface Metrics {
  ssim: number; // grey (luma), both composited on white
  ssimR: number;
  ssimG: number;
  ssimB: number;
  ssimBlack: number | null; // grey, both composited on black; only for images with transparency
  psnr: number; // RGB on white, dB (capped at 100 for identical images)
  gmsd: number; // luma on white, lower is better (metrics.ts)
  bytes: number;
  paths: number;
  ms: number;
}

const countPaths = (svg: string) => (svg.match(/<(path|circle|rect|polygon|ellipse|polyline)\b/g) ?? []).length;

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
    gmsd: gmsd(srcWhite, outWhite, width, height),
  };
}

interface ImageResult {
  category: string;
  name: string;
  width: number;
  height: number;
  transparent: boolean;
  tracers: Partial<Record<Tracer, Metrics>>;
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
  console.error(
    `bench:vectorize: ${set.length} images, effort ${effort}, ${reps} timed runs each, baseline ${baseline ? baseline.commit : 'none'}${flags.dump ? `, dumping to ${outDir}` : ''}`,
  );

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
    // Each tracer runs `reps` times; the order rotates with the image and the run, so none always
    // runs first on a cold cache or last on a warm one. The median time counts (one sample per
    // image is too noisy for a 1.2× target).
    const svgs: Partial<Record<Tracer, string>> = {};
    const times = Object.fromEntries(TRACERS.map((t) => [t, [] as number[]])) as Record<Tracer, number[]>;
    for (let rep = 0; rep < reps; rep++) {
      for (let j = 0; j < TRACERS.length; j++) {
        const t = TRACERS[(j + index + rep) % TRACERS.length]!;
        const t0 = performance.now();
        const svg = await trace[t](source);
        times[t].push(performance.now() - t0);
        svgs[t] ??= svg;
      }
    }
    const row: ImageResult = { category: m.category, name: m.name, width: m.width, height: m.height, transparent: m.transparent, tracers: {} };
    const pngs: Buffer[] = [];
    for (const t of TRACERS) {
      const svg = svgs[t]!;
      const rendered = await render(svg, source.width, source.height, flags.dump);
      row.tracers[t] = { ...measure(source, m.transparent, rendered.pixels), bytes: Buffer.byteLength(svg), paths: countPaths(svg), ms: median(times[t]) };
      pngs.push(rendered.png);
      if (flags.dump) {
        mkdirSync(join(outDir, m.category), { recursive: true });
        writeFileSync(join(outDir, m.category, `${m.name}.${t}.svg`), svg);
      }
    }
    if (flags.dump) {
      const sourcePng = readFileSync(join(IMAGES_DIR, m.file));
      writeFileSync(join(outDir, m.category, `${m.name}.png`), await sideBySide([sourcePng, ...pngs], m.width, m.height));
    }
    results.push(row);
    const figures = (f: (x: Metrics) => string) => TRACERS.map((t) => f(row.tracers[t]!)).join(' / ');
    console.error(
      `  ${m.category}/${m.name} (${TRACERS.map((t) => LABEL[t]).join(' / ')}): SSIM ${figures((x) => x.ssim.toFixed(3))}, PSNR ${figures((x) => x.psnr.toFixed(1))}, ` +
        `GMSD ${figures((x) => x.gmsd.toFixed(3))}, ${figures((x) => String(x.bytes))} B, ${figures((x) => x.ms.toFixed(0))} ms`,
    );
  }

  const seconds = (performance.now() - started) / 1000;
  const report = summarize(results);
  console.log(report.markdown);
  writeFileSync(join(CACHE_DIR, 'report.md'), report.markdown);
  writeFileSync(
    join(CACHE_DIR, 'results.json'),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, effort, reps, baseline: baseline?.commit ?? null, seconds, summary: report.summary, images: results }, null, 2)}\n`,
  );
  console.error(`bench:vectorize: ${seconds.toFixed(1)} s; per image in ${join(CACHE_DIR, 'results.json')}`);
  if (flags.check && !report.pass) process.exitCode = 1;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
type Means = Record<keyof Metrics, number>;
type Summary = { n: number; transparent: number } & Partial<Record<Tracer, Means>>;

function summarizeGroup(rows: ImageResult[]): Summary {
  const summary: Summary = { n: rows.length, transparent: rows.filter((r) => r.transparent).length };
  for (const t of TRACERS) {
    // Means per image; SSIM on black over the images that have it.
    const avg = (k: keyof Metrics) => mean(rows.map((r) => r.tracers[t]![k]).filter((x): x is number => x !== null));
    summary[t] = { ssim: avg('ssim'), ssimR: avg('ssimR'), ssimG: avg('ssimG'), ssimB: avg('ssimB'), ssimBlack: avg('ssimBlack'), psnr: avg('psnr'), gmsd: avg('gmsd'), bytes: avg('bytes'), paths: avg('paths'), ms: avg('ms') };
  }
  return summary;
}

// Issue 18's targets, against the baseline unless said otherwise.
const SMOOTH_PSNR_GAIN = 5; // dB
/** "Clearly better" GMSD: at least 20 % lower than the baseline's. */
const SMOOTH_GMSD_RATIO = 0.8;
const OTHER_SSIM_LOSS = 0.005;
const OTHER_BYTES_RATIO = 1.1;
const TIME_RATIO = 1.2; // total, against VTracer
const BILEVEL_TIME_RATIO = 1.5; // line art and logos, each against VTracer

function summarize(results: ImageResult[]): { markdown: string; summary: Record<string, Summary>; pass: boolean } {
  const categories = CATEGORIES.filter((c) => results.some((r) => r.category === c));
  const summary: Record<string, Summary> = Object.fromEntries(categories.map((c) => [c, summarizeGroup(results.filter((r) => r.category === c))]));
  summary.all = summarizeGroup(results);
  const rows: Array<[string, Summary]> = [...categories.map((c): [string, Summary] => [c, summary[c]!]), ['**all**', summary.all]];

  const f3 = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(3));
  const d3 = (x: number) => (Number.isNaN(x) ? '–' : `${x >= 0 ? '+' : ''}${x.toFixed(3)}`);
  const f1 = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(1));
  const d1 = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const kb = (x: number) => (x / 1024).toFixed(1);
  const cells = (s: Summary, k: keyof Metrics, fmt: (x: number) => string) => TRACERS.map((t) => fmt(s[t]![k])).join(' | ');
  const heads = (name: string) => TRACERS.map((t, i) => (i === 0 ? `${name} ${LABEL[t]}` : LABEL[t])).join(' | ');
  const align = (n: number) => `|---|${'---:|'.repeat(n)}`;
  const lines: string[] = [];
  lines.push(
    `Tracers: VT = raw VTracer defaults, ${baseline ? `base = Inkwell's tracer at ${baseline.commit}, ` : ''}IW = Inkwell's tracer in the working tree; effort ${effort}. Means per image, on white unless said.`,
    '',
  );
  const k = TRACERS.length;
  lines.push(`| category | n | ${heads('SSIM')} | ${heads('PSNR')} | ${heads('GMSD')} |`, align(1 + 3 * k));
  for (const [name, s] of rows) lines.push(`| ${name} | ${s.n} | ${cells(s, 'ssim', f3)} | ${cells(s, 'psnr', f1)} | ${cells(s, 'gmsd', f3)} |`);

  const vsBase = baseline ? ' IW/base |' : '';
  lines.push('', 'Size and time (KiB of SVG, path elements, trace ms):', '');
  lines.push(`| category | ${heads('KiB')} | IW/VT |${vsBase} ${heads('paths')} | ${heads('ms')} | IW/VT |${vsBase}`, align(3 * k + 2 + (baseline ? 2 : 0)));
  for (const [name, s] of rows) {
    const vs = (key: 'bytes' | 'ms') => `${ratio(s.inkwell![key], s.vtracer![key])} |${baseline ? ` ${ratio(s.inkwell![key], s.baseline![key])} |` : ''}`;
    lines.push(`| ${name} | ${cells(s, 'bytes', kb)} | ${vs('bytes')} ${cells(s, 'paths', (x) => String(Math.round(x)))} | ${cells(s, 'ms', f1)} | ${vs('ms')}`);
  }

  lines.push('', 'SSIM on black (over the n images with transparency) and SSIM per RGB channel (on white):', '');
  lines.push(`| category | n | ${heads('black')} | ${heads('R')} | ${heads('G')} | ${heads('B')} |`, align(1 + 4 * k));
  for (const [name, s] of rows) {
    lines.push(`| ${name} | ${s.transparent} | ${cells(s, 'ssimBlack', f3)} | ${cells(s, 'ssimR', f3)} | ${cells(s, 'ssimG', f3)} | ${cells(s, 'ssimB', f3)} |`);
  }

  // Targets: PASS/FAIL, or SKIP when this run lacks what a target needs (a category or the baseline).
  const checks: Array<[boolean | null, string]> = [];
  const all = summary.all;
  const iw = all.inkwell!;
  const vt = all.vtracer!;
  checks.push([iw.ssim - vt.ssim >= 0.03, `mean SSIM ${f3(iw.ssim)} vs VTracer's ${f3(vt.ssim)}: Δ ${d3(iw.ssim - vt.ssim)} (target ≥ +0.030)`]);
  const belowVt = categories.filter((c) => summary[c]!.inkwell!.ssim < summary[c]!.vtracer!.ssim);
  checks.push([belowVt.length === 0, `no category below VTracer's SSIM${belowVt.map((c, i) => `${i ? ',' : ': below in'} ${c} (${d3(summary[c]!.inkwell!.ssim - summary[c]!.vtracer!.ssim)})`).join('')}`]);
  checks.push([iw.bytes <= 0.5 * vt.bytes, `bytes ${ratio(iw.bytes, vt.bytes)} VTracer's (target ≤ 0.50×)`]);
  checks.push([iw.ms <= TIME_RATIO * vt.ms, `time ${ratio(iw.ms, vt.ms)} VTracer's (target ≤ ${TIME_RATIO.toFixed(2)}×)`]);
  for (const c of ['line-art', 'logos']) {
    const s = summary[c];
    checks.push(s ? [s.inkwell!.ms <= BILEVEL_TIME_RATIO * s.vtracer!.ms, `${c} time ${ratio(s.inkwell!.ms, s.vtracer!.ms)} VTracer's: ${f1(s.inkwell!.ms)} vs ${f1(s.vtracer!.ms)} ms (target ≤ ${BILEVEL_TIME_RATIO.toFixed(2)}×)`] : [null, `${c} time (target ≤ ${BILEVEL_TIME_RATIO.toFixed(2)}× VTracer's): ${c} not in this run`]);
  }
  const smooth = summary.smooth;
  if (!baseline) {
    checks.push([null, 'the targets against the baseline: --baseline=none']);
  } else if (!smooth) {
    checks.push([null, 'smooth PSNR, GMSD and bytes against the baseline: smooth not in this run']);
  } else {
    const [b, n] = [smooth.baseline!, smooth.inkwell!];
    checks.push([n.psnr >= b.psnr + SMOOTH_PSNR_GAIN, `smooth PSNR ${f1(n.psnr)} vs baseline's ${f1(b.psnr)} dB: Δ ${d1(n.psnr - b.psnr)} (target ≥ +${SMOOTH_PSNR_GAIN}.0)`]);
    checks.push([n.gmsd <= SMOOTH_GMSD_RATIO * b.gmsd, `smooth GMSD ${f3(n.gmsd)} vs baseline's ${f3(b.gmsd)}: ${ratio(n.gmsd, b.gmsd)} (target ≤ ${SMOOTH_GMSD_RATIO.toFixed(2)}×, at least 20 % lower)`]);
    checks.push([n.bytes <= b.bytes, `smooth bytes ${kb(n.bytes)} vs baseline's ${kb(b.bytes)} KiB: ${ratio(n.bytes, b.bytes)} (target ≤ 1.00×)`]);
  }
  const others = categories.filter((c) => c !== 'smooth');
  if (baseline && others.length > 0) {
    const ssimLoss = (c: string) => summary[c]!.baseline!.ssim - summary[c]!.inkwell!.ssim;
    const bytesRatio = (c: string) => summary[c]!.inkwell!.bytes / summary[c]!.baseline!.bytes;
    const worstSsim = others.reduce((a, c) => (ssimLoss(c) > ssimLoss(a) ? c : a));
    const worstBytes = others.reduce((a, c) => (bytesRatio(c) > bytesRatio(a) ? c : a));
    checks.push([ssimLoss(worstSsim) <= OTHER_SSIM_LOSS, `every other category's SSIM at least baseline's − ${OTHER_SSIM_LOSS}: worst ${worstSsim}, Δ ${d3(-ssimLoss(worstSsim))}`]);
    checks.push([bytesRatio(worstBytes) <= OTHER_BYTES_RATIO, `every other category's bytes at most ${OTHER_BYTES_RATIO.toFixed(2)}× baseline's: worst ${worstBytes}, ${bytesRatio(worstBytes).toFixed(2)}×`]);
  }
  const subset = flags.category || flags.limit ? ' (on a subset: the targets are for the full set)' : '';
  lines.push('', `Targets${subset}:`, '');
  for (const [ok, text] of checks) lines.push(`- ${ok === null ? 'SKIP' : ok ? 'PASS' : 'FAIL'} ${text}`);
  return { markdown: `${lines.join('\n')}\n`, summary, pass: checks.every(([ok]) => ok !== false) };
}

await main();
