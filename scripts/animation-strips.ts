// Regenerates the frame strips of docs/animations.md: every motion of the built-in animator
// (and a few combinations and automatic choices) on a small drawing, as a row of frames rendered
// with resvg from the exact frames the animator computes. Run with `npm run docs:animations`.
//
// Writes docs/animations/<name>.png and the part of docs/animations.md between the markers
// `<!-- strips:begin -->` and `<!-- strips:end -->`.

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Resvg } from '@resvg/resvg-js';
import sharp, { type OverlayOptions } from 'sharp';
import { animate, type Animation } from '../src/engines/motion/animator.ts';
import { MOTIONS, type MotionName } from '../src/engines/motion/motions/index.ts';
import { frameAt } from '../src/engines/motion/frame.ts';
import { finishSvg } from '../src/svg/pipeline.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'docs', 'animations');
const DOC = join(ROOT, 'docs', 'animations.md');

const svg = (viewBox: string, body: string) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${viewBox}">${body}</svg>`;

const HOUSE = svg(
  '0 0 100 100',
  '<g fill="none" stroke="#1f2937" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"><path d="M18 50 L50 20 L82 50"/><path d="M27 43 V82 H73 V43"/><rect x="43" y="58" width="14" height="24"/><circle cx="62" cy="52" r="5"/></g>',
);
const SHAPES = svg(
  '0 0 200 100',
  '<rect x="22" y="30" width="40" height="40" rx="4" fill="#f4a261"/><circle cx="100" cy="50" r="22" fill="#2a9d8f"/><polygon points="150,28 176,72 124,72" fill="#e76f51"/>',
);
const STAR = svg('0 0 100 100', '<polygon points="50,14 60,40 88,40 65,57 74,84 50,67 26,84 35,57 12,40 40,40" fill="#f9c74f" stroke="#c48a00" stroke-width="2" stroke-linejoin="round"/>');
const ARROW = svg('0 0 160 80', '<path d="M40 30 H92 V18 L120 40 L92 62 V50 H40 Z" fill="#4361ee"/>');
const HEART = svg(
  '0 0 120 100',
  '<rect id="frame" x="6" y="6" width="108" height="88" rx="8" fill="none" stroke="#334155" stroke-width="2"/><path id="heart" d="M60 78 C20 52 28 22 48 26 C56 28 60 36 60 38 C60 36 64 28 72 26 C92 22 100 52 60 78 Z" fill="#e0245e"/>',
);
const WHEEL = svg(
  '0 0 100 100',
  '<circle cx="50" cy="50" r="36" fill="#e5e7eb" stroke="#374151" stroke-width="6"/><circle cx="50" cy="50" r="7" fill="#374151"/><g stroke="#374151" stroke-width="3"><line x1="50" y1="50" x2="50" y2="14"/><line x1="50" y1="50" x2="81.2" y2="32"/><line x1="50" y1="50" x2="81.2" y2="68"/><line x1="50" y1="50" x2="50" y2="86"/><line x1="50" y1="50" x2="18.8" y2="68"/><line x1="50" y1="50" x2="18.8" y2="32"/></g><circle cx="50" cy="20" r="3" fill="#ef4444"/>',
);
const BALL = svg('0 0 100 100', '<rect x="0" y="92" width="100" height="8" fill="#94a3b8"/><g id="ball"><circle cx="50" cy="76" r="16" fill="#ef476f"/><path d="M36 70 Q50 60 64 70" fill="none" stroke="#fff" stroke-width="2"/></g>');
const BALLOON = svg('0 0 100 100', '<path d="M50 72 V92" stroke="#64748b" stroke-width="1.5"/><ellipse cx="50" cy="44" rx="22" ry="27" fill="#8338ec"/><path d="M46 70 L54 70 L50 75 Z" fill="#8338ec"/><ellipse cx="42" cy="34" rx="5" ry="8" fill="#fff" opacity="0.35"/>');
const BELL = svg('0 0 100 100', '<path d="M50 16 C32 16 28 34 28 50 L22 68 H78 L72 50 C72 34 68 16 50 16 Z" fill="#ffb703"/><circle cx="50" cy="74" r="7" fill="#fb8500"/><rect x="46" y="10" width="8" height="8" rx="2" fill="#fb8500"/>');
const PHONE = svg('0 0 100 100', '<rect x="32" y="16" width="36" height="68" rx="6" fill="#1e293b"/><rect x="36" y="24" width="28" height="48" rx="2" fill="#38bdf8"/><circle cx="50" cy="78" r="3" fill="#94a3b8"/>');
const CART = svg(
  '0 0 160 100',
  '<rect x="20" y="30" width="120" height="36" rx="4" fill="#c1121f"/><g id="wheel-left" transform="translate(45 72)"><circle r="14" fill="#ddd" stroke="#222" stroke-width="3"/><path d="M-14 0H14M0 -14V14" stroke="#222" stroke-width="2"/></g><g id="wheel-right" transform="translate(115 72)"><circle r="14" fill="#ddd" stroke="#222" stroke-width="3"/><path d="M-14 0H14M0 -14V14" stroke="#222" stroke-width="2"/></g>',
);

