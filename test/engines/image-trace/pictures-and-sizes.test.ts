import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { nearestSize } from '../../../src/engines/image-trace/options.ts';
import { Resvg } from '@resvg/resvg-js';
import { plainBackground } from '../../../src/engines/trace/background.ts';
import { traceCutout } from '../../../src/engines/trace/cutout.ts';
import { fitIntoViewBox } from '../../../src/engines/trace/frame.ts';
import { decodeRgba } from '../../../src/engines/trace/raster.ts';
import { traceImage } from '../../../src/engines/trace/tracer.ts';
import { picture } from '../../helpers/pictures.ts';

/** The SVG rendered at its own size: RGBA of the pixel at (x, y). */
const pixelAt = (svg: string, x: number, y: number) => {
  const image = new Resvg(svg).render();
  const i = (y * image.width + x) * 4;
  return [...image.pixels.subarray(i, i + 4)];
};
const cutout = async (png: Buffer) => traceCutout(await decodeRgba(png), 'medium');

describe('a picture on a plain background traced as its subject alone', () => {
  it('leaves the border-connected background transparent and draws the subject as the tracer draws any picture', async () => {
    const png = await picture(256, 256, { background: '#f4f1de' });
    const svg = await cutout(png);
    assert.match(svg, /<clipPath id="cut">/);
    assert.equal(pixelAt(svg, 2, 2)[3], 0);
    assert.equal(pixelAt(svg, 253, 128)[3], 0);
    const sun = pixelAt(svg, 128, 100);
    assert.ok([0xff, 0xb7, 0x03, 255].every((value, c) => Math.abs(value - sun[c]!) <= 3), `the sun, opaque, its own colour (${sun})`);
    const whole = (await traceImage(await decodeRgba(png), { effort: 'medium' })).svg;
    assert.deepEqual(pixelAt(whole, 128, 100), pixelAt(svg, 128, 100), 'inside, the same trace');
  });

  it('works on a JPEG\'s noisy white', async () => {
    const svg = await cutout(await picture(256, 256, { format: 'jpeg' }));
    assert.equal(pixelAt(svg, 3, 3)[3], 0);
    assert.equal(pixelAt(svg, 252, 252)[3], 0);
    assert.equal(pixelAt(svg, 128, 100)[3], 255);
  });

  it('keeps a hole of the background colour that does not touch the border', async () => {
    const ring = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#fff"/><circle cx="32" cy="32" r="24" fill="none" stroke="#000" stroke-width="8"/></svg>');
    const svg = await cutout(await sharp(ring).png().toBuffer());
    assert.equal(pixelAt(svg, 1, 1)[3], 0);
    assert.deepEqual(pixelAt(svg, 32, 32), [255, 255, 255, 255], 'the white inside the ring stays');
  });

  it('traces pictures without a plain background as they are: transparent already, a gradient, a border of many colours', async () => {
    const transparent = await picture(128, 128, { background: null });
    assert.equal(plainBackground(await decodeRgba(transparent)), undefined);
    const gradient = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><defs><linearGradient id="g"><stop stop-color="#036"/><stop offset="1" stop-color="#3cf"/></linearGradient></defs><rect width="64" height="64" fill="url(#g)"/><circle cx="32" cy="32" r="9" fill="#fff"/></svg>');
    assert.equal(plainBackground(await decodeRgba(await sharp(gradient).png().toBuffer())), undefined);
    const noise = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();
    const svg = await cutout(noise);
    assert.doesNotMatch(svg, /clipPath/);
    assert.equal(pixelAt(svg, 0, 0)[3], 255);
  });
});

describe('a trace fitted into the request\'s viewBox', () => {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 384 256" width="384" height="256"><path d="m0 0h384v256h-384z" fill="#f00"/></svg>';
  it('scales the whole picture in, centred, the viewBox\'s size the document\'s', () => {
    assert.equal(
      fitIntoViewBox(svg, { minX: 0, minY: 0, width: 160, height: 90 }),
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 90" width="160" height="90"><g transform="translate(12.5 0) scale(0.351563)"><path d="m0 0h384v256h-384z" fill="#f00"/></g></svg>',
    );
    assert.match(fitIntoViewBox(svg, { minX: -10, minY: 5, width: 768, height: 512 }), /viewBox="-10 5 768 512".*<g transform="translate\(-10 5\) scale\(2\)">/);
    const fitted = fitIntoViewBox(svg, { minX: 0, minY: 0, width: 100, height: 100 });
    assert.equal(pixelAt(fitted, 50, 10)[3], 0, 'a band above the picture');
    assert.deepEqual(pixelAt(fitted, 50, 50), [255, 0, 0, 255]);
  });
});

describe('the picture size a request asks for', () => {
  const sizes = ['1024x1024', '1536x1024', '1024x1536'];
  it('is the listed size nearest the viewBox\'s shape, and a square without one', () => {
    assert.equal(nearestSize(sizes, null).size, '1024x1024');
    assert.equal(nearestSize(sizes, { width: 1920, height: 1080 }).size, '1536x1024');
    assert.equal(nearestSize(sizes, { width: 9, height: 16 }).size, '1024x1536');
    assert.equal(nearestSize(sizes, { width: 11, height: 10 }).size, '1024x1024');
    assert.equal(nearestSize(['1792x1024', '1024x1024'], null).size, '1024x1024');
    assert.equal(nearestSize(['1536x1024'], { width: 1, height: 3 }).size, '1536x1024', 'the only size, whatever the shape');
  });
});
