import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { vectorizeRaw, type Config } from '@neplex/vectorizer';
import sharp from 'sharp';
import { compactPathData, compactPathPieces, hexColour } from '../../../src/engines/trace/path-data.ts';

/**
 * Characterization of the path-data writer: its output over a fixed corpus is pinned by a hash
 * captured from the writer before it was split into named steps (commit 10f5f45). A change to
 * the writer's output, however small, fails here; if one is ever wanted, recompute the hashes and
 * say why in the commit.
 */

/** mulberry32: a small seeded generator, so the corpus is the same on every run and machine. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Piece = { d: string; offsetX: number; offsetY: number };

/** A random path in VTracer's dialect and around it: M/L/C/Z, repeats, straight and degenerate curves, odd spacing. */
function randomPath(random: () => number): string {
  const pick = <T,>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const magnitude = pick([1e-7, 0.004, 0.05, 1, 10, 300, 5000, 1e6, 1e12]);
  const digits = pick([0, 1, 2, 2, 2, 3, 6]);
  const coordinate = () => (random() - 0.3) * magnitude;
  const write = (n: number) => (random() < 0.002 ? n.toExponential(3) : n.toFixed(digits));
  const separator = () => pick([' ', ' ', ',', '  ']);
  const pair = (x: number, y: number) => `${write(x)}${separator()}${write(y)}`;
  let x = coordinate();
  let y = coordinate();
  const parts = [`M${pair(x, y)}`];
  const steps = 1 + Math.floor(random() * 14);
  for (let s = 0; s < steps; s++) {
    const kind = random();
    if (kind < 0.3) {
      const nx = random() < 0.2 ? x : coordinate();
      const ny = random() < 0.2 ? y : coordinate();
      parts.push(`L${pair(nx, ny)}`);
      x = nx;
      y = ny;
    } else if (kind < 0.38) {
      parts.push(`L${pair(x, y)}`); // a repeated point
    } else if (kind < 0.48) {
      // several pairs after one command letter
      const count = 2 + Math.floor(random() * 3);
      const pairs: string[] = [];
      for (let k = 0; k < count; k++) {
        x = coordinate();
        y = coordinate();
        pairs.push(pair(x, y));
      }
      parts.push(`L${pairs.join(' ')}`);
    } else if (kind < 0.68) {
      const nx = coordinate();
      const ny = coordinate();
      parts.push(`C${pair(coordinate(), coordinate())} ${pair(coordinate(), coordinate())} ${pair(nx, ny)}`);
      x = nx;
      y = ny;
    } else if (kind < 0.8) {
      // a straight (or nearly straight) curve: controls on the chord, maybe nudged, maybe outside it
      const nx = coordinate();
      const ny = coordinate();
      const t1 = pick([0, 0.25, 0.333, -0.04, -0.2, 1.04, 1.3]);
      const t2 = pick([0.5, 0.667, 1, 1.06]);
      const nudge = () => (random() - 0.5) * pick([0, 0.01, 0.3, 1]);
      parts.push(`C${pair(x + (nx - x) * t1 + nudge(), y + (ny - y) * t1 + nudge())} ${pair(x + (nx - x) * t2 + nudge(), y + (ny - y) * t2 + nudge())} ${pair(nx, ny)}`);
      x = nx;
      y = ny;
    } else if (kind < 0.85) {
      // a curve back to where it started (zero chord)
      parts.push(`C${pair(x + (random() - 0.5) * 0.3, y)} ${pair(x, y + (random() - 0.5) * 3)} ${pair(x, y)}`);
    } else if (kind < 0.93) {
      parts.push(pick(['Z', 'Z ', 'z']));
      if (random() < 0.7) {
        x = coordinate();
        y = coordinate();
        parts.push(`M${pair(x, y)}`);
      }
    } else if (kind < 0.97) {
      x = coordinate();
      y = coordinate();
      parts.push(`M${pair(x, y)}`); // a move with no close before it
    } else {
      parts.push(pick(['l', 'c', 'm']) + pair(coordinate(), coordinate())); // lower case, read as absolute
    }
  }
  if (random() < 0.7) parts.push('Z');
  return parts.join(pick(['', ' ']));
}

