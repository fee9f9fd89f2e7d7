import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseSvg, SvgParseError } from '../../src/svg/parse.ts';
import { finishSvg } from '../../src/svg/pipeline.ts';
import { RENDER_BUDGET, SvgReferenceError } from '../../src/svg/references.ts';
import { isElement, type SvgElement } from '../../src/svg/tree.ts';

const NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"';
const svg = (content: string) => `<svg ${NS}>${content}</svg>`;

function assertRefused(markup: string, message: RegExp): void {
  assert.throws(() => finishSvg(markup), (error: unknown) => {
    assert.ok(error instanceof SvgReferenceError, `expected SvgReferenceError, got ${String(error)}`);
    assert.ok(error instanceof SvgParseError, 'callers catch SvgParseError');
    assert.match(error.message, message);
    return true;
  });
}

/** Ten levels of ten references each: 10^10 elements once expanded, in about a kilobyte. */
function laughs(reference: (id: string) => string, container = (id: string, body: string) => `<g id="${id}">${body}</g>`): string {
  let defs = container('l0', '<rect width="1" height="1"/>');
  for (let level = 1; level <= 10; level++) defs += container(`l${level}`, reference(`l${level - 1}`).repeat(10));
  return svg(`<defs>${defs}</defs>${reference('l10')}`);
}

