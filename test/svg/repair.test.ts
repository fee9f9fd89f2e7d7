import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { svgFromModelText } from '../../src/svg/model-output.ts';
import { closeTrailingTag, completePathData, completePoints, repairSvg } from '../../src/svg/repair.ts';
import { serializeSvg } from '../../src/svg/serialize.ts';
import { isElement, type SvgElement } from '../../src/svg/tree.ts';

const NS = 'xmlns="http://www.w3.org/2000/svg"';

function* elements(root: SvgElement): Generator<SvgElement> {
  for (const pending = [root]; pending.length > 0; ) {
    const element = pending.pop()!;
    yield element;
    for (const child of element.children) if (isElement(child)) pending.push(child);
  }
}

/** Every attribute value of the repaired tree, as `element.name=value`. */
const valuesOf = (root: SvgElement) => [...elements(root)].flatMap((e) => [...e.attributes].map(([name, value]) => `${e.name}.${name}=${value}`));

describe('an attribute value never swallows markup', () => {
  it('path data keeps its longest valid prefix, and comes back as it is when all of it is valid', () => {
    const cases: [string, string][] = [
      ['M10 10 L20 20 C1 2 3 4 5', 'M10 10 L20 20'],
      ['M0 0 L10 10 Sorry, let me rewrite that', 'M0 0 L10 10'],
      ['M0 0 L10 10"/><circle r="4"/>', 'M0 0 L10 10'],
      ['M0 0 L1 L2 2', 'M0 0'],
      ['M0 0 #### L2 2', 'M0 0'],
      ['L1 1 L2 2', ''],
      ['M1 1 2 2 3', 'M1 1 2 2'],
      ['M0 0h10v10z M5 5 l1', 'M0 0h10v10z M5 5'],
      ['M0 0 z 5 5', 'M0 0 z'],
      ['M0 0 a1 1 0 2 1 1 1', 'M0 0'],
      ['M0 0 L1,,1', 'M0 0'],
    ];
    for (const [data, prefix] of cases) assert.equal(completePathData(data), prefix, data);
    for (const valid of ['M0 0a1 1 0 011 1z', 'M.5.5L-1e2-1E+2 3,4', ' m1 1 2 2 3 3 Z m0 0 ', 'M0,0 C1,1,2,2,3,3 S4 4 5 5 Q6 6 7 7 T8 8 H9 V10', '']) {
      assert.equal(completePathData(valid), valid);
    }
  });

  it('a points list keeps its complete pairs', () => {
    assert.equal(completePoints('1,1 2,2 3'), '1,1 2,2');
    assert.equal(completePoints('0,0 10,0"/><circle r="2"/>'), '0,0 10,0');
    assert.equal(completePoints(' 1 1, 2 2 '), ' 1 1, 2 2 ');
  });

  it('a path whose quote was never closed draws its own commands, and the element it swallowed is not in any value', () => {
    const tree = repairSvg(`<svg ${NS} viewBox="0 0 4 4"><path d="M0 0 L4 4/><rect width="4" height="4"/><polygon points="0,0 4,0 4,4/></svg>`, { truncated: false })!;
    const values = valuesOf(tree);
    assert.ok(values.includes('path.d=M0 0 L4 4'), values.join('\n'));
    assert.ok(values.every((v) => !/<[A-Za-z/!?]/.test(v)), values.join('\n'));
  });

  it('any other value holding a tag is dropped, read strictly or leniently', () => {
    const strict = repairSvg(`<svg ${NS} viewBox="0 0 4 4"><rect width="4" height="4" class="a&lt;/svg&gt;b" fill="red"/></svg>`, { truncated: false })!;
    assert.equal(serializeSvg(strict), `<svg ${NS} viewBox="0 0 4 4"><rect width="4" height="4" fill="red"/></svg>`);
    const lenient = repairSvg(`<svg ${NS} viewBox="0 0 4 4"><rect width="4" height="4" fill="red" stroke="blue<!-- x -->"><title>t</svg>`, { truncated: false })!;
    assert.equal(serializeSvg(lenient), `<svg ${NS} viewBox="0 0 4 4"><rect width="4" height="4" fill="red"><title>t</title></rect></svg>`);
  });

  it('the delivered SVG of an answer cut inside a path keeps only that path\'s complete commands', () => {
    const answer = `<svg ${NS} viewBox="0 0 9 9"><rect width="9" height="9" fill="#eee"/><path fill="red" d="M1 1 L8 1 L8 8 L1 8 Z M4 4 L5`;
    const { svg } = svgFromModelText(answer, { truncated: true, fallbackViewBox: '0 0 512 512' });
    assert.equal(svg, `<svg ${NS} viewBox="0 0 9 9"><rect width="9" height="9" fill="#eee"/><path fill="red" d="M1 1 L8 1 L8 8 L1 8 Z M4 4"/></svg>`);
  });
});

