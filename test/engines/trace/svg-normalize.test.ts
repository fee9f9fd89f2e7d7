import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeSvgInput } from '../../../src/engines/trace/svg-normalize.ts';

const NS = 'xmlns="http://www.w3.org/2000/svg"';
const attribute = (svg: string, name: string) => svg.match(new RegExp(`^<svg[^>]* ${name}="([^"]*)"`))?.[1];

describe('an SVG input to vectorize', () => {
  it('keeps its drawing and gets an explicit viewBox, width and height', () => {
    const svg = normalizeSvgInput(`<svg ${NS} width="100" height="50"><rect x="10" y="10" width="5" height="5"/></svg>`, { autoCrop: false });
    assert.equal(attribute(svg, 'viewBox'), '0 0 100 50');
    assert.equal(attribute(svg, 'width'), '100');
    assert.equal(attribute(svg, 'height'), '50');
    assert.match(svg, /<rect x="10" y="10" width="5" height="5"\/>/);
  });

  it('scales width and height to target_size, longer side first, keeping the viewBox', () => {
    const svg = normalizeSvgInput(`<svg ${NS} viewBox="0 0 40 10"><rect width="40" height="10"/></svg>`, { autoCrop: false, targetSize: 200 });
    assert.equal(attribute(svg, 'viewBox'), '0 0 40 10');
    assert.equal(attribute(svg, 'width'), '200');
    assert.equal(attribute(svg, 'height'), '50');
  });

  it('crops the viewBox to the subject with a margin of 4 % of its longer side', () => {
    const svg = normalizeSvgInput(`<svg ${NS} viewBox="0 0 100 100"><rect x="40" y="30" width="20" height="10" fill="#000"/></svg>`, { autoCrop: true });
    const [x, y, width, height] = attribute(svg, 'viewBox')!.split(' ').map(Number) as [number, number, number, number];
    assert.ok(Math.abs(x - 39.2) < 0.2 && Math.abs(y - 29.2) < 0.2, `${x} ${y}`);
    assert.ok(Math.abs(width - 21.6) < 0.3 && Math.abs(height - 11.6) < 0.3, `${width} ${height}`);
  });
});
