import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_DEPTH, parseSvg, SvgParseError } from '../../src/svg/parse.ts';
import { finishDraft, finishSvg } from '../../src/svg/pipeline.ts';
import { isElement, type SvgElement } from '../../src/svg/tree.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK_NS = 'http://www.w3.org/1999/xlink';
const OPEN = `<svg xmlns="${SVG_NS}">`;
const OPEN_XLINK = `<svg xmlns="${SVG_NS}" xmlns:xlink="${XLINK_NS}">`;

/** Wraps element content in a root that declares both namespaces, and runs the full pipeline. */
function clean(content: string): string {
  return finishSvg(`<svg xmlns="${SVG_NS}" xmlns:xlink="${XLINK_NS}">${content}</svg>`);
}

/** The content of a finished document's root, after checking the document reparses. */
function body(svg: string): string {
  parseSvg(svg);
  if (/^<svg[^<>]*\/>$/.test(svg)) return '';
  const match = /^<svg[^<>]*>([\s\S]*)<\/svg>$/.exec(svg);
  assert.ok(match, `not a single <svg> document: ${svg}`);
  return match[1]!;
}

function* elements(root: SvgElement): Generator<SvgElement> {
  yield root;
  for (const child of root.children) if (isElement(child)) yield* elements(child);
}

const DANGEROUS_ELEMENTS = /^(?:.*:)?(?:script|foreignobject|iframe|object|embed|feimage|html|body|handler|listener)$/i;
/** The only reference an <image> may keep: an embedded PNG, JPEG, GIF or WebP. */
const EMBEDDED_RASTER = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/;
const DANGEROUS_TEXT = ['<script', 'javascript', 'vbscript', 'data:text/html', 'evil.example', '@import', 'expression(', 'alert(', 'image-set', '\\'];

/**
 * Independent of the allowlist: the output reparses, carries no dangerous element, no event
 * handler, no reference leaving the document, and none of the hostile payload's tell-tale strings.
 */