/** Hand-picked edge cases: empty and malformed data, closepaths, repeats, and extremes. */
const EDGE_CASES: string[] = [
  '',
  'Z',
  'M0 0',
  'M0 0 Z',
  'M0 0 Z Z',
  'M0 0 L0 0 L0 0 Z',
  'M1 1 L2 2 Z L3 3 Z',
  'M0 0 L10 0 L10 10 L0 10 Z M20 20 L30 20 L30 30 Z',
  'M0 0 1 1 2 0 3 1',
  '5 5 M1 1 L2 2',
  'M0 0 L1',
  'M0 0 C1 1 2 2',
  'M0 0 C0 0 0 0 0 0',
  'M0 0 C0.1 0 0.2 0 0 0',
  'M0 0 C1 0 2 0 3 0',
  'M0 0 C0 1 0 2 0 3',
  'M0 0 C1 1 2 2 3 3',
  'M0 0 C-1 -1 4 4 3 3',
  'M.5.5L-.5-.5L1e2 1e-2L1E2 3',
  'M0.05 0.05 L0.15 0.15 L0.25 0.25 L0.349 0.35',
  'M-0.04 -0.04 L0.04 0.04 L-0.05 0.05 L0.05 -0.05',
  'M1e-9 1e-9 L2e-9 3e-9 Z',
  'M1e15 1e15 L1e15 2e15 C1e15 1e15 3e15 3e15 4e15 4e15 Z',
  'M1e22 0 L0 1e22 Z',
  'M123456789.12 987654321.98 L123456789.13 987654321.99 Z',
  'M0,0L10,0L10,10L0,10Z',
  'M 0 0 L 1 0 L 1 1 L 0 1 Z',
  'M0 0 X 5 5 L1 1',
];

/** VTracer's own output on the images the tracer tests use. */
async function fixturePieces(): Promise<Piece[][]> {
  const NS = 'xmlns="http://www.w3.org/2000/svg"';
  const svgs = [
    `<svg ${NS} width="128" height="128"><circle cx="60" cy="64" r="40" fill="#c33"/><rect x="20" y="10" width="90" height="20" fill="#36c"/></svg>`,
    `<svg ${NS} width="96" height="96"><circle cx="48" cy="48" r="30" fill="none" stroke="#222" stroke-width="3"/></svg>`,
    `<svg ${NS} width="128" height="128"><defs><filter id="b"><feGaussianBlur stdDeviation="6"/></filter></defs><ellipse cx="64" cy="100" rx="50" ry="14" fill="#000" fill-opacity="0.35" filter="url(#b)"/><rect x="34" y="20" width="60" height="60" fill="#2a7"/></svg>`,
    `<svg ${NS} width="100" height="50"><rect width="100" height="50" fill="#f80"/><circle cx="50" cy="25" r="15" fill="#08f"/></svg>`,
  ];
  const out: Piece[][] = [];
  for (const svg of svgs) {
    const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    for (const mode of [0, 1, 2] as const) {
      const raw = await vectorizeRaw(data, { width: info.width, height: info.height }, { ...VTRACER, mode } as Config);
      const pieces = [...raw.matchAll(/<path d="([^"]*)" fill="[^"]*"(?: transform="translate\((-?[\d.]+),(-?[\d.]+)\)")?/g)].map((m) => ({
        d: m[1]!,
        offsetX: Number(m[2] ?? 0),
        offsetY: Number(m[3] ?? 0),
      }));
      out.push(pieces);
    }
  }
  return out;
}

// VTracer's defaults (colour, stacked), with `mode` 0/1/2 = none/polygon/spline.
const VTRACER = {
  colorMode: 0,
  hierarchical: 0,
  filterSpeckle: 4,
  colorPrecision: 6,
  layerDifference: 16,
  mode: 2,
  cornerThreshold: 60,
  lengthThreshold: 4,
  maxIterations: 10,
  spliceThreshold: 45,
  pathPrecision: 2,
} as unknown as Config;

const sha256 = (outputs: string[]) => createHash('sha256').update(outputs.join('\n')).digest('hex');

describe('colours in the written SVG', () => {
  it('are the shortest lowercase hex of their channels', () => {
    assert.equal(hexColour([255, 0, 170]), '#f0a');
    assert.equal(hexColour([18, 52, 86]), '#123456');
    assert.equal(hexColour([0, 0, 0]), '#000');
  });
});