describe('a viewBox with no area is replaced like a missing one', () => {
  const viewBoxOf = (root: string, fallbackViewBox?: string) => repairSvg(`${root}<rect width="4" height="4"/></svg>`, { truncated: false, fallbackViewBox })?.attributes.get('viewBox');

  it('from width and height when the root has them', () => {
    for (const bad of ['0 0 0 0', '0 0 -5 10', '0 0 10 0', 'auto', '0 0 10', '0 0 NaN 10', '0 0 1e999 10', '']) {
      assert.equal(viewBoxOf(`<svg ${NS} viewBox="${bad}" width="20" height="10px">`, '0 0 512 512'), '0 0 20 10', bad);
    }
  });

  it('else from the viewBox the model was asked for, else not at all', () => {
    assert.equal(viewBoxOf(`<svg ${NS} viewBox="0 0 0 0">`, '0 0 24 24'), '0 0 24 24');
    assert.equal(viewBoxOf(`<svg ${NS} viewBox="0 0 0 0" width="100%" height="100%">`, '0 0 24 24'), '0 0 24 24');
    assert.equal(viewBoxOf(`<svg ${NS} viewBox="0 0 0 0">`), undefined);
  });

  it('a viewBox with an area stays as written', () => {
    for (const good of ['0 0 4 4', '0,0,4,4', ' -2 -2 4.5 4e1 ', '0, 0, 1, 1']) assert.equal(viewBoxOf(`<svg ${NS} viewBox="${good}" width="20" height="10">`, '0 0 512 512'), good);
  });

  it('the delivered SVG of an answer with viewBox="0 0 0 0" draws in the one asked for', () => {
    const { svg } = svgFromModelText(`<svg ${NS} viewBox="0 0 0 0"><circle cx="12" cy="12" r="8"/></svg>`, { truncated: false, fallbackViewBox: '0 0 24 24' });
    assert.equal(svg, `<svg ${NS} viewBox="0 0 24 24"><circle cx="12" cy="12" r="8"/></svg>`);
  });
});

describe('shapes never closed', () => {
  it('a thousand unclosed shapes all come out side by side, none lost to the depth limit', () => {
    const tree = repairSvg(`<svg ${NS} viewBox="0 0 32 32">${Array.from({ length: 1000 }, (_, i) => `<rect x="${i % 32}" y="${i >> 5}" width="1" height="1" fill="#${(i * 4099).toString(16).padStart(6, '0').slice(-6)}"><title>${i}</title>`).join('')}</svg>`, { truncated: false })!;
    const rects = tree.children.filter(isElement);
    assert.equal(rects.length, 1000);
    assert.ok(rects.every((rect, i) => rect.name === 'rect' && rect.children.length === 1 && (rect.children[0] as SvgElement).name === 'title' && rect.attributes.get('x') === String(i % 32)));
  });
});

describe('a tag cut short', () => {
  it('keeps its complete attributes however much white space follows them', () => {
    assert.equal(closeTrailingTag(`<svg><rect width="4"${' '.repeat(100_000)}`), '<svg><rect width="4"/>');
    assert.equal(closeTrailingTag(`<svg> <rect${' '.repeat(10)}`), '<svg> <rect/>');
    assert.equal(closeTrailingTag('<svg> <rect'), '<svg> <rect/>');
    assert.equal(closeTrailingTag('<svg><rect x=4'), '<svg><rect x=4/>');
    assert.equal(closeTrailingTag(`<svg><rect class="${'a'.repeat(100_000)}`), '<svg>');
    assert.equal(closeTrailingTag(`<svg><path fill='red' d = 'M0 0 L1`), `<svg><path fill='red' d = 'M0 0 L1'/>`);
  });
});
