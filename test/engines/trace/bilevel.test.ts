import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { palette } from '../../../src/engines/trace/analyze.ts';
import { outlines, traceBilevel, traceTwoTone, twoToneOnTransparent } from '../../../src/engines/trace/bilevel.ts';
import { fitLoop } from '../../../src/engines/trace/curve-fit.ts';
import type { RgbaImage } from '../../../src/engines/trace/pixels.ts';
import { traceImage } from '../../../src/engines/trace/tracer.ts';

const NS = 'xmlns="http://www.w3.org/2000/svg"';

async function rgba(svg: string): Promise<RgbaImage> {
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, pixels: data };
}

/** Winding number of the closed polygons around (x, y). */
function winding(loops: Float64Array[], x: number, y: number): number {
  let w = 0;
  for (const p of loops) {
    for (let i = 0, j = p.length - 2; i < p.length; j = i, i += 2) {
      const [x0, y0, x1, y1] = [p[j]!, p[j + 1]!, p[i]!, p[i + 1]!];
      const side = (x1 - x0) * (y - y0) - (x - x0) * (y1 - y0);
      if (y0 <= y && y1 > y && side > 0) w++;
      else if (y0 > y && y1 <= y && side < 0) w--;
    }
  }
  return w;
}

/** Coverage of a disc, as an antialiasing rasterizer gives it (16×16 samples per pixel). */
function disc(size: number, cx: number, cy: number, r: number): Uint8Array {
  const out = new Uint8Array(size * size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let inside = 0;
      for (let sy = 0; sy < 16; sy++) for (let sx = 0; sx < 16; sx++) if (Math.hypot(x + (sx + 0.5) / 16 - cx, y + (sy + 0.5) / 16 - cy) <= r) inside++;
      out[y * size + x] = Math.round((inside / 256) * 255);
    }
  }
  return out;
}

/** Points along absolute M/L/C/Z path data, 20 per segment. */
function samplePath(d: string): [number, number][] {
  const points: [number, number][] = [];
  let x = 0;
  let y = 0;
  for (const [, command, args] of d.matchAll(/([MLCZ])([^MLCZ]*)/g)) {
    const n = args!.trim() ? args!.trim().split(/\s+/).map(Number) : [];
    if (command === 'M') [x, y] = [n[0]!, n[1]!];
    for (let k = 1; k <= 20 && command === 'L'; k++) points.push([x + ((n[0]! - x) * k) / 20, y + ((n[1]! - y) * k) / 20]);
    for (let k = 1; k <= 20 && command === 'C'; k++) {
      const t = k / 20;
      const s = 1 - t;
      points.push([s * s * s * x + 3 * s * s * t * n[0]! + 3 * s * t * t * n[2]! + t * t * t * n[4]!, s * s * s * y + 3 * s * s * t * n[1]! + 3 * s * t * t * n[3]! + t * t * t * n[5]!]);
    }
    if (command === 'L') [x, y] = [n[0]!, n[1]!];
    if (command === 'C') [x, y] = [n[4]!, n[5]!];
  }
  return points;
}