describe('path data writer (characterization)', () => {
  it('writes the pinned output for the edge cases', () => {
    const outputs = EDGE_CASES.flatMap((d) => [0, 1, 2, 3].map((decimals) => compactPathData(d, 0.3, -7.25, decimals)));
    // A few spelled out, so a failure shows what changed.
    assert.equal(compactPathData('M0 0 L0 0 L0 0 Z', 0, 0, 1), 'm0 0z');
    assert.equal(compactPathData('M0 0 1 1 2 0 3 1', 0, 0, 1), 'm0 0l1 1 1-1 1 1');
    assert.equal(compactPathData('M1 1 L2 2 Z L3 3 Z', 0, 0, 1), 'm1 1l1 1zl2 2z');
    // A token with an exponent has a letter in it, so it is read as an (unknown) command and
    // its numbers are skipped; VTracer never writes exponents.
    assert.equal(compactPathData('M.5.5L-.5-.5L1e2 1e-2L1E2 3', 0, 0, 1), 'm.5.5l-1-1 1.5 2.5 2 NaN.NaN');
    assert.equal(compactPathData('M0 0 C1 1 2 2 3 3', 0, 0, 1), 'm0 0l3 3');
    assert.equal(compactPathData('M0 0 C-1 -1 4 4 3 3', 0, 0, 1), 'm0 0c-1-1 4 4 3 3');
    assert.equal(sha256(outputs), EDGE_CASES_SHA256);
  });

  it('writes the pinned output for 3000 seeded random paths, alone and joined as pieces', () => {
    const random = seeded(12);
    const outputs: string[] = [];
    const pieces: Piece[] = [];
    for (let n = 0; n < 3000; n++) {
      // Now and then a piece that starts with no command: it carries on the last piece's command.
      const d = random() < 0.04 ? randomPath(random).replace(/^M/, '') : randomPath(random);
      const offsetX = random() < 0.5 ? 0 : Math.round((random() - 0.5) * 2000) / 100;
      const offsetY = random() < 0.5 ? 0 : Math.round((random() - 0.5) * 2000) / 100;
      const decimals = [0, 1, 1, 1, 2, 3][n % 6]!;
      outputs.push(compactPathData(d, offsetX, offsetY, decimals));
      pieces.push({ d, offsetX, offsetY });
      if (pieces.length === 1 + (n % 5)) {
        outputs.push(compactPathPieces(pieces.splice(0), decimals));
      }
    }
    // The corpus reaches every branch of the writer.
    const all = outputs.join('\n');
    for (const sign of ['m', 'l', 'h', 'v', 'c', 'z', 'NaN', /\d \d/, /\.\d\.\d/, /\d-\d/, /l[^a-z]*\d \d+ \d/]) {
      assert.ok(typeof sign === 'string' ? all.includes(sign) : sign.test(all), `the corpus never writes ${sign}`);
    }
    assert.equal(sha256(outputs), RANDOM_SHA256);
  });

  it("writes the pinned output for VTracer's paths of the tracer tests' images", async (t) => {
    const fixtures = await fixturePieces();
    // The images are rendered by sharp (librsvg); should another build render them differently,
    // the inputs are not the pinned ones and the output hash says nothing.
    if (createHash('sha256').update(JSON.stringify(fixtures)).digest('hex') !== FIXTURE_INPUTS_SHA256) {
      t.skip('sharp renders the fixture images differently here: inputs differ from the pinned ones');
      return;
    }
    const outputs: string[] = [];
    for (const pieces of fixtures) {
      for (const decimals of [0, 1, 2]) {
        outputs.push(compactPathPieces(pieces, decimals));
        for (const piece of pieces) outputs.push(compactPathData(piece.d, piece.offsetX, piece.offsetY, decimals));
      }
    }
    assert.ok(outputs.length > 90, `${outputs.length} outputs`);
    assert.equal(sha256(outputs), FIXTURES_SHA256);
  });
});

const EDGE_CASES_SHA256 = '83c4a5b4fc727624eaaaf8930fc66a14c3844c5b957e6fa0320221c679ef85e4';
const RANDOM_SHA256 = '7bbf8a6eb8f65a70c06901b5194d68ba55b7c06dab132616bd7de831e466e4ae';
const FIXTURES_SHA256 = '433d364a67dd897b55cfcc69c87ab977dc6b51052cbfda53294e281faff9db8e';
const FIXTURE_INPUTS_SHA256 = '4ff3d55443fed4ff0d0c57f37890c803e954e1e0b675ba1e252ba823a5c84b30';