describe('reference fan-out', () => {
  it('refuses a kilobyte of nested <use> that expands to ten billion elements', () => {
    const bomb = laughs((id) => `<use href="#${id}"/>`);
    assert.ok(bomb.length < 2048, `${bomb.length} bytes`);
    assertRefused(bomb, new RegExp(`more than ${RENDER_BUDGET}`));
  });

  const containers: Array<[string, (id: string, body: string) => string, (id: string) => string]> = [
    ['<symbol>', (id, b) => `<symbol id="${id}">${b}</symbol>`, (id) => `<use xlink:href="#${id}"/>`],
    ['<pattern> fills', (id, b) => `<pattern id="${id}" width="1" height="1">${b}</pattern>`, (id) => `<rect fill="url(#${id})"/>`],
    ['<mask>', (id, b) => `<mask id="${id}">${b}</mask>`, (id) => `<rect mask="url(#${id})"/>`],
    ['<clipPath>', (id, b) => `<clipPath id="${id}">${b}</clipPath>`, (id) => `<rect clip-path="url(#${id})"/>`],
    ['<marker>', (id, b) => `<marker id="${id}">${b}</marker>`, (id) => `<line x2="1" marker-end="url(#${id})"/>`],
    ['style attributes', (id, b) => `<pattern id="${id}">${b}</pattern>`, (id) => `<rect style="fill: url('#${id}')"/>`],
    ['a style sheet', (id, b) => `<pattern id="${id}">${b}</pattern>`, (id) => `<rect class="r${id}"/><style>.r${id}{fill:url(#${id})}</style>`],
    ['animation values', (id, b) => `<pattern id="${id}">${b}</pattern>`, (id) => `<rect><set attributeName="fill" to="url(#${id})"/></rect>`],
  ];
  for (const [label, container, reference] of containers) {
    it(`refuses the same bomb built from ${label}`, () => {
      assertRefused(laughs(reference, container), new RegExp(`more than ${RENDER_BUDGET}`));
    });
  }

  it('counts a marker once per vertex of the paths it decorates, also through inheritance and style sheets', () => {
    const marker = `<marker id="m">${'<circle r="1"/>'.repeat(100)}</marker>`;
    const path = `<path d="M0 0${' L1 1'.repeat(3000)}"/>`;
    assertRefused(svg(`<defs>${marker}</defs><g marker-mid="url(#m)">${path}</g>`), /more than/);
    assertRefused(svg(`<style>path { marker-mid: url(#m) }</style><defs>${marker}</defs>${path}`), /more than/);
    // The same marker on a short path is fine.
    assert.ok(finishSvg(svg(`<defs>${marker}</defs><path d="M0 0 L1 1 L2 2" marker-mid="url(#m)"/>`)).includes('marker-mid'));
  });

  it('counts a pattern fill set on a group once for every shape inside it', () => {
    const pattern = `<pattern id="p">${'<rect/>'.repeat(500)}</pattern>`;
    assertRefused(svg(`<defs>${pattern}</defs><g fill="url(#p)">${'<circle r="1"/>'.repeat(600)}</g>`), /more than/);
    assert.doesNotThrow(() => finishSvg(svg(`<defs>${pattern}</defs><g fill="url(#p)">${'<circle r="1"/>'.repeat(100)}</g>`)));
  });

  it(`accepts a document that expands to exactly ${RENDER_BUDGET} elements and refuses one more`, () => {
    // svg + defs + g (1 + 99 rects) + 2474 uses of it (101 each) + 24 rects = 250 000.
    const doc = (extra: number) =>
      svg(`<defs><g id="a">${'<rect/>'.repeat(99)}</g></defs>${'<use href="#a"/>'.repeat(2474)}${'<rect/>'.repeat(24 + extra)}`);
    assert.equal(RENDER_BUDGET, 250_000);
    assert.doesNotThrow(() => finishSvg(doc(0)));
    assertRefused(doc(1), /more than 250000/);
  });

  it('counts an id several elements share as the dearest of them, for every reference to it', () => {
    // Two groups share the id: a reference draws the larger (1 + 999 rects) once; 250 of them pass the budget.
    const doc = (uses: number) => svg(`<defs><g id="x"><rect/></g><g id="x">${'<rect/>'.repeat(999)}</g></defs>${'<use href="#x"/>'.repeat(uses)}`);
    assert.doesNotThrow(() => finishSvg(doc(240)));
    assertRefused(doc(250), /more than/);
  });

  it('keeps real drawings: a sprite sheet, an illustration whose style sheet names hundreds of gradients, shared ids', () => {
    const sprites = svg(`<defs><symbol id="tree">${'<path d="M0 0L1 1"/>'.repeat(20)}</symbol></defs>${'<use href="#tree" x="3"/>'.repeat(1000)}`);
    assert.equal(parseSvg(finishSvg(sprites)).children.length, 1001);
    const gradients = Array.from({ length: 200 }, (_, i) => `<linearGradient id="g${i}"><stop offset="0"/><stop offset="1"/></linearGradient>`);
    const classes = Array.from({ length: 200 }, (_, i) => `.st${i}{fill:url(#g${i})}`).join('');
    const shapes = Array.from({ length: 5000 }, (_, i) => `<path class="st${i % 200}" d="M0 0L${i} 1"/>`).join('');
    assert.doesNotThrow(() => finishSvg(svg(`<style>${classes}</style><defs>${gradients.join('')}</defs>${shapes}`)));
    assert.doesNotThrow(() => finishSvg(svg('<rect id="x"/><rect id="x"/><use href="#x"/>')));
  });

  it('reads a style sheet whose selectors it cannot narrow as applying to every element', () => {
    const pattern = `<pattern id="p">${'<rect/>'.repeat(500)}</pattern>`;
    const many = '<circle r="1"/>'.repeat(600);
    for (const selector of ['*', 'g > :not(.x) circle', '[fill]', 'circle:first-child', '@media screen { circle']) {
      const sheet = selector.startsWith('@') ? `${selector} { fill: url(#p) } }` : `${selector} { fill: url(#p) }`;
      // `*` and `[fill]` also reach the pattern's own rects: a pattern filled with itself.
      assertRefused(svg(`<style>${sheet}</style><defs>${pattern}</defs>${many}`), /more than|cycle/);
    }
    // A class no element has matches nothing.
    assert.doesNotThrow(() => finishSvg(svg(`<style>.none { fill: url(#p) }</style><defs>${pattern}</defs>${many}`)));
  });
});