function assertSafe(svg: string): void {
  const root = parseSvg(svg);
  for (const el of elements(root)) {
    assert.doesNotMatch(el.name, DANGEROUS_ELEMENTS, `dangerous element <${el.name}> in ${svg}`);
    for (const [name, value] of el.attributes) {
      assert.doesNotMatch(name, /^on/i, `event handler ${name} in ${svg}`);
      if (/(^|:)href$/.test(name)) {
        assert.match(value.trim(), el.name === 'image' ? EMBEDDED_RASTER : /^#/, `external reference ${name}="${value}" in ${svg}`);
      }
    }
  }
  const lower = svg.toLowerCase();
  for (const needle of DANGEROUS_TEXT) assert.ok(!lower.includes(needle), `"${needle}" survived in ${svg}`);
}

function assertRefused(markup: string, message: RegExp): void {
  assert.throws(() => finishSvg(markup), (error: unknown) => {
    assert.ok(error instanceof SvgParseError, `expected SvgParseError, got ${String(error)}`);
    assert.match(error.message, message);
    return true;
  });
}

describe('finishSvg removes script', () => {
  it('drops <script> in any case, with or without a namespace prefix, and keeps its siblings', () => {
    const out = clean(
      '<script>alert(1)</script><SCRIPT>alert(2)</SCRIPT><Script type="text/ecmascript">alert(3)</Script>' +
        `<svg:script xmlns:svg="${SVG_NS}">alert(4)</svg:script>` +
        '<h:script xmlns:h="http://www.w3.org/1999/xhtml" src="http://evil.example/x.js"/><rect width="1"/>',
    );
    assert.equal(out, `${OPEN}<rect width="1"/></svg>`);
  });

  it('drops a <script> nested inside allowed elements', () => {
    assert.equal(clean('<g><defs><script>alert(1)</script></defs><circle r="2"/></g>'), `${OPEN}<g><defs/><circle r="2"/></g></svg>`);
  });

  it('keeps CDATA in <text> only as escaped text, and drops CDATA inside <script> entirely', () => {
    const out = clean('<text><![CDATA[<script>alert(1)</script>]]></text><script><![CDATA[alert(2)]]></script>');
    assert.equal(body(out), '<text>&lt;script&gt;alert(1)&lt;/script&gt;</text>');
    assert.deepEqual(parseSvg(out).children, [{ name: 'text', attributes: new Map(), children: [{ text: '<script>alert(1)</script>' }] }]);
  });

  it('drops comments, even ones holding markup', () => {
    assert.equal(clean('<!-- <script>alert(1)</script> --><rect/>'), `${OPEN}<rect/></svg>`);
  });

  it('drops processing instructions, including an external xml-stylesheet', () => {
    const out = finishSvg('<?xml version="1.0" encoding="UTF-8"?><?xml-stylesheet href="http://evil.example/x.css"?><svg><?php echo 1; ?><rect/></svg>');
    assert.equal(out, `${OPEN}<rect/></svg>`);
  });
});

describe('finishSvg removes event handlers', () => {
  it('drops every on* attribute whatever its case, on the root, shapes and animations', () => {
    const out = finishSvg(
      '<svg onload="alert(1)" ONLOAD="alert(2)" width="10"><rect onclick="alert(3)" onMouseOver="alert(4)" fill="red"/>' +
        '<animate attributeName="opacity" onbegin="alert(5)" onend="alert(6)" dur="1s"/></svg>',
    );
    assert.equal(out, `<svg width="10" xmlns="${SVG_NS}"><rect fill="red"/><animate attributeName="opacity" dur="1s"/></svg>`);
    assertSafe(out);
  });

  it('drops thousands of hostile attributes on one element and keeps the safe one', () => {
    const hostile = Array.from({ length: 20_000 }, (_, i) => `on${i}="alert(${i})"`).join(' ');
    assert.equal(clean(`<rect ${hostile} width="3"/>`), `${OPEN}<rect width="3"/></svg>`);
  });

  it('refuses a duplicated attribute instead of choosing one of the values', () => {
    assertRefused('<svg><use href="#a" href="http://evil.example/"/></svg>', /duplicate attribute/);
  });
});

describe('finishSvg keeps references inside the document', () => {
  const hostileHrefs = [
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    '  javascript:alert(1)',
    'java&#x09;script:alert(1)',
    'java&#10;script:alert(1)',
    '&#106;avascript:alert(1)',
    'jav&#x61;script&#x3A;alert(1)',
    'vbscript:msgbox(1)',
    'data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;',
    'data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+',
    'http://evil.example/sprite.svg#icon',
    'https://evil.example/sprite.svg#icon',
    '//evil.example/sprite.svg#icon',
    'file:///etc/passwd#x',
    'sprite.svg#icon',
  ];

  for (const value of hostileHrefs) {
    it(`drops href and xlink:href "${value}"`, () => {
      const out = clean(`<use href="${value}" x="1"/><use xlink:href="${value}" x="2"/><textPath href="${value}">t</textPath>`);
      assert.equal(body(out), '<use x="1"/><use x="2"/><textPath>t</textPath>');
      // With no xlink:href left, the xlink namespace declaration goes too.
      assert.ok(out.startsWith(OPEN), out);
    });
  }

  it('keeps same-document fragment references and declares xlink only when it is used', () => {
    const out = clean('<defs><path id="p" d="M0 0H10"/></defs><use href="#p"/><use xlink:href="#p" x="5"/>');
    assert.equal(out, `${OPEN_XLINK}<defs><path id="p" d="M0 0H10"/></defs><use href="#p"/><use xlink:href="#p" x="5"/></svg>`);
  });

  it('adds the xlink declaration when the source used xlink:href without declaring it on the root', () => {
    const out = finishSvg(`<svg><g xmlns:xlink="${XLINK_NS}"><use xlink:href="#a"/></g></svg>`);
    assert.equal(out, `<svg xmlns="${SVG_NS}" xmlns:xlink="${XLINK_NS}"><g xmlns:xlink="${XLINK_NS}"><use xlink:href="#a"/></g></svg>`);
  });

  it('drops an xlink:href spelled with another prefix bound to the xlink namespace', () => {
    const out = clean(`<use xmlns:x="${XLINK_NS}" x:href="http://evil.example/a.svg#b"/>`);
    assert.equal(body(out), '<use/>');
  });

  it('forces the SVG namespace on the root and drops foreign namespace declarations on children', () => {
    const out = finishSvg('<svg xmlns="http://www.w3.org/1999/xhtml"><g xmlns="http://www.w3.org/1999/xhtml"><rect/></g></svg>');
    assert.equal(out, `${OPEN}<g><rect/></g></svg>`);
  });

  it('drops <a> and <image> with external or script targets, and <feImage> and <foreignObject> with everything inside them', () => {
    const out = clean(
      '<a href="javascript:alert(1)"><rect/></a>' +
        '<image href="http://evil.example/track.png" width="1" height="1"/>' +
        '<image xlink:href="data:image/svg+xml;base64,PHN2Zy8+"/>' +
        '<filter id="f"><feImage href="http://evil.example/x.png"/><feGaussianBlur stdDeviation="2"/></filter>' +
        '<foreignObject width="10" height="10"><body xmlns="http://www.w3.org/1999/xhtml">' +
        '<iframe src="javascript:alert(1)"/><img src="x" onerror="alert(1)"/></body></foreignObject>' +
        '<circle r="1"/>',
    );
    assert.equal(body(out), '<a><rect/></a><filter id="f"><feGaussianBlur stdDeviation="2"/></filter><circle r="1"/>');
    assertSafe(out);
  });
});

describe('finishSvg removes unsafe CSS', () => {
  const hostileStyles = [
    'fill:url(http://evil.example/x.svg#p)',
    "fill: url( 'https://evil.example/x.svg#p' )",
    'background:url(data:image/png;base64,AAAA)',
    'fill:URL(//evil.example/x)',
    'width:expression(alert(1))',
    'width:EXPRESSION (alert(1))',
    '@import "http://evil.example/x.css";',
    'background:url(javascript:alert(1))',
    'behavior:url(x.htc)',
    '-moz-binding:url(x.xml#x)',
    'fill:\\75 rl(http://evil.example/x#p)',
    'fill:u\\rl(http://evil.example/x#p)',
    'cursor:image-set("http://evil.example/x.png" 1x)',
    'cursor:-webkit-image-set("http://evil.example/x.png" 1x)',
    'fill:url(#a',
    'fill:url(url(#a))',
    'fill:url("#a)',
    "fill:url('#a\"')",
    // 'İ' lower-cases to two characters; a case-folded copy of the value must not shift indexes.
    'x:İİİİİİİİİİİİİİİİ;fill:url(//evil.example/p#a)',
  ];

  for (const css of hostileStyles) {
    it(`drops the style attribute ${JSON.stringify(css)}`, () => {
      const out = clean(`<rect style="${css.replace(/"/g, '&quot;')}" width="1"/>`);
      assert.equal(body(out), '<rect width="1"/>');
    });

    it(`drops a <style> element holding ${JSON.stringify(css)}`, () => {
      const out = clean(`<style>rect{fill:red} rect{${css.replace(/&/g, '&amp;').replace(/</g, '&lt;')}}</style><rect/>`);
      assert.equal(body(out), '<rect/>');
    });
  }

  it('keeps safe CSS byte for byte, including same-document url(#id)', () => {
    const css = '.a{fill:url(#g);stroke:url( "#h" )} @media (min-width: 10px) { .b > .c { opacity: .5 } }';
    const out = clean(`<style>${css.replace(/>/g, '&gt;')}</style><rect class="a" style="fill: url(#g); stroke-width: 2"/>`);
    assert.equal(body(out), `<style>${css.replace(/>/g, '&gt;')}</style><rect class="a" style="fill: url(#g); stroke-width: 2"/>`);
    assert.deepEqual((parseSvg(out).children[0] as SvgElement).children, [{ text: css }]);
  });

  it('reads a 400 KB run of unclosed url( in one pass and refuses it', { timeout: 10_000 }, () => {
    // A backtracking pattern took tens of seconds on this; the scan is linear.
    const hostile = `fill:${'url('.repeat(100_000)}`;
    const out = clean(`<rect style="${hostile}" fill="${'url('.repeat(100_000)})" width="1"/>`);
    assert.equal(body(out), '<rect width="1"/>');
  });

  it('does not let an element nested in <style> carry CSS past the check', () => {
    const out = clean('<style><title>@import url(http://evil.example/x.css);</title>rect{fill:red}</style>');
    assert.equal(body(out), '<style>rect{fill:red}</style>');
  });

  it('drops presentation attributes that point outside the document, even through CSS escapes', () => {
    const out = clean(
      '<rect fill="url(http://evil.example/p.svg#g)" stroke="url(#ok)" filter="url(data:image/svg+xml,x)"' +
        ' mask="\\75 rl(http://evil.example/m.svg#m)" clip-path="u\\rl(//evil.example/c#c)" width="1"/>',
    );
    assert.equal(body(out), '<rect stroke="url(#ok)" width="1"/>');
    assertSafe(out);
  });
});

describe('finishSvg keeps SMIL animation safe', () => {
  for (const target of ['href', 'xlink:href', ' HREF ', 'style', 'class', 'onload', 'onclick', 'OnBegin']) {
    it(`drops attributeName="${target}" from <set>, <animate> and <animateTransform>`, () => {
      const out = clean(
        `<set attributeName="${target}" to="#x" begin="0s"/><animate attributeName="${target}" values="#a;#b" dur="1s"/>` +
          `<animateTransform attributeName="${target}" type="rotate" from="0" to="90"/>`,
      );
      assert.equal(body(out), '<set to="#x" begin="0s"/><animate values="#a;#b" dur="1s"/><animateTransform type="rotate" from="0" to="90"/>');
    });
  }

  it('drops animation values that carry script or external URLs', () => {
    const out = clean(
      '<set attributeName="fill" to="javascript:alert(1)"/>' +
        '<animate attributeName="fill" values="red;url(http://evil.example/g.svg#g)" dur="1s"/>' +
        '<animate attributeName="fill" from="\\75 rl(http://evil.example/g.svg#g)" to="red" dur="1s"/>',
    );
    assert.equal(body(out), '<set attributeName="fill"/><animate attributeName="fill" dur="1s"/><animate attributeName="fill" to="red" dur="1s"/>');
    assertSafe(out);
  });

  it('keeps ordinary animations exactly as written', () => {
    const animation =
      '<path id="track" d="M0 0C10 10 20 10 30 0"/>' +
      '<circle r="5" fill="red"><animate attributeName="r" values="5;10;5" keyTimes="0;0.5;1" dur="2s" repeatCount="indefinite"/>' +
      '<animate attributeName="fill" from="red" to="url(#g)" begin="1s" dur="1s" fill="freeze"/>' +
      '<set attributeName="opacity" to="0.5" begin="3s"/>' +
      '<animateMotion dur="4s" rotate="auto"><mpath href="#track"/></animateMotion></circle>' +
      '<rect width="10" height="10"><animateTransform attributeName="transform" attributeType="XML" type="rotate" from="0 5 5" to="360 5 5" dur="3s" additive="sum" calcMode="spline" keySplines="0.4 0 0.2 1"/></rect>';
    assert.equal(clean(animation), `${OPEN}${animation}</svg>`);
  });
});

describe('finishSvg refuses markup it cannot parse safely', () => {
  it('refuses a billion-laughs document with SvgParseError instead of expanding it', () => {
    const levels = Array.from({ length: 10 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join('');
    const bomb = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY l0 "lol">${levels}]><svg><text>&l10;</text></svg>`;
    assertRefused(bomb, /DOCTYPE/);
  });

  it('refuses an external entity (XXE) and a plain public DOCTYPE', () => {
    assertRefused('<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><svg><text>&xxe;</text></svg>', /DOCTYPE/);
    assertRefused('<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg/>', /DOCTYPE/);
  });

  it('refuses a reference to an undeclared entity', () => {
    assertRefused('<svg><text>&xxe;</text></svg>', /not well-formed XML: undefined entity/);
  });

  it(`accepts nesting of exactly ${MAX_DEPTH} elements and refuses one level more`, () => {
    const nest = (depth: number) => `<svg>${'<g>'.repeat(depth - 1)}${'</g>'.repeat(depth - 1)}</svg>`;
    assert.equal(body(finishSvg(nest(MAX_DEPTH))), '<g>'.repeat(MAX_DEPTH - 2) + '<g/>' + '</g>'.repeat(MAX_DEPTH - 2));
    assertRefused(nest(MAX_DEPTH + 1), new RegExp(`nested deeper than ${MAX_DEPTH}`));
  });

  it('refuses very deep nesting cleanly, without a stack overflow', () => {
    assertRefused(`<svg>${'<g>'.repeat(100_000)}${'</g>'.repeat(100_000)}</svg>`, /nested deeper/);
    assert.equal(finishDraft(`<svg>${'<g>'.repeat(100_000)}<rect/>${'</g>'.repeat(100_000)}</svg>`), undefined, 'a draft that deep is skipped');
  });

  const notSvg: Array<[string, string, RegExp]> = [
    ['an HTML root', '<html><svg/></html>', /root element must be <svg>, not <html>/],
    ['a prefixed svg root', `<s:svg xmlns:s="${SVG_NS}"/>`, /root element must be <svg>, not <s:svg>/],
    ['an upper-case SVG root', '<SVG/>', /root element must be <svg>/],
    ['an empty string', '', /must contain a root element/],
    ['plain text', 'hello', /not well-formed/],
    ['two roots', '<svg/><svg/>', /only one root/],
    ['an unclosed root', '<svg><rect/>', /not well-formed/],
    ['mismatched tags', '<svg><g></svg>', /not well-formed/],
  ];
  for (const [label, markup, message] of notSvg) {
    it(`refuses ${label}`, () => assertRefused(markup, message));
  }

  it('keeps error messages short and free of the raw input', () => {
    const root = `<${'x'.repeat(5000)}/>`;
    assert.throws(() => finishSvg(root), (error: Error) => error.message.length < 120);
  });
});

describe('finishSvg keeps benign drawings intact', () => {
  it('returns a canonical benign document unchanged', () => {
    const doc =
      `<svg xmlns="${SVG_NS}" xmlns:xlink="${XLINK_NS}" viewBox="0 0 100 100" width="100" height="100" preserveAspectRatio="xMidYMid meet">` +
      '<title>Badge &amp; &lt;logo&gt;</title><desc>A test drawing</desc>' +
      '<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1" gradientUnits="objectBoundingBox">' +
      '<stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#000" stop-opacity="0.5"/></linearGradient>' +
      '<radialGradient id="r" cx="50%" cy="50%" r="50%" href="#g"/>' +
      '<clipPath id="c"><circle cx="50" cy="50" r="40"/></clipPath>' +
      '<filter id="f" x="-10%" y="-10%" width="120%" height="120%"><feDropShadow dx="1" dy="1" stdDeviation="1" flood-color="#000"/></filter>' +
      '<path id="p" d="M10 10 L90 90 Q50 0 10 90 Z"/></defs>' +
      '<rect width="100" height="100" rx="8" fill="url(#g)" clip-path="url(#c)" filter="url(#f)"/>' +
      '<use href="#p" stroke="red" stroke-width="2" fill="none"/><use xlink:href="#p" transform="translate(5 5) rotate(10)"/>' +
      '<polygon points="0,0 10,0 5,8" fill-rule="evenodd"/>' +
      '<text x="50" y="55" text-anchor="middle" font-family="Helvetica, Arial, sans-serif" xml:space="preserve">  Hello, <tspan font-weight="bold">wörld</tspan> 🎉 </text>' +
      '<text><textPath href="#p" startOffset="10%">on a path</textPath></text>' +
      '<g data-layer="top" class="x y" opacity="0.8"><ellipse cx="1" cy="2" rx="3" ry="4"/></g>' +
      '</svg>';
    assert.equal(finishSvg(doc), doc);
  });

  it('drops whitespace between elements but keeps the text of text elements', () => {
    const out = finishSvg('<svg>\n  <g>\n    <text> a  b </text>\n  </g>\n  stray text\n</svg>');
    assert.equal(out, `${OPEN}<g><text> a  b </text></g></svg>`);
  });

  it('escapes text and attribute values so the output always reparses to the same values', () => {
    const out = clean('<text id="a&quot;b&lt;c" font-family="&apos;Open Sans&apos;&#9;x">1 &lt; 2 &amp;&amp; 3 &gt; 2 ]]&gt;</text>');
    assert.equal(body(out), '<text id="a&quot;b&lt;c" font-family="\'Open Sans\'&#9;x">1 &lt; 2 &amp;&amp; 3 &gt; 2 ]]&gt;</text>');
    const text = parseSvg(out).children[0] as SvgElement;
    assert.deepEqual([...text.attributes], [['id', 'a"b<c'], ['font-family', "'Open Sans'\tx"]]);
    assert.deepEqual(text.children, [{ text: '1 < 2 && 3 > 2 ]]>' }]);
  });
});

describe('finishSvg applies the requested viewBox', () => {
  const viewBox = { minX: -1.5, minY: 0, width: 10.25, height: 20 };

  it('replaces the source viewBox in place', () => {
    const out = finishSvg('<svg width="5" viewBox="0 0 1 1" height="5"><rect/></svg>', viewBox);
    assert.equal(out, `<svg width="5" viewBox="-1.5 0 10.25 20" height="5" xmlns="${SVG_NS}"><rect/></svg>`);
  });

  it('adds a viewBox when the source had none', () => {
    assert.equal(finishSvg('<svg/>', viewBox), `<svg xmlns="${SVG_NS}" viewBox="-1.5 0 10.25 20"/>`);
  });

  it('leaves the source viewBox alone when none is requested', () => {
    for (const none of [undefined, null]) {
      assert.equal(finishSvg('<svg viewBox="0 0 3 4"/>', none), `<svg viewBox="0 0 3 4" xmlns="${SVG_NS}"/>`);
    }
  });

  it('only sets the root viewBox, not nested ones', () => {
    const out = finishSvg('<svg><svg viewBox="0 0 1 1"/></svg>', { minX: 0, minY: 0, width: 2, height: 2 });
    assert.equal(out, `<svg xmlns="${SVG_NS}" viewBox="0 0 2 2"><svg viewBox="0 0 1 1"/></svg>`);
  });
});

