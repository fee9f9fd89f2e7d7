import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planSmoothRegions } from '../../../src/engines/trace/smooth-regions.ts';
import { rgbaImage } from './images.ts';

/** A soft wallpaper: a diagonal ramp with a small crisp dark square. */
const wallpaper = (alpha = 255) =>
  rgbaImage(160, 120, (x, y) => (x >= 20 && x < 30 && y >= 20 && y < 30 ? [10, 10, 10] : [40 + x / 2 + y / 3, 80 + y / 2, 160 - x / 4, alpha]));

describe('planning smooth regions', () => {
  it('plans gradients for an opaque soft picture, painting their pixels a marker colour that finds the region back', () => {
    const source = wallpaper();
    const plan = planSmoothRegions(source, { photo: false, opaque: true })!;
    assert.ok(plan, 'a plan');
    assert.ok(plan.regions.length >= 1);
    assert.ok(plan.coverage > 0.9, `coverage ${plan.coverage}`);
    const centre = (60 * 160 + 100) * 4;
    const painted = [...plan.marked.pixels.subarray(centre, centre + 3)] as [number, number, number];
    const region = plan.regions.find((r) => r.marker.every((v, c) => v === painted[c]));
    assert.ok(region, `${painted} is a marker`);
    assert.equal(plan.regionFor(...painted), region);
    const dot = (25 * 160 + 25) * 4;
    assert.deepEqual([...plan.marked.pixels.subarray(dot, dot + 3)], [10, 10, 10]); // the detail stays as it was
    assert.deepEqual([...source.pixels.subarray(centre, centre + 3)], [110, 110, 135]); // the source untouched
  });

  it('plans nothing for flat art on transparency, a flat picture, or texture', () => {
    assert.equal(planSmoothRegions(wallpaper(), { photo: false, opaque: false }), undefined);
    assert.equal(planSmoothRegions(rgbaImage(160, 120, (x) => (x < 80 ? [200, 30, 30] : [30, 30, 200])), { photo: false, opaque: true }), undefined);
    let seed = 7;
    const noise = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % 256;
    assert.equal(planSmoothRegions(rgbaImage(160, 120, () => [noise(), noise(), noise()]), { photo: true, opaque: true }), undefined);
  });
});