describe('reference cycles', () => {
  const cycles: Array<[string, string]> = [
    ['a <use> of itself', '<use id="u" href="#u"/>'],
    ['a <use> of its own ancestor', '<g id="a"><g><use href="#a"/></g></g>'],
    ['two groups using each other', '<defs><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></defs>'],
    ['a three-step loop through <symbol>', '<symbol id="a"><use href="#b"/></symbol><symbol id="b"><use href="#c"/></symbol><symbol id="c"><use href="#a"/></symbol>'],
    ['a pattern filling its own content', '<pattern id="p"><rect fill="url(#p)"/></pattern>'],
    ['a mask masking its content with itself', '<mask id="m"><rect mask="url(#m)"/></mask>'],
    ['a clip path and a marker referring to each other', '<clipPath id="c"><path marker-end="url(#m)"/></clipPath><marker id="m"><rect clip-path="url(#c)"/></marker>'],
    ['gradient templates', '<linearGradient id="g1" href="#g2"/><linearGradient id="g2" href="#g1"/>'],
    ['a pattern template of itself', '<pattern id="p" href="#p"/>'],
    ['a style sheet rule', '<style>.c{fill:url(#p)}</style><pattern id="p"><rect class="c"/></pattern>'],
    ['a duplicated id', '<g id="x"/><g id="x"><use href="#x"/></g>'],
  ];
  for (const [label, content] of cycles) {
    it(`refuses ${label}`, () => assertRefused(svg(content), /cycle/));
  }

  it('allows a group that refers to its own child (clip path defined inside it)', () => {
    assert.doesNotThrow(() => finishSvg(svg('<g id="a" clip-path="url(#c)"><clipPath id="c"><rect/></clipPath><rect/></g>')));
  });

  it('refuses a long chain without overflowing the stack', () => {
    const chain = Array.from({ length: 20_000 }, (_, i) => `<g id="n${i}"><use href="#n${i + 1}"/></g>`).join('');
    assertRefused(svg(`<defs>${chain}<g id="n20000"><use href="#n0"/></g></defs>`), /cycle/);
    assert.doesNotThrow(() => finishSvg(svg(`<defs>${chain}<g id="n20000"/></defs>`)));
  });
});

// ---------------------------------------------------------------------------------------------
// Property: whatever reference graph a document has, what comes out expands within the budget
// and has no cycle. The oracle below is independent of the implementation: it walks the
// emitted tree naively, drawing each <use> target and each url(#…) target once per reference.

/** Markers are left to the corpus above: the check bounds them by vertices, which the oracle does not model. */
const REFERENCE_ATTRIBUTES = ['fill', 'mask', 'clip-path'];
const DEFINITIONS = new Set(['defs', 'symbol', 'pattern', 'marker', 'mask', 'clipPath']);

function elementsIn(el: SvgElement): number {
  return 1 + el.children.reduce((n, child) => n + (isElement(child) ? elementsIn(child) : 0), 0);
}

