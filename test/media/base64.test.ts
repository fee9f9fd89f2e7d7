import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/contract/errors.ts';
import { decodeBase64Input } from '../../src/media/base64.ts';
import { cleanSvgInput, svgFromBase64 } from '../../src/media/svg-input.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The call fails with a 400 invalid_request that names `param`. */
function assertInvalidRequest(call: () => unknown, param: string, message?: RegExp): void {
  assert.throws(call, (error: unknown) => {
    assert.ok(error instanceof ApiError, `expected ApiError, got ${String(error)}`);
    assert.equal(error.code, 'invalid_request');
    assert.equal(error.status, 400);
    assert.equal(error.param, param);
    assert.ok(error.message.includes(`'${param}'`), `message does not name the field: ${error.message}`);
    if (message) assert.match(error.message, message);
    return true;
  });
}

const text = (value: string) => decodeBase64Input(value, 'image.base64').bytes.toString('utf8');

describe('decodeBase64Input accepts', () => {
  it('standard base64, padded or not', () => {
    assert.equal(text('aGVsbG8='), 'hello');
    assert.equal(text('aGVsbG8'), 'hello');
    assert.equal(text('aGk='), 'hi');
    assert.equal(text('aGk'), 'hi');
    assert.equal(text('aGVs'), 'hel');
  });

  it('the URL-safe alphabet, decoding to the same bytes as the standard one', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x3e]);
    assert.equal(bytes.toString('base64'), '+/+/Pg==');
    assert.deepEqual(decodeBase64Input('+/+/Pg==', 'p').bytes, bytes);
    assert.deepEqual(decodeBase64Input('-_-_Pg', 'p').bytes, bytes);
  });

  it('line breaks, tabs and spaces anywhere in the payload', () => {
    assert.equal(text('aGVs\r\nbG8g\nd29y\tbGQ= '), 'hello world');
    assert.equal(text(' aGVs bG8= '), 'hello');
  });

  it('a data: URL prefix, reporting its media type in lower case', () => {
    const png = decodeBase64Input(`data:image/png;base64,${PNG_SIGNATURE.toString('base64')}`, 'p');
    assert.deepEqual(png, { bytes: PNG_SIGNATURE, declaredType: 'image/png' });
    assert.equal(decodeBase64Input('DATA:Image/SVG+XML;BASE64,PHN2Zy8+', 'p').declaredType, 'image/svg+xml');
  });

  it('data: URL parameters before ;base64', () => {
    const decoded = decodeBase64Input('data:image/svg+xml;charset=utf-8;name=a.svg;base64,PHN2Zy8+', 'p');
    assert.deepEqual(decoded, { bytes: Buffer.from('<svg/>'), declaredType: 'image/svg+xml' });
  });

  it('a data: URL without a media type, reporting none', () => {
    const decoded = decodeBase64Input('data:;base64,aGk=', 'p');
    assert.equal(decoded.bytes.toString(), 'hi');
    assert.equal('declaredType' in decoded, false);
  });
});

