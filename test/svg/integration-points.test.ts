import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseSvg } from '../../src/svg/parse.ts';
import { finishSvg } from '../../src/svg/pipeline.ts';
import { isElement, type SvgElement, type SvgNode } from '../../src/svg/tree.ts';
import { TINY_PNG_BASE64 } from '../helpers/fixtures.ts';

const svg = (content: string) => `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">${content}</svg>`;
const inner = (out: string) => out.replace(/^<svg[^>]*>/, '').replace(/<\/svg>$/, '');

function* elements(root: SvgElement): Generator<SvgElement> {
  yield root;
  for (const child of root.children) if (isElement(child)) yield* elements(child);
}

const textOf = (el: SvgElement) => el.children.map((c: SvgNode) => ('text' in c ? c.text : '')).join('');

/** What must hold for every emitted document, whatever went in. */
function assertNoBreakout(out: string): void {
  const root = parseSvg(out);
  for (const el of elements(root)) {
    if (el.name === 'title' || el.name === 'desc') {
      assert.ok(el.children.every((c) => !isElement(c)), `<${el.name}> holds markup in ${out}`);
    }
    if (el.name === 'style') assert.ok(!textOf(el).includes('<'), `a <style> holds '<' in ${out}`);
  }
  // As raw text too: nothing between <title>/<desc> and its end tag opens a tag.
  for (const match of out.matchAll(/<(title|desc)(?:\s[^>]*)?>([\s\S]*?)<\/\1>/g)) {
    assert.ok(!match[2]!.includes('<'), `markup inside <${match[1]}> in ${out}`);
  }
}

describe('HTML integration points (<title>, <desc>)', () => {
  const hostile: Array<[string, string]> = [
    ['a <style> whose CDATA closes it and opens an <img>', '<desc><style><![CDATA[</style><img src=x onerror=alert(1)>]]></style></desc>'],
    ['a <style> inside <title>', '<title><style>*{}</style>name</title>'],
    ['nested markup inside <desc>', '<desc>a <b onclick="x">bold</b> <svg><rect/></svg> move</desc>'],
    ['a comment and CDATA inside <title>', '<title><!-- <img src=x onerror=alert(1)> -->t<![CDATA[<img src=x onerror=alert(2)>]]></title>'],
    ['a <foreignObject> inside <desc>', '<desc><foreignObject><div>x</div></foreignObject></desc>'],
    ['a <title> inside a <title>', '<title><title><style>x</style></title></title>'],
  ];
  for (const [label, content] of hostile) {
    it(`keeps only plain text for ${label}`, () => {
      const out = finishSvg(svg(content));
      assertNoBreakout(out);
      assert.doesNotMatch(out, /<style|<img|<b |<div/);
    });
  }

  it('keeps the plain text itself, escaped', () => {
    assert.equal(inner(finishSvg(svg('<title>Fish &amp; chips &lt;3</title><desc>a <b>b</b> c</desc>'))), '<title>Fish &amp; chips &lt;3</title><desc>a  c</desc>');
  });

  it("drops a <style> sheet that contains '<', wherever it is, and keeps one that does not", () => {
    assert.equal(inner(finishSvg(svg('<style><![CDATA[/* </style><img src=x onerror=alert(1)> */ rect{fill:red}]]></style><rect/>'))), '<rect/>');
    assert.equal(inner(finishSvg(svg('<g><style>rect{fill:red} &lt;/style&gt;</style></g>'))), '<g/>');
    assert.equal(inner(finishSvg(svg('<style><![CDATA[ a > b { fill: red } ]]></style>'))), '<style> a &gt; b { fill: red } </style>');
  });

  it('holds for random nesting of integration points, style sheets, text and markup (property-based)', { timeout: 60_000 }, () => {
    // Text as it may appear in well-formed markup: escaped, in CDATA, in comments.
    const texts = fc.constantFrom(
      'plain',
      '&lt;/style&gt;&lt;img src=x onerror=alert(1)&gt;',
      '<![CDATA[</style><img src=x onerror=alert(1)>]]>',
      '<![CDATA[</title><img>]]>',
      '<!-- <img> -->',
      ' a &lt; b ',
      '&amp;lt;script&amp;gt;',
      ']]&gt;',
    );
    const tree = fc.letrec<{ node: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        texts,
        fc
          .tuple(fc.constantFrom('title', 'desc', 'style', 'g', 'text', 'foreignObject', 'a', 'switch', 'tspan'), fc.array(tie('node'), { maxLength: 4 }))
          .map(([name, children]) => `<${name}>${children.join('')}</${name}>`),
      ),
    }));
    let checked = 0;
    fc.assert(
      fc.property(fc.array(tree.node, { maxLength: 5 }), (children) => {
        assertNoBreakout(finishSvg(svg(children.join(''))));
        checked++;
      }),
      { numRuns: 500, seed: 11 },
    );
    assert.equal(checked, 500);
  });
});

