import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSheet } from '../../src/svg/css/sheet.ts';
import { parseSvg } from '../../src/svg/parse.ts';
import { SvgReferenceError } from '../../src/svg/references.ts';
import { sanitizeTree } from '../../src/svg/sanitize.ts';
import { declarationReferences, sheetReferences, type SheetReference } from '../../src/svg/style-sheet.ts';

// sheetReferences bounds which elements a rule's url(#id) may reach (an empty subject list is
// every element). It reads declarations and selectors with svg/css but finds rules itself: the
// cases below are ones where a browser-faithful reading (parseSheet) would bound less, and ones
// where svg/css does not read as a browser would, so the bound widens.

/** The references as `property url(#target) → subjects` lines, `*` for every element. */
function read(css: string): string[] {
  return sheetReferences(css).map(show);
}

function show({ target, property, subjects }: SheetReference): string {
  const names = subjects.map((s) => `${s.type ?? ''}${s.id === undefined ? '' : `#${s.id}`}${s.classes.map((c) => `.${c}`).join('')}`);
  return `${property} #${target} → ${subjects.length === 0 ? '*' : names.join(',')}`;
}

const UNREAD = (target: string, subjects = '*') => ['fill', 'marker', 'mask'].map((p) => `${p} #${target} → ${subjects}`);

describe('sheetReferences reads ordinary rules by their rightmost compound', () => {
  it('type, id and classes; combinators, pseudo-classes and attribute tests only widen', () => {
    assert.deepEqual(read('g > path.a:hover { marker-end: url(#m) } #x, .b.c { fill: url("#p") }'), [
      'marker-end #m → path.a',
      'fill #p → #x,.b.c',
    ]);
    assert.deepEqual(read('[fill] { fill: url(#p) } g :not(.x) { stroke: url(#q) }'), ['fill #p → *', 'stroke #q → *']);
  });

  it('reads the same rules a browser would, and comments as nothing', () => {
    assert.deepEqual(read('/* a { fill: url(#no) } */ rect { fill: red; stroke: url(#s) !important }'), ['stroke #s → rect']);
  });
});

describe('sheetReferences stays an upper bound where parseSheet would read less', () => {
  it('a rule after a statement at-rule: every element (parseSheet: the rule alone)', () => {
    const css = '@layer base; rect { fill: url(#p) }';
    const rules = parseSheet(css).filter((item) => item.kind === 'style');
    assert.deepEqual(rules.map((rule) => rule.prelude), ['rect'], 'parseSheet reads the rule on its own');
    assert.deepEqual(read(css), ['fill #p → *']);
  });

  it('declarations outside any rule: every element (parseSheet drops them)', () => {
    assert.deepEqual(read('fill: url(#p); rect { }'), []);
    assert.deepEqual(read('@media screen { rect { } fill: url(#p) }'), ['fill #p → *']);
    assert.deepEqual(read('rect { } } stroke: url(#q)'), ['stroke #q → *']);
  });

  it('groups whose condition does not hold, and groups nested past parseSheet\'s depth, are read', () => {
    assert.deepEqual(read('@media print { rect { fill: url(#p) } }'), ['fill #p → rect']);
    const deep = `${'@media screen { '.repeat(12)}rect { fill: url(#p) }${' }'.repeat(12)}`;
    assert.equal(JSON.stringify(parseSheet(deep)).includes('url(#p)') && !JSON.stringify(parseSheet(deep)).includes('"kind":"style"'), true);
    assert.deepEqual(read(deep), ['fill #p → rect']);
  });

  it('a brace inside a string ends the block: what follows counts for every element (parseSheet: the rule)', () => {
    // The rest, `"; fill: url(#p) `, is outside any rule, with a quote left open: read for every property too.
    assert.deepEqual(read('a { content: "}"; fill: url(#p) }'), UNREAD('p'));
  });
});

describe('sheetReferences widens what svg/css does not read as a browser would', () => {
  it('a nested rule inside a block is not a declaration: its url() counts under every property', () => {
    assert.deepEqual(read('g { path { marker-end: url(#m) } }'), UNREAD('m', 'g'));
  });

  it('a selector list svg/css cannot read, nests too deep or is too long to read, counts for every element', () => {
    assert.deepEqual(read('svg|rect { fill: url(#p) }'), ['fill #p → *']);
    assert.deepEqual(read(`rect${':is('.repeat(20)}a${')'.repeat(20)} { fill: url(#p) }`), ['fill #p → *']);
    assert.deepEqual(read(`rect:is(${Array.from({ length: 2000 }, () => 'a').join(',')}) { fill: url(#p) }`), ['fill #p → rect']);
    assert.deepEqual(read(`rect:is(${Array.from({ length: 200_000 }, () => 'a').join(',')}) { fill: url(#p) }`), ['fill #p → *']);
  });

  it('a `;` inside quotes or parentheses: each url() counts under every property', () => {
    assert.deepEqual(read('rect { fill: url("#a;b") }'), UNREAD('a;b', 'rect'));
    // `url(#a(b)` is one token to a browser, so `marker-end` is a declaration of its own.
    assert.deepEqual(read('rect { fill: url(#a(b); marker-end: url(#m) }'), [...UNREAD('a(b', 'rect'), ...UNREAD('m', 'rect')]);
  });

  it('a url() in a style attribute\'s comment or in a declaration it drops still counts', () => {
    assert.deepEqual(declarationReferences('fill: url(#a); stroke: red'), [{ property: 'fill', target: 'a' }]);
    assert.deepEqual(declarationReferences('fill: red /* url(#a) */').map((r) => r.property), ['fill', 'marker', 'mask']);
    assert.deepEqual(declarationReferences('1fill: url(#a)').map((r) => r.property), ['fill', 'marker', 'mask']);
  });
});

describe('the reference check through the sanitizer', () => {
  const NS = 'xmlns="http://www.w3.org/2000/svg"';
  const marker = `<marker id="m">${'<circle r="1"/>'.repeat(100)}</marker>`;
  const path = `<path d="M0 0${' L1 1'.repeat(3000)}"/>`;

  it('counts a quoted url() holding a `;`, and a marker after `url(#a(b);`, for what they draw', () => {
    const pattern = `<pattern id="p;q">${'<rect/>'.repeat(500)}</pattern>`;
    const many = '<circle r="1"/>'.repeat(600);
    assert.throws(() => sanitizeTree(parseSvg(`<svg ${NS}><style>circle { fill: url("#p;q") }</style><defs>${pattern}</defs>${many}</svg>`)), SvgReferenceError);
    const sheet = 'path { fill: url(#a(b); marker-mid: url(#m) }';
    assert.throws(() => sanitizeTree(parseSvg(`<svg ${NS}><style>${sheet}</style><defs>${marker}</defs>${path}</svg>`)), SvgReferenceError);
    assert.doesNotThrow(() => sanitizeTree(parseSvg(`<svg ${NS}><style>${sheet}</style><defs>${marker}</defs><path d="M0 0 L1 1"/></svg>`)));
  });
});

describe('sheetReferences at the largest sheet (800 KB) is linear', () => {
  const N = 800 * 1024;
  const fill = (piece: string, length = N) => piece.repeat(Math.ceil(length / piece.length)).slice(0, length);
  const sheets: [string, string][] = [
    ['`:not(` nested without end', `${fill(':not(')}{fill:url(#a)}`],
    ['a selector list of 400 000 selectors', `:is(${fill('a,', N - 100)}a){fill:url(#a)}`],
    ['400 000 compounds', `${fill('a ')}{fill:url(#a)}`],
    ['rules', fill('a{fill:url(#a)}')],
    ['keyframes', fill('@keyframes k{to{fill:url(#a)}}')],
    ['strings holding braces', fill('a{content:"}";fill:url(#a)}')],
    ['an unclosed quote', fill("a{font:'x;fill:url(#a)}")],
    ['`;` inside url()', fill('a{fill:url(#a;b)}')],
    ['nested blocks', `${fill('a{', N - 1000)}${fill('}', 1000)}`],
  ];
  for (const [label, css] of sheets) {
    // A quadratic scan would take minutes here; the budget leaves room for a loaded machine.
    it(label, { timeout: 30_000 }, () => {
      let best = Infinity;
      for (let run = 0; run < 2; run++) {
        const start = performance.now();
        sheetReferences(css);
        best = Math.min(best, performance.now() - start);
      }
      assert.ok(best < 5000, `${best.toFixed(0)} ms`);
    });
  }
});