interface Strip {
  name: string;
  /** The motion it shows, whose summary is printed with it. */
  motion?: MotionName;
  title: string;
  drawing: string;
  prompt?: string;
  frames?: number;
  /** Times within the first loop cycle to show instead of evenly spread ones (bursts: wiggle, shake). */
  loopTimes?: number[];
}

const STRIPS: Strip[] = [
  { name: 'draw', motion: 'draw', title: 'Draw-on', drawing: HOUSE, prompt: 'draw it' },
  { name: 'fade', motion: 'fade', title: 'Fade in', drawing: SHAPES, prompt: 'fade in' },
  { name: 'pop', motion: 'pop', title: 'Pop in', drawing: STAR, prompt: 'pop in' },
  { name: 'slide', motion: 'slide', title: 'Slide in', drawing: ARROW, prompt: 'slide in from the left' },
  { name: 'stagger', motion: 'stagger', title: 'Staggered entrance', drawing: SHAPES, prompt: 'one by one' },
  { name: 'pulse', motion: 'pulse', title: 'Pulse', drawing: HEART, prompt: 'pulse the heart' },
  { name: 'spin', motion: 'spin', title: 'Spin', drawing: WHEEL, prompt: 'spin' },
  { name: 'bounce', motion: 'bounce', title: 'Bounce', drawing: BALL, prompt: 'bounce the ball', frames: 10 },
  { name: 'float', motion: 'float', title: 'Float', drawing: BALLOON, prompt: 'float' },
  { name: 'wiggle', motion: 'wiggle', title: 'Wiggle', drawing: BELL, prompt: 'wiggle', loopTimes: [0, 96, 192, 288, 384, 480, 576, 672, 768, 960] },
  { name: 'shake', motion: 'shake', title: 'Shake', drawing: PHONE, prompt: 'shake', loopTimes: [0, 100, 200, 300, 400, 500, 600, 700, 800, 1000] },
  { name: 'colour', motion: 'colour', title: 'Colour shift', drawing: SHAPES, prompt: 'colour shift' },
  { name: 'combo-heart', title: '"draw the outline, then pulse the heart"', drawing: HEART, prompt: 'draw the outline, then pulse the heart', frames: 10 },
  { name: 'combo-cart', title: '"slide in from the left, then spin the wheels"', drawing: CART, prompt: 'slide in from the left, then spin the wheels', frames: 10 },
  { name: 'auto-line-art', title: 'No prompt, line art', drawing: HOUSE },
  { name: 'auto-shapes', title: 'No prompt, a few solid shapes', drawing: SHAPES, frames: 10 },
  { name: 'auto-wheel', title: 'No prompt, a wheel', drawing: WHEEL, frames: 10 },
];

const FRAME_HEIGHT = 96;
const GAP = 6;