/** A 1×1 GIF and WebP, and a PNG claiming 20000×20000 (header only). */
const TINY_GIF_BASE64 = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';
const TINY_WEBP_BASE64 = 'UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA=';
function hugePngHeader(): string {
  const bytes = Buffer.from(TINY_PNG_BASE64, 'base64');
  bytes.writeUInt32BE(20_000, 16);
  bytes.writeUInt32BE(20_000, 20);
  return bytes.toString('base64');
}

describe('legitimate links and embedded rasters survive', () => {
  it('keeps a fragment-only link', () => {
    assert.equal(inner(finishSvg(svg('<a href="#detail"><rect id="detail"/></a>'))), '<a href="#detail"><rect id="detail"/></a>');
  });

  for (const [mime, payload] of [['png', TINY_PNG_BASE64], ['gif', TINY_GIF_BASE64], ['webp', TINY_WEBP_BASE64]] as const) {
    it(`keeps an <image> embedding a real ${mime.toUpperCase()}`, () => {
      const href = `data:image/${mime};base64,${payload}`;
      assert.equal(inner(finishSvg(svg(`<image href="${href}" width="4" height="4"/>`))), `<image href="${href}" width="4" height="4"/>`);
      assert.equal(inner(finishSvg(svg(`<image xlink:href="${href}"/>`))), `<image xlink:href="${href}"/>`);
    });
  }

  it('keeps a JPEG, checked from its bytes', async () => {
    const sharp = (await import('sharp')).default;
    const jpeg = (await sharp({ create: { width: 2, height: 2, channels: 3, background: '#f00' } }).jpeg().toBuffer()).toString('base64');
    const href = `data:image/jpeg;base64,${jpeg}`;
    assert.equal(inner(finishSvg(svg(`<image href="${href}"/>`))), `<image href="${href}"/>`);
  });

  it('rewrites an accepted data: URL to its canonical form (no parameters, no whitespace)', () => {
    const out = finishSvg(svg(`<image href=" DATA:image/PNG;base64,${TINY_PNG_BASE64.slice(0, 20)}\n${TINY_PNG_BASE64.slice(20)} "/>`));
    assert.equal(inner(out), `<image href="data:image/png;base64,${TINY_PNG_BASE64}"/>`);
  });

  const refused: Array<[string, string]> = [
    ['an SVG image', 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIG9ubG9hZD0iYWxlcnQoMSkiLz4='],
    ['an SVG image as text', 'data:image/svg+xml,<svg onload=alert(1)/>'],
    ['HTML', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='],
    ['a PNG label on GIF bytes', `data:image/png;base64,${TINY_GIF_BASE64}`],
    ['a GIF label on PNG bytes', `data:image/gif;base64,${TINY_PNG_BASE64}`],
    ['a PNG whose header claims 20000×20000 pixels', `data:image/png;base64,${hugePngHeader()}`],
    ['bytes that are no image', `data:image/png;base64,${Buffer.from('not an image at all').toString('base64')}`],
    ['broken base64', 'data:image/png;base64,iVBOR*w0KGgo='],
    ['a charset parameter', `data:image/png;charset=utf-8;base64,${TINY_PNG_BASE64}`],
    ['an external URL', 'https://images.example/logo.png'],
    ['a fragment', '#logo'],
    ['javascript', 'javascript:alert(1)'],
  ];
  for (const [label, href] of refused) {
    it(`drops an <image> embedding ${label}`, () => {
      assert.equal(inner(finishSvg(svg(`<image href="${href.replace(/</g, '&lt;')}"/><rect/>`))), '<rect/>');
    });
  }

  it('drops a link to anything but a fragment, keeping its content', () => {
    assert.equal(inner(finishSvg(svg('<a href="https://evil.example/"><rect/></a><a xlink:href="javascript:alert(1)"><circle/></a>'))), '<a><rect/></a><a><circle/></a>');
  });
});
