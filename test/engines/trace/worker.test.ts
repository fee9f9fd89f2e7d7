import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import runTraceTask from '../../../src/engines/trace/worker.ts';

const NS = 'xmlns="http://www.w3.org/2000/svg"';

/** A PNG: a dark 7×7 square at (19, 9) on transparency, 40×30 (not pixel art: no block size divides it). */
const png = () =>
  sharp({ create: { width: 40, height: 30, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([{ input: { create: { width: 7, height: 7, channels: 4, background: { r: 20, g: 20, b: 20, alpha: 1 } } }, left: 19, top: 9 }])
    .png()
    .toBuffer();

describe('a tracer process’s job', () => {
  it('announces a raster input once it has decoded, then traces it', async () => {
    let accepted = 0;
    const outcome = await runTraceTask({ input: { kind: 'raster', bytes: await png() }, autoCrop: false, effort: 'low' }, () => accepted++);
    assert.equal(accepted, 1);
    assert.ok(outcome.ok);
    assert.match(outcome.svg, /^<svg [^>]*viewBox="0 0 40 30"/);
  });

  it('crops to the subject when asked, and sizes the output to target_size', async () => {
    const outcome = await runTraceTask({ input: { kind: 'raster', bytes: await png() }, autoCrop: true, targetSize: 100, effort: 'low' }, () => {});
    assert.ok(outcome.ok);
    assert.match(outcome.svg, /^<svg [^>]*viewBox="0 0 9 9" width="100" height="100"/); // 7 px and a margin of 1
  });

  it('refuses undecodable data as the caller’s fault, without announcing it', async () => {
    let accepted = 0;
    const outcome = await runTraceTask({ input: { kind: 'raster', bytes: new Uint8Array([1, 2, 3]) }, autoCrop: false, effort: 'medium' }, () => accepted++);
    assert.equal(accepted, 0);
    assert.equal(outcome.ok, false);
    assert.equal(!outcome.ok && outcome.reason, 'undecodable');
  });

  it('normalizes an SVG input instead of tracing it, without announcing it first', async () => {
    let accepted = 0;
    const outcome = await runTraceTask({ input: { kind: 'svg', markup: `<svg ${NS} width="30" height="20"><circle r="5"/></svg>` }, autoCrop: false, effort: 'medium' }, () => accepted++);
    assert.equal(accepted, 0);
    assert.deepEqual(outcome, { ok: true, svg: `<svg ${NS} width="30" height="20" viewBox="0 0 30 20"><circle r="5"/></svg>` });
  });
});