function oracle(root: SvgElement): { cyclic: boolean; drawn: number } {
  const byId = new Map<string, SvgElement>();
  const all: SvgElement[] = [];
  (function index(el: SvgElement) {
    all.push(el);
    const id = el.attributes.get('id');
    if (id !== undefined && !byId.has(id)) byId.set(id, el);
    for (const child of el.children) if (isElement(child)) index(child);
  })(root);
  const targets = (el: SvgElement): SvgElement[] => {
    const out: SvgElement[] = [];
    const href = el.attributes.get('href');
    if (el.name === 'use' && href?.startsWith('#') && byId.has(href.slice(1))) out.push(byId.get(href.slice(1))!);
    for (const name of REFERENCE_ATTRIBUTES) {
      const match = /^url\(#(.+)\)$/.exec(el.attributes.get(name) ?? '');
      if (match && byId.has(match[1]!)) out.push(byId.get(match[1]!)!);
    }
    return out;
  };
  const onPath = new Set<SvgElement>();
  let cyclic = false;
  const memo = new Map<SvgElement, number>();
  const draw = (el: SvgElement): number => {
    if (onPath.has(el)) {
      cyclic = true;
      return 0;
    }
    if (memo.has(el)) return memo.get(el)!;
    onPath.add(el);
    let n = 1;
    // A definition is drawn where it is referenced, not where it stands; where it stands (and
    // in every <use> clone of its container) its elements are still there to build.
    for (const child of el.children) {
      if (!isElement(child)) continue;
      n += el.name !== 'defs' && !DEFINITIONS.has(child.name) ? draw(child) : elementsIn(child);
    }
    for (const target of targets(el)) n += draw(target);
    onPath.delete(el);
    n = Math.min(n, Number.MAX_SAFE_INTEGER);
    memo.set(el, n);
    return n;
  };
  const drawn = draw(root);
  for (const el of all) draw(el); // cycles in unreferenced definitions count too
  return { cyclic, drawn };
}

/** A random reference graph: containers of several kinds, each holding shapes and references. */
const graphArbitrary = fc
  .integer({ min: 1, max: 12 })
  .chain((size) =>
    fc.array(
      fc.record({
        kind: fc.constantFrom('g', 'symbol', 'pattern', 'mask', 'clipPath', 'marker'),
        shapes: fc.integer({ min: 0, max: 40 }),
        references: fc.array(
          fc.record({
            to: fc.integer({ min: 0, max: size - 1 }),
            via: fc.constantFrom('use', ...REFERENCE_ATTRIBUTES),
            times: fc.integer({ min: 1, max: 6 }),
            // Most references point forward (acyclic); one in ten may point anywhere.
            anywhere: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
          }),
          { maxLength: 4 },
        ),
        nestedIn: fc.option(fc.integer({ min: 0, max: size - 1 }), { nil: undefined }),
      }),
      { minLength: size, maxLength: size },
    ),
  );

interface GraphNode {
  kind: string;
  shapes: number;
  references: { to: number; via: string; times: number; anywhere: boolean }[];
  nestedIn?: number;
}

function documentOf(graph: GraphNode[]): string {
  const body = (i: number): string => {
    const node = graph[i]!;
    let inner = '<rect width="1" height="1"/>'.repeat(node.shapes);
    for (const { to: chosen, via, times, anywhere } of node.references) {
      const to = anywhere || chosen > i ? chosen : i + 1 + (chosen % Math.max(1, graph.length - i - 1));
      if (to >= graph.length) continue;
      inner += (via === 'use' ? `<use href="#n${to}"/>` : `<line x2="1" ${via}="url(#n${to})"/>`).repeat(times);
    }
    // Nest some containers inside others (only into a later one, so the tree stays a tree).
    graph.forEach((child, j) => {
      if (child.nestedIn === i && j > i) inner += element(j);
    });
    return inner;
  };
  const element = (i: number) => `<${graph[i]!.kind} id="n${i}">${body(i)}</${graph[i]!.kind}>`;
  const top = graph.map((node, i) => (node.nestedIn !== undefined && i > node.nestedIn ? '' : element(i))).join('');
  return svg(`<defs>${top}</defs><use href="#n0"/>`);
}

describe('reference graphs (property-based)', () => {
  it('emits only documents that expand within the budget and have no cycle', { timeout: 120_000 }, () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(graphArbitrary, (graph) => {
        const markup = documentOf(graph);
        let out: string;
        try {
          out = finishSvg(markup);
        } catch (error) {
          assert.ok(error instanceof SvgReferenceError, String(error));
          refused++;
          // A refusal must be deserved: the input really has a cycle or really is large.
          const input = oracle(parseSvg(markup));
          assert.ok(input.cyclic || input.drawn > RENDER_BUDGET, `refused a small acyclic document (${String(error)}, oracle ${JSON.stringify(input)}): ${markup}`);
          return;
        }
        accepted++;
        const result = oracle(parseSvg(out));
        assert.equal(result.cyclic, false, `emitted a cycle: ${out.slice(0, 400)}`);
        assert.ok(result.drawn <= RENDER_BUDGET, `emitted ${result.drawn} elements to draw`);
      }),
      { numRuns: 400, seed: 20261123 },
    );
    assert.ok(accepted > 50 && refused > 50, `both outcomes exercised (accepted ${accepted}, refused ${refused})`);
  });

  it('accepts every tree and every acyclic graph that stays small', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(graphArbitrary, (graph) => {
        // Point every reference forward (to a higher index): the graph is then acyclic.
        const dag = graph.map((node) => ({
          ...node,
          nestedIn: undefined,
          references: node.references.map((r) => ({ ...r, anywhere: false, times: 1 })),
        }));
        const markup = documentOf(dag);
        if (oracle(parseSvg(markup)).drawn > RENDER_BUDGET) return;
        assert.doesNotThrow(() => finishSvg(markup), markup.slice(0, 400));
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});