describe('bi-level outlines (marching squares)', () => {
  it('put every pixel centre inside exactly when its coverage is at least half, holes included', () => {
    for (let trial = 0; trial < 60; trial++) {
      const width = 1 + (trial % 17);
      const height = 1 + ((trial * 7) % 13);
      const coverage = new Uint8Array(randomBytes(width * height));
      if (trial % 2 === 0) for (let i = 0; i < coverage.length; i++) coverage[i] = coverage[i]! >= 128 ? 255 : 0;
      const loops = outlines(coverage, width, height, 0, 0);
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const w = winding(loops, x + 0.5, y + 0.5);
          assert.ok(Math.abs(w) <= 1, `winding ${w}`);
          assert.equal(w !== 0, coverage[y * width + x]! >= 128, `pixel ${x},${y} of trial ${trial}`);
        }
      }
    }
  });

  it('land within a tenth of a pixel of an antialiased edge', () => {
    const [cx, cy, r] = [20.3, 19.6, 13.7];
    const loops = outlines(disc(40, cx, cy, r), 40, 40, 0);
    assert.equal(loops.length, 1);
    const points = loops[0]!;
    for (let i = 0; i < points.length; i += 2) assert.ok(Math.abs(Math.hypot(points[i]! - cx, points[i + 1]! - cy) - r) < 0.1);
  });

  it('drop a blob smaller than the speckle size with its hole, fill a tiny hole, keep a large ring', () => {
    const width = 40;
    const coverage = new Uint8Array(width * 20);
    const fill = (x0: number, y0: number, x1: number, y1: number, v: number) => {
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) coverage[y * width + x] = v;
    };
    fill(2, 2, 5, 5, 255); // 3×3 blob (area 9) with a one-pixel hole
    fill(3, 3, 4, 4, 0);
    fill(10, 2, 30, 18, 255); // a ring: a 20×16 square with a 12×8 hole and a one-pixel pinhole
    fill(14, 6, 26, 14, 0);
    fill(11, 3, 12, 4, 0);
    const loops = outlines(coverage, width, 20, 16);
    assert.equal(loops.length, 2); // the ring's outside and its hole
    assert.equal(winding(loops, 3.5, 3.5), 0);
    assert.equal(winding(loops, 11.5, 3.5) !== 0, true);
    assert.equal(winding(loops, 20, 10), 0);
  });
});

describe('curve fitting of an outline', () => {
  it('draws a pixel-aligned rectangle as four straight sides with square corners', () => {
    const coverage = new Uint8Array(12 * 10);
    for (let y = 2; y < 7; y++) for (let x = 3; x < 10; x++) coverage[y * 12 + x] = 255;
    const [loop] = outlines(coverage, 12, 10, 0);
    const d = fitLoop(loop!, 1);
    assert.doesNotMatch(d, /C/);
    const corners = new Set(samplePath(d).map(([x, y]) => `${x},${y}`));
    for (const corner of ['3,2', '10,2', '10,7', '3,7']) assert.ok(corners.has(corner), `${corner} in ${d}`);
  });

  it('follows a smooth outline within half a pixel, in a few curves, scaled to the viewBox', () => {
    const [cx, cy, r] = [30.3, 29.6, 22.2];
    const [loop] = outlines(disc(60, cx, cy, r), 60, 60, 0);
    const d = fitLoop(loop!, 2);
    assert.ok((d.match(/[LC]/g) ?? []).length <= 16, d);
    for (const [x, y] of samplePath(d)) assert.ok(Math.abs(Math.hypot(x / 2 - cx, y / 2 - cy) - r) < 0.5, `${x},${y}`);
  });
});

