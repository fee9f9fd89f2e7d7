import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import { vectorizeRaw } from '@neplex/vectorizer';
import sharp from 'sharp';
import { ApiError } from '../../../src/contract/errors.ts';
import { pixelBlockSize } from '../../../src/engines/trace/analyze.ts';
import { compactColour, compactPathData } from '../../../src/engines/trace/path-data.ts';
import { TracePool } from '../../../src/engines/trace/pool.ts';
import type { RgbaImage } from '../../../src/engines/trace/pixels.ts';
import { traceImage } from '../../../src/engines/trace/tracer.ts';
import { isAlive, waitFor } from '../../helpers/processes.ts';

async function rgba(svg: string): Promise<RgbaImage> {
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, pixels: data };
}

function render(svg: string, width: number): Buffer {
  return Buffer.from(new Resvg(svg, { fitTo: { mode: 'width', value: width } }).render().pixels);
}

/** Mean absolute difference per channel between two RGBA buffers of one size (0–255). */
function meanDifference(a: Buffer, b: Buffer): number {
  assert.equal(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

const NS = 'xmlns="http://www.w3.org/2000/svg"';

describe('compact path data', () => {
  it('writes relative commands, straight cubics as lines, h/v, and no needless zeros or separators', () => {
    assert.equal(compactPathData('M0 0 C0.8 0.2 1.6 0.4 2.42 0.6 L2.42 10 L-0.5 10 Z', 10, 20, 1), 'm10 20l2.4.6v9.4h-2.9z');
    assert.equal(compactPathData('M1,1 C1,5 5,5 5,1 Z', 0, 0, 1), 'm1 1c0 4 4 4 4 0z');
  });

  it('rounds in absolute terms, so error never builds up along a path', () => {
    const points = Array.from({ length: 200 }, (_, i) => `L${(i + 1) * 0.04} 0`).join(' ');
    const d = compactPathData(`M0 0 ${points}`, 0, 0, 1);
    const steps = d.slice(d.indexOf('h') + 1).match(/-?(?:\d*\.\d+|\d+)/g) ?? [];
    const total = steps.reduce((sum, n) => sum + Number(n), 0);
    assert.equal(Math.round(total * 10) / 10, 8);
  });

  it('draws what VTracer drew, in far fewer bytes', async () => {
    const image = await rgba(`<svg ${NS} width="128" height="128"><circle cx="60" cy="64" r="40" fill="#c33"/><rect x="20" y="10" width="90" height="20" fill="#36c"/></svg>`);
    const raw = await vectorizeRaw(image.pixels, { width: 128, height: 128 });
    const compact = raw.replace(/<path d="([^"]*)" fill="([^"]*)" transform="translate\(([-\d.]+),([-\d.]+)\)"\/>/g, (_, d, fill, x, y) => `<path d="${compactPathData(d, Number(x), Number(y), 1)}" fill="${fill}"/>`);
    assert.ok(compact.length < raw.length * 0.75, `${compact.length} vs ${raw.length}`);
    assert.ok(meanDifference(render(raw, 128), render(compact, 128)) < 1);
  });

  it('shortens colours', () => {
    assert.equal(compactColour('#FFAA00'), '#fa0');
    assert.equal(compactColour('#FFAA01'), '#ffaa01');
  });
});

describe('the built-in tracer', () => {
  it('traces a large grid of blocks (upscaled noise) under the effort size cap, not cell by cell', async () => {
    const side = 512;
    const colours = randomBytes(side * side * 4);
    const pixels = Buffer.alloc(side * side * 4);
    for (let y = 0; y < side; y++) {
      for (let x = 0; x < side; x++) {
        const from = ((y - (y % 2)) * side + (x - (x % 2))) * 4; // 2x2 blocks of one random colour
        colours.copy(pixels, (y * side + x) * 4, from, from + 3);
        pixels[(y * side + x) * 4 + 3] = 255;
      }
    }
    assert.equal(pixelBlockSize({ width: side, height: side, pixels }), 2);
    const { svg } = await traceImage({ width: side, height: side, pixels }, { effort: 'low' });
    // Cell by cell, this was 3.1 MB: one square per block of the 256x256 grid.
    assert.ok(svg.length < 1_000_000, `${svg.length} bytes`);
    assert.match(svg, /width="512" height="512"/);
  });

  it('finds the block size of scaled-up pixel art, and traces it at native size with exact edges', async () => {
    const native = Buffer.alloc(8 * 8 * 4);
    for (let i = 0; i < 64; i++) native.set((i * 7) % 3 === 0 ? [200, 30, 30, 255] : [20, 20, 160, 255], i * 4);
    const { data } = await sharp(native, { raw: { width: 8, height: 8, channels: 4 } }).resize(64, 64, { kernel: 'nearest' }).raw().toBuffer({ resolveWithObject: true });
    const image = { width: 64, height: 64, pixels: data };
    assert.equal(pixelBlockSize(image), 8);
    assert.equal(pixelBlockSize(await rgba(`<svg ${NS} width="64" height="64"><circle cx="32" cy="32" r="20"/></svg>`)), 1);
    const { svg } = await traceImage(image, { effort: 'medium' });
    assert.match(svg, /viewBox="0 0 8 8" width="64" height="64"/);
    assert.doesNotMatch(svg, /\d\.\d/, 'pixel edges are whole numbers');
    assert.ok(meanDifference(render(svg, 64), data) < 2);
  });

  it('traces one-colour line art as a single smooth mask in its ink colour', async () => {
    const image = await rgba(`<svg ${NS} width="96" height="96"><circle cx="48" cy="48" r="30" fill="none" stroke="#222" stroke-width="3"/></svg>`);
    const { svg } = await traceImage(image, { effort: 'medium' });
    assert.equal((svg.match(/<path/g) ?? []).length, 1);
    assert.match(svg, /fill="#222"/);
    assert.ok(meanDifference(render(svg, 96), image.pixels) < 4);
  });

  it('keeps a soft shadow translucent, where raw VTracer makes it solid', async () => {
    const image = await rgba(
      `<svg ${NS} width="128" height="128"><defs><filter id="b"><feGaussianBlur stdDeviation="6"/></filter></defs>` +
        `<ellipse cx="64" cy="100" rx="50" ry="14" fill="#000" fill-opacity="0.35" filter="url(#b)"/><rect x="34" y="20" width="60" height="60" fill="#2a7"/></svg>`,
    );
    const ours = await traceImage(image, { effort: 'medium' });
    assert.match(ours.svg, /fill-opacity="/);
    const raw = await vectorizeRaw(image.pixels, { width: 128, height: 128 });
    const original = image.pixels;
    assert.ok(meanDifference(render(ours.svg, 128), original) < meanDifference(render(raw, 128), original) / 2);
  });

  it('sets width and height from target_size, keeping the aspect ratio', async () => {
    const image = await rgba(`<svg ${NS} width="100" height="50"><rect width="100" height="50" fill="#f80"/><circle cx="50" cy="25" r="15" fill="#08f"/></svg>`);
    const { svg } = await traceImage(image, { effort: 'low', targetSize: 400 });
    assert.match(svg, /width="400" height="200"/);
  });
});

/** Process ids of a pool's workers (the WorkerPool's own bookkeeping, read for the test only). */
function workerPids(pool: TracePool): number[] {
  const inner = (pool as unknown as { pool?: { workers: { worker?: { pid?: number } }[] } }).pool;
  return (inner?.workers ?? []).flatMap((handler) => (handler.worker?.pid ? [handler.worker.pid] : []));
}

describe('the tracer pool', () => {
  const pool = new TracePool({ workers: 1, queue: 2, timeout_ms: 60_000 });
  after(() => pool.close());

  it('drops a queued job whose client left, without waiting for it to run', async () => {
    const noise = Buffer.from(Array.from({ length: 384 * 384 * 4 }, (_, i) => (i % 4 === 3 ? 255 : (i * 2654435761) >>> 24)));
    const png = await sharp(noise, { raw: { width: 384, height: 384, channels: 4 } }).png().toBuffer();
    const busy = pool.run({ input: { kind: 'raster', bytes: png }, autoCrop: false, effort: 'medium' }, new AbortController().signal);
    const leaving = new AbortController();
    const queued = pool.run({ input: { kind: 'raster', bytes: png }, autoCrop: false, effort: 'medium' }, leaving.signal);
    const reason = new Error('client went away');
    leaving.abort(reason);
    await assert.rejects(queued, (error) => error === reason);
    assert.equal((await busy).ok, true);
  });

  it('stops a job past its deadline with 504 request_timeout, kills its worker, and keeps serving', async () => {
    const short = new TracePool({ workers: 1, queue: 2, timeout_ms: 3000 });
    try {
      const noise = await sharp(randomBytes(1024 * 1024 * 3), { raw: { width: 1024, height: 1024, channels: 3 } }).png().toBuffer();
      const small = await sharp({ create: { width: 32, height: 32, channels: 4, background: '#f00' } }).png().toBuffer();
      const tiny = () => short.run({ input: { kind: 'raster', bytes: small }, autoCrop: false, effort: 'low' }, new AbortController().signal);
      assert.equal((await tiny()).ok, true); // the worker is up, so the deadline covers the trace alone
      const [pid] = workerPids(short);
      assert.ok(pid && isAlive(pid));
      const running = short.run({ input: { kind: 'raster', bytes: noise }, autoCrop: false, effort: 'xhigh' }, new AbortController().signal);
      await assert.rejects(running, (error) => error instanceof ApiError && error.code === 'request_timeout' && error.status === 504);
      await waitFor(() => !isAlive(pid));
      assert.equal((await tiny()).ok, true);
    } finally {
      await short.close();
    }
  });

  it('kills the worker of a running job whose client left', async () => {
    const own = new TracePool({ workers: 1, queue: 2, timeout_ms: 600_000 });
    try {
      const noise = await sharp(randomBytes(1024 * 1024 * 3), { raw: { width: 1024, height: 1024, channels: 3 } }).png().toBuffer();
      const leaving = new AbortController();
      let pids: number[] = [];
      const running = own.run({ input: { kind: 'raster', bytes: noise }, autoCrop: false, effort: 'xhigh' }, leaving.signal, () => {
        pids = workerPids(own);
        leaving.abort(new Error('client went away'));
      });
      await assert.rejects(running, /client went away/);
      assert.equal(pids.length, 1);
      await waitFor(() => !isAlive(pids[0]!));
    } finally {
      await own.close();
    }
  });

  it('frees the queue slot of a job whose client left, so the next job is not refused', async () => {
    const own = new TracePool({ workers: 1, queue: 1, timeout_ms: 600_000 });
    try {
      const noise = await sharp(randomBytes(768 * 768 * 3), { raw: { width: 768, height: 768, channels: 3 } }).png().toBuffer();
      const small = await sharp({ create: { width: 32, height: 32, channels: 4, background: '#f00' } }).png().toBuffer();
      const busyLeaving = new AbortController();
      const busy = own.run({ input: { kind: 'raster', bytes: noise }, autoCrop: false, effort: 'xhigh' }, busyLeaving.signal);
      const leaving = new AbortController();
      const queued = own.run({ input: { kind: 'raster', bytes: small }, autoCrop: false, effort: 'low' }, leaving.signal);
      leaving.abort(new Error('left'));
      await assert.rejects(queued, /left/);
      const next = own.run({ input: { kind: 'raster', bytes: small }, autoCrop: false, effort: 'low' }, new AbortController().signal);
      busyLeaving.abort(new Error('done waiting'));
      await assert.rejects(busy, /done waiting/);
      assert.equal((await next).ok, true);
    } finally {
      await own.close();
    }
  });

  // The timeout turns a stuck queue (a hang) into a failure.
  it('keeps serving after a worker is killed from outside, mid-job or idle, and closes afterwards', { timeout: 60_000 }, async () => {
    const own = new TracePool({ workers: 1, queue: 2, timeout_ms: 600_000 });
    const noise = await sharp(randomBytes(1024 * 1024 * 3), { raw: { width: 1024, height: 1024, channels: 3 } }).png().toBuffer();
    const small = await sharp({ create: { width: 32, height: 32, channels: 4, background: '#f00' } }).png().toBuffer();
    const doomed = own.run({ input: { kind: 'raster', bytes: noise }, autoCrop: false, effort: 'xhigh' }, new AbortController().signal, () => {
      for (const pid of workerPids(own)) process.kill(pid, 'SIGKILL');
    });
    const queued = own.run({ input: { kind: 'raster', bytes: small }, autoCrop: false, effort: 'low' }, new AbortController().signal);
    await assert.rejects(doomed, (error) => error instanceof ApiError && error.code === 'model_error');
    assert.equal((await queued).ok, true);
    for (const pid of workerPids(own)) process.kill(pid, 'SIGKILL'); // an idle worker dies too
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal((await own.run({ input: { kind: 'raster', bytes: small }, autoCrop: false, effort: 'low' }, new AbortController().signal)).ok, true);
    for (const pid of workerPids(own)) process.kill(pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await own.close();
  });

  it('reports an undecodable image instead of failing the worker', async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#123' } }).png().toBuffer();
    const outcome = await pool.run({ input: { kind: 'raster', bytes: png.subarray(0, png.length - 30) }, autoCrop: false, effort: 'low' }, new AbortController().signal);
    assert.equal(outcome.ok, false);
  });
});
