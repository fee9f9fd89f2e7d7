import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import type { RgbaImage } from '../../../src/engines/trace/pixels.ts';
import { traceImage } from '../../../src/engines/trace/tracer.ts';
import { finishSvg } from '../../../src/svg/pipeline.ts';

const NS = 'xmlns="http://www.w3.org/2000/svg"';

async function rgba(svg: string): Promise<RgbaImage> {
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, pixels: data };
}

/** Straight RGBA of an SVG rendered at `width`. */
async function render(svg: string, width: number): Promise<Buffer> {
  const png = new Resvg(svg, { fitTo: { mode: 'width', value: width } }).render().asPng();
  return sharp(png).ensureAlpha().raw().toBuffer();
}

/** RGB PSNR (dB) of two straight-RGBA buffers, both composited on white. */
function psnr(a: Buffer, b: Buffer): number {
  assert.equal(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i += 4) {
    for (let c = 0; c < 3; c++) {
      const x = (a[i + c]! * a[i + 3]!) / 255 + 255 - a[i + 3]!;
      const y = (b[i + c]! * b[i + 3]!) / 255 + 255 - b[i + 3]!;
      sum += (x - y) ** 2;
    }
  }
  const mse = sum / ((a.length / 4) * 3);
  return mse === 0 ? 100 : 10 * Math.log10((255 * 255) / mse);
}

/** A soft wallpaper: a diagonal ramp, a soft lighter wave across it and a small crisp logo. */
const WALLPAPER =
  `<svg ${NS} width="480" height="270"><defs>` +
  `<linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#1d3b53"/><stop offset="1" stop-color="#5f8f8a"/></linearGradient>` +
  `<filter id="soft"><feGaussianBlur stdDeviation="5"/></filter></defs>` +
  `<rect width="480" height="270" fill="url(#bg)"/>` +
  `<path d="M-20 190 C 100 120, 220 250, 340 160 S 500 120, 520 140 L 520 200 C 400 180, 300 280, 160 230 S 0 220, -20 240 Z" fill="#a9c7bd" fill-opacity="0.35" filter="url(#soft)"/>` +
  `<circle cx="400" cy="60" r="14" fill="#f4f4f4"/></svg>`;

