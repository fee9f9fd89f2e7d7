import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSvg } from '../../src/svg/parse.ts';
import { element, walk, type SvgElement } from '../../src/svg/tree.ts';

const ids = (elements: Iterable<SvgElement>) => [...elements].map((el) => el.attributes.get('id') ?? el.name);

describe('walk', () => {
  it('visits every element once, each before its descendants, and no text', () => {
    const root = parseSvg('<svg id="r"><g id="a"><rect id="a1"/>text<circle id="a2"/></g><path id="b"/></svg>');
    const order = ids(walk(root));
    assert.deepEqual([...order].sort(), ['a', 'a1', 'a2', 'b', 'r']);
    assert.equal(order[0], 'r');
    assert.ok(order.indexOf('a') < order.indexOf('a1') && order.indexOf('a') < order.indexOf('a2'));
  });

  it('reads an element’s children after the loop body ran for it, so the body may replace them', () => {
    const root = parseSvg('<svg id="r"><g id="a"><rect id="old"/></g></svg>');
    const seen: string[] = [];
    for (const el of walk(root)) {
      seen.push(el.attributes.get('id') ?? el.name);
      if (el.attributes.get('id') === 'a') el.children = [element('circle', { id: 'new' })];
    }
    assert.deepEqual(seen, ['r', 'a', 'new']);
  });

  it('may be left early and walked again; each walk starts afresh', () => {
    const root = parseSvg('<svg id="r"><g id="a"/><g id="b"/></svg>');
    const tree = walk(root);
    for (const el of tree) if (el.name === 'svg') break;
    assert.equal(ids(tree).length, 3);
    assert.equal(ids(tree).length, 3);
  });

  it('walks a nesting deeper than the call stack allows', () => {
    const root = element('svg');
    let at = root;
    for (let depth = 0; depth < 200_000; depth++) {
      const child = element('g');
      at.children.push(child);
      at = child;
    }
    let count = 0;
    for (const _ of walk(root)) count++;
    assert.equal(count, 200_001);
  });
});