/** Times to show: the opening evenly, then one loop cycle evenly (the cycle's end is its start again). */
export function stripTimes(animation: Animation, count: number): number[] {
  const opening = animation.openingAnimationMs ?? 0;
  const loop = animation.loopPeriodMs;
  if (!loop) return Array.from({ length: count }, (_, i) => Math.round((opening * i) / (count - 1)));
  if (opening === 0) return Array.from({ length: count }, (_, i) => Math.round((loop * i) / count));
  const openingFrames = Math.max(2, Math.round(count * 0.4));
  const loopFrames = count - openingFrames;
  return [
    ...Array.from({ length: openingFrames }, (_, i) => Math.round((opening * i) / (openingFrames - 1))),
    ...Array.from({ length: loopFrames }, (_, i) => Math.round(opening + (loop * (i + 1)) / (loopFrames + 1))),
  ];
}

async function renderStrip(svgText: string, times: number[]): Promise<Buffer> {
  const frames = times.map((t) => {
    const resvg = new Resvg(frameAt(svgText, t), { fitTo: { mode: 'height', value: FRAME_HEIGHT }, background: '#ffffff', font: { loadSystemFonts: false } });
    const image = resvg.render();
    return { png: Buffer.from(image.asPng()), width: image.width };
  });
  const width = frames.reduce((w, f) => w + f.width + 2, 0) + GAP * (frames.length + 1);
  const height = FRAME_HEIGHT + 2 + 2 * GAP;
  let x = GAP;
  const layers: OverlayOptions[] = [];
  for (const frame of frames) {
    // A one-pixel grey border marks the viewBox.
    layers.push({ input: { create: { width: frame.width + 2, height: FRAME_HEIGHT + 2, channels: 4, background: '#cbd5e1' } }, left: x, top: GAP });
    layers.push({ input: frame.png, left: x + 1, top: GAP + 1 });
    x += frame.width + 2 + GAP;
  }
  return sharp({ create: { width, height, channels: 4, background: '#f1f5f9' } }).composite(layers).png().toBuffer();
}

function describe(animation: Animation): string {
  return animation.motions
    .map((m) => {
      const name = m.insteadOf ? `${m.motion} (instead of ${m.insteadOf})` : m.motion;
      return m.endMs === null ? `${name} loop, ${m.periodMs} ms a cycle` : `${name} ${m.startMs}–${m.endMs} ms`;
    })
    .join('; ');
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const sections: string[] = [];
  for (const strip of STRIPS) {
    const source = finishSvg(strip.drawing);
    const animation = animate(source, strip.prompt);
    const delivered = finishSvg(animation.svg);
    const loopStart = animation.openingAnimationMs ?? 0;
    const times = strip.loopTimes ? strip.loopTimes.map((t) => loopStart + t) : stripTimes(animation, strip.frames ?? 8);
    writeFileSync(join(OUT, `${strip.name}.png`), await renderStrip(delivered, times));
    const prompt = strip.prompt ? `Prompt \`${strip.prompt}\`` : 'No prompt';
    const summary = strip.motion ? `${MOTIONS[strip.motion].summary}\n\n` : '';
    sections.push(
      `### ${strip.title}\n\n${summary}![${strip.title}](animations/${strip.name}.png)\n\n` +
        `${prompt} → ${describe(animation)}. Frames at ${times.map((t) => `${t}`).join(', ')} ms.`,
    );
    console.log(`${strip.name}: ${describe(animation)}`);
  }
  let doc = readFileSync(DOC, 'utf8');
  doc = replaceSection(doc, 'strips', sections.join('\n\n'));
  doc = replaceSection(doc, 'words', wordTable());
  writeFileSync(DOC, doc);
}

/** The prompt words of every motion, from the motion modules themselves. */
function wordTable(): string {
  const rows = Object.values(MOTIONS).map((m) => `| \`${m.name}\` | ${m.kind === 'loop' ? 'loop' : 'opening'} | ${m.words.join(', ')} |`);
  return ['| motion | kind | words (every form listed is understood; case and punctuation do not matter) |', '|---|---|---|', ...rows].join('\n');
}

function replaceSection(doc: string, name: string, body: string): string {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const from = doc.indexOf(begin);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${DOC} has no ${begin} … ${end} section`);
  return `${doc.slice(0, from + begin.length)}\n\n${body}\n\n${doc.slice(to)}`;
}

await main();