describe('smooth colour in the built-in tracer', () => {
  it('traces a soft wallpaper with gradients, keeping its low-contrast wave, far closer than one flat field', async () => {
    const image = await rgba(WALLPAPER);
    const { svg } = await traceImage(image, { effort: 'medium' });
    assert.match(svg, /<linearGradient id="[a-z0-9]+" gradientUnits="userSpaceOnUse"/);
    const rendered = await render(svg, image.width);
    const quality = psnr(rendered, image.pixels);
    assert.ok(quality >= 32, `PSNR ${quality.toFixed(1)} dB`);
    // The wave: along a column through it, the render rises and falls with the source.
    const column = 240;
    const lumaAt = (pixels: Buffer, y: number) => {
      const i = (y * image.width + column) * 4;
      return 0.299 * pixels[i]! + 0.587 * pixels[i + 1]! + 0.114 * pixels[i + 2]!;
    };
    const [above, inside] = [150, 205];
    const sourceStep = lumaAt(image.pixels, inside) - lumaAt(image.pixels, above);
    const renderedStep = lumaAt(rendered, inside) - lumaAt(rendered, above);
    assert.ok(sourceStep > 8, `the wave is there to see (${sourceStep.toFixed(1)})`);
    assert.ok(Math.abs(renderedStep - sourceStep) < 6, `wave step ${renderedStep.toFixed(1)} vs ${sourceStep.toFixed(1)}`);
  });

  it('draws a glow as a radial gradient', async () => {
    const image = await rgba(
      `<svg ${NS} width="300" height="300"><defs><radialGradient id="g" cx="0.45" cy="0.55" r="0.5"><stop offset="0" stop-color="#fff3c4"/><stop offset="0.5" stop-color="#d9823b"/><stop offset="1" stop-color="#3a1c2c"/></radialGradient></defs>` +
        `<rect width="300" height="300" fill="url(#g)"/></svg>`,
    );
    const { svg } = await traceImage(image, { effort: 'medium' });
    assert.match(svg, /<radialGradient /);
    const quality = psnr(await render(svg, 300), image.pixels);
    assert.ok(quality >= 32, `PSNR ${quality.toFixed(1)} dB`);
  });

  it('draws an oval vignette as an elliptical radial gradient (a gradientTransform)', async () => {
    const image = await rgba(
      `<svg ${NS} width="400" height="240"><defs><radialGradient id="v" cx="200" cy="120" r="220" gradientUnits="userSpaceOnUse" gradientTransform="translate(200 120) scale(1 0.55) translate(-200 -120)"><stop offset="0" stop-color="#8a96b0"/><stop offset="1" stop-color="#1c2030"/></radialGradient></defs>` +
        `<rect width="400" height="240" fill="url(#v)"/></svg>`,
    );
    const { svg } = await traceImage(image, { effort: 'medium' });
    assert.match(svg, /<radialGradient [^>]*gradientTransform="matrix\(/);
    const quality = psnr(await render(svg, 400), image.pixels);
    assert.ok(quality >= 32, `PSNR ${quality.toFixed(1)} dB`);
  });

  it('leaves flat art alone: a flat icon on transparency or a flat opaque poster gets no gradient', async () => {
    const icon = await rgba(`<svg ${NS} width="128" height="128"><rect x="8" y="8" width="112" height="112" rx="20" fill="#3465a4"/><circle cx="64" cy="64" r="30" fill="#fce94f"/></svg>`);
    const poster = await rgba(`<svg ${NS} width="320" height="200"><rect width="320" height="200" fill="#f3efe6"/><circle cx="110" cy="100" r="60" fill="#d9534f"/><rect x="190" y="40" width="90" height="120" fill="#2b5d8a"/></svg>`);
    for (const image of [icon, poster]) assert.doesNotMatch((await traceImage(image, { effort: 'medium' })).svg, /Gradient/);
  });

  it('keeps soft transparency translucent in a glossy icon traced with gradients', async () => {
    const image = await rgba(
      `<svg ${NS} width="256" height="256"><defs><radialGradient id="ball" cx="0.4" cy="0.35" r="0.65"><stop offset="0" stop-color="#ffe89a"/><stop offset="0.6" stop-color="#f29a1d"/><stop offset="1" stop-color="#a0480a"/></radialGradient>` +
        `<filter id="b"><feGaussianBlur stdDeviation="8"/></filter></defs>` +
        `<ellipse cx="128" cy="222" rx="90" ry="18" fill="#000" fill-opacity="0.4" filter="url(#b)"/><circle cx="128" cy="118" r="96" fill="url(#ball)"/></svg>`,
    );
    const { svg } = await traceImage(image, { effort: 'medium' });
    assert.match(svg, /Gradient /);
    assert.match(svg, /fill-opacity="/, 'the shadow stays translucent');
    const quality = psnr(await render(svg, 256), image.pixels);
    assert.ok(quality >= 27, `PSNR ${quality.toFixed(1)} dB`);
  });

  it('emits gradients that the SVG pipeline keeps as they are: short unique ids, units, stops', async () => {
    const image = await rgba(WALLPAPER);
    const { svg } = await traceImage(image, { effort: 'medium' });
    const ids = [...svg.matchAll(/Gradient id="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(ids.length > 0);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.ok(id.length <= 3, id);
    const finished = finishSvg(svg);
    for (const attribute of ['gradientUnits="userSpaceOnUse"', 'offset="', 'stop-color="', 'fill="url(#']) assert.ok(finished.includes(attribute), attribute);
    assert.equal((finished.match(/<stop /g) ?? []).length, (svg.match(/<stop /g) ?? []).length);
    assert.ok(psnr(await render(finished, image.width), await render(svg, image.width)) > 50, 'renders the same after the pipeline');
  });
});
