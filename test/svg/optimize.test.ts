import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { optimizeTree } from '../../src/svg/optimize.ts';
import { parseSvg } from '../../src/svg/parse.ts';
import { serializeSvg } from '../../src/svg/serialize.ts';
import { element, isElement, type SvgElement } from '../../src/svg/tree.ts';

// A model's SVG made smaller with no visible change: the bytes delivered, compared whole.

const NS = 'xmlns="http://www.w3.org/2000/svg"';
const optimized = (markup: string) => {
  const root = parseSvg(markup);
  optimizeTree(root);
  return serializeSvg(root);
};

describe('optimizeTree', () => {
  it('unwraps attribute-free groups and drops empty ones, keeping groups with attributes or an id', () => {
    assert.equal(
      optimized(`<svg ${NS} viewBox="0 0 10 10"><g><g><rect width="1" height="1"/></g></g><g fill="red"><circle r="1"/></g><g/><defs> </defs><g id="target"/></svg>`),
      `<svg ${NS} viewBox="0 0 10 10"><rect width="1" height="1"/><g fill="red"><circle r="1"/></g><g id="target"/></svg>`,
    );
  });

  it('rounds absolute coordinates to about 1/100 000 of the viewBox', () => {
    assert.equal(
      optimized(`<svg ${NS} viewBox="0 0 100 100"><rect x="1.234567" y="2.0000001" width="10.5" height="3"/><path d="M1.23456789 2.3456789L3.3333333 4"/></svg>`),
      `<svg ${NS} viewBox="0 0 100 100"><rect x="1.235" y="2" width="10.5" height="3"/><path d="M1.235 2.346L3.333 4"/></svg>`,
    );
    // A drawing 10 000 units wide keeps a tenth; one without a viewBox is taken as 512 wide.
    assert.equal(optimized(`<svg ${NS} viewBox="0 0 10000 10000"><circle cx="1.2345678" r="5"/></svg>`), `<svg ${NS} viewBox="0 0 10000 10000"><circle cx="1.2" r="5"/></svg>`);
    assert.equal(optimized(`<svg ${NS}><circle cx="1.2345678" r="5"/></svg>`), `<svg ${NS}><circle cx="1.235" r="5"/></svg>`);
  });

  it('rounds relative path data to six significant digits, whatever the viewBox, so errors do not add up along the path', () => {
    assert.equal(
      optimized(`<svg ${NS} viewBox="0 0 10000 10000"><path d="m1.23456789 2.3456789l3.3333333 4z"/></svg>`),
      `<svg ${NS} viewBox="0 0 10000 10000"><path d="m1.23457 2.34568l3.33333 4z"/></svg>`,
    );
  });

  it('leaves attributes that are not coordinates as written', () => {
    const markup = `<svg ${NS} viewBox="0 0 10 10"><rect width="1" height="1" transform="translate(1.23456789 2)" opacity="0.123456789"/></svg>`;
    assert.equal(optimized(markup), markup);
  });

  it('keeps every group when a style sheet may select by structure', () => {
    const markup = `<svg ${NS} viewBox="0 0 10 10"><style>g &gt; rect { fill: red }</style><g><rect width="1" height="1"/></g><g/></svg>`;
    assert.equal(optimized(markup), markup);
  });

  it('keeps a group that SMIL animates, and the structure inside text and switch', () => {
    const markup =
      `<svg ${NS} viewBox="0 0 10 10"><g><animate attributeName="opacity" values="0;1" dur="1s"/><rect width="1" height="1"/></g>` +
      '<text><g><tspan>a</tspan></g></text><switch><g><rect width="2" height="2"/></g></switch></svg>';
    assert.equal(optimized(markup), markup);
  });

  it('flattens groups nested ten thousand deep without recursion', () => {
    let inner: SvgElement = element('rect', { width: '1', height: '1' });
    for (let depth = 0; depth < 10_000; depth++) inner = element('g', {}, [inner]);
    const root = element('svg', { viewBox: '0 0 10 10' }, [inner]);
    optimizeTree(root);
    assert.deepEqual(root.children.map((child) => (isElement(child) ? child.name : 'text')), ['rect']);
  });
});