describe('decodeBase64Input refuses with a 400 naming the field', () => {
  const cases: Array<[string, string]> = [
    ['an empty string', ''],
    ['only whitespace', ' \r\n\t '],
    ['only padding', '===='],
    ['characters outside both alphabets', 'aGVs*bG8='],
    ['a non-ASCII letter', 'aGVsbG8é'],
    ['a non-breaking space', 'aGVs\u00a0bG8='],
    ['a form feed', 'aGVs\fbG8='],
    ['a dot', 'aGVs.bG8='],
    ['padding in the middle', 'aG==VsbG8='],
    ['padding first', '=aGVsbG8'],
    ['three padding characters', 'aG==='],
    ['a lone trailing character (6 bits, no whole byte)', 'aGVsb'],
    ['a lone trailing character, padded', 'aGVsb==='],
    ['too much padding for the length', 'aGk=='],
    ['padding after a complete group', 'aGVs=='],
    ['padding that leaves a character out', 'aGVsb='],
    ['padding that does not complete the group', 'aG='],
    ['a single character and padding', 'A=='],
  ];
  for (const [label, value] of cases) {
    it(label, () => assertInvalidRequest(() => decodeBase64Input(value, 'image.base64'), 'image.base64'));
  }

  it('a data: URL that is not base64-encoded', () => {
    assertInvalidRequest(() => decodeBase64Input('data:image/svg+xml,<svg/>', 'svg_source.base64'), 'svg_source.base64', /data: URL must be base64-encoded/);
    assertInvalidRequest(() => decodeBase64Input('data:image/png;base64', 'p'), 'p', /data: URL/);
  });

  it('a data: URL with an empty payload', () => {
    assertInvalidRequest(() => decodeBase64Input('data:image/png;base64,', 'p'), 'p');
  });

  it('a data: URL whose payload is not base64', () => {
    assertInvalidRequest(() => decodeBase64Input('data:image/png;base64,<svg/>', 'p'), 'p', /not valid base64/);
  });

  it('a data: URL prefix that is not at the start', () => {
    assertInvalidRequest(() => decodeBase64Input(' data:image/png;base64,aGk=', 'p'), 'p');
  });
});

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64');

describe('svgFromBase64', () => {
  it('decodes and sanitizes the SVG', () => {
    const hostile = '<svg onload="alert(1)"><script>alert(2)</script><rect width="1"/></svg>';
    assert.equal(svgFromBase64(b64(hostile), 'svg_source.base64'), `<svg xmlns="${SVG_NS}"><rect width="1"/></svg>`);
  });

  it('accepts a data:image/svg+xml;base64 URL', () => {
    assert.equal(svgFromBase64(`data:image/svg+xml;base64,${b64('<svg><circle r="2"/></svg>')}`, 'p'), `<svg xmlns="${SVG_NS}"><circle r="2"/></svg>`);
  });

  it('drops a UTF-8 byte order mark and keeps non-ASCII text', () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<svg><text>café ✓</text></svg>')]);
    assert.equal(svgFromBase64(b64(withBom), 'p'), `<svg xmlns="${SVG_NS}"><text>café ✓</text></svg>`);
  });

  it('refuses bytes that are not UTF-8 text, such as a PNG', () => {
    assertInvalidRequest(() => svgFromBase64(b64(PNG_SIGNATURE), 'svg_source.base64'), 'svg_source.base64', /not UTF-8/);
  });

  it('refuses UTF-8 text that is not an SVG document', () => {
    assertInvalidRequest(() => svgFromBase64(b64('hello'), 'svg_source.base64'), 'svg_source.base64', /^Invalid SVG in 'svg_source.base64': /);
    assertInvalidRequest(() => svgFromBase64(b64('<html/>'), 'p'), 'p', /root element must be <svg>/);
  });

  it('refuses an entity-expansion bomb as a client error, without expanding it', () => {
    const bomb = '<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><svg><text>&b;</text></svg>';
    assertInvalidRequest(() => svgFromBase64(b64(bomb), 'p'), 'p', /DOCTYPE/);
  });

  it('refuses invalid base64 before looking at the content', () => {
    assertInvalidRequest(() => svgFromBase64('PHN2Zy8+!', 'svg_source.base64'), 'svg_source.base64', /not valid base64/);
  });
});

describe('cleanSvgInput', () => {
  it('returns the sanitized document', () => {
    const out = cleanSvgInput('<svg><use href="http://evil.example/a.svg#b"/><use href="#b"/><foreignObject/></svg>', 'svg');
    assert.equal(out, `<svg xmlns="${SVG_NS}"><use/><use href="#b"/></svg>`);
  });

  it('turns a parse refusal into a 400 that names the field and keeps the reason', () => {
    assertInvalidRequest(() => cleanSvgInput('<svg><g></svg>', 'svg'), 'svg', /^Invalid SVG in 'svg': The SVG is not well-formed XML/);
    assertInvalidRequest(() => cleanSvgInput(`<svg>${'<g>'.repeat(300)}`, 'svg'), 'svg', /nested deeper/);
  });
});