describe('the bi-level tracer', () => {
  it('traces ink on a colour over a paper rectangle, and nothing at all on an empty image', () => {
    const image = { width: 8, height: 8, pixels: Buffer.alloc(8 * 8 * 4, 255) };
    const kind = { kind: 'on-colour' as const, ink: [0, 0, 0] as [number, number, number], paper: [255, 255, 255] as [number, number, number] };
    assert.deepEqual(traceBilevel(image, kind, 2, 4), { shapes: [], background: '#fff' });
    for (let y = 2; y < 6; y++) for (let x = 2; x < 6; x++) image.pixels.fill(0, (y * 8 + x) * 4, (y * 8 + x) * 4 + 3);
    const { shapes } = traceBilevel(image, kind, 2, 1);
    assert.equal(shapes.length, 1);
    assert.equal(shapes[0]!.fill, '#000');
    assert.deepEqual(new Set(samplePath(shapes[0]!.d).map(([x, y]) => `${x},${y}`)).has('4,4'), true);
  });

  it('renders line art back within a fraction of a pixel of the source, in few bytes', async () => {
    const image = await rgba(
      `<svg ${NS} width="160" height="160"><g fill="none" stroke="#1a1a2e" stroke-width="7" stroke-linecap="round" stroke-linejoin="round">` +
        `<circle cx="50" cy="110" r="32"/><circle cx="115" cy="110" r="32"/><path d="M50 110l28-55h35l2 55M70 40h25"/><rect x="20" y="12" width="40" height="22" rx="3"/></g></svg>`,
    );
    const { svg } = await traceImage(image, { effort: 'medium' });
    assert.equal((svg.match(/<path/g) ?? []).length, 1);
    assert.match(svg, /fill="#1a1a2e"/);
    assert.ok(svg.length < 1400, `${svg.length} bytes`); // 1725 upsampled and traced by VTracer
    const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: 160 } }).render().pixels;
    // Alpha compared pixel by pixel: an edge half a pixel out would differ by ~128 all along it.
    let sum = 0;
    let far = 0;
    for (let i = 3; i < rendered.length; i += 4) {
      const difference = Math.abs(rendered[i]! - image.pixels[i]!);
      sum += difference;
      if (difference > 100) far++;
    }
    assert.ok(sum / (160 * 160) < 2.5, `mean alpha difference ${sum / (160 * 160)}`);
    assert.ok(far < 40, `${far} pixels far off`); // 470 upsampled and traced by VTracer
  });
});

describe('two tones on transparency (black-and-white clip art)', () => {
  const clipArt = (fill: string, extra = '') =>
    rgba(`<svg ${NS} width="120" height="120"><path d="M20 60c0-30 20-45 40-45s40 15 40 45-20 45-40 45-40-15-40-45z" fill="${fill}" stroke="#000" stroke-width="5"/><path d="M45 50h30M50 75c10 8 20 0 20 0" stroke="#000" stroke-width="3" fill="none"/>${extra}</svg>`);

  it('finds the outline colour as the one under, and turns down one colour, three colours and no transparency', async () => {
    const image = await clipArt('#fff');
    assert.deepEqual(twoToneOnTransparent(image, palette(image)), { under: [0, 0, 0], over: [255, 255, 255] });
    const one = await clipArt('#000');
    assert.equal(twoToneOnTransparent(one, palette(one)), undefined);
    const three = await clipArt('#fff', '<rect x="40" y="30" width="40" height="15" fill="#2a7"/>');
    assert.equal(twoToneOnTransparent(three, palette(three)), undefined);
    const opaque = await rgba(`<svg ${NS} width="60" height="60"><rect width="60" height="60" fill="#fff"/><circle cx="30" cy="30" r="20" fill="#000"/></svg>`);
    assert.equal(twoToneOnTransparent(opaque, palette(opaque)), undefined);
  });

  it('draws the opaque shape in the outline colour and the fill on top: close to the source on white and on black', async () => {
    const image = await clipArt('#fff');
    const kind = twoToneOnTransparent(image, palette(image))!;
    const { shapes } = traceTwoTone(image, kind, 2, 4);
    assert.deepEqual(shapes.map((s) => s.fill), ['#000', '#fff']);
    const svg = `<svg ${NS} viewBox="0 0 240 240" width="120" height="120">${shapes.map((s) => `<path d="${s.d}" fill="${s.fill}"/>`).join('')}</svg>`;
    const rendered = new Resvg(svg).render().pixels; // premultiplied
    for (const background of [255, 0]) {
      let sum = 0;
      for (let i = 0; i < rendered.length; i += 4) {
        const a = image.pixels[i + 3]! / 255;
        const source = image.pixels[i]! * a + background * (1 - a);
        const ours = rendered[i]! + background * (1 - rendered[i + 3]! / 255);
        sum += Math.abs(source - ours);
      }
      // On black, 0.7; the other way up (white under, black on top) leaves a light fringe: 1.5.
      assert.ok(sum / (120 * 120) < (background === 0 ? 1 : 2), `mean difference ${sum / (120 * 120)} on ${background}`);
    }
  });
});
