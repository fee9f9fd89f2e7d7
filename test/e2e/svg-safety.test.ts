import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { base64, TINY_PNG_BASE64 } from '../helpers/fixtures.ts';
import { mediaFile, startMediaServer, type MediaServer } from '../helpers/media-server.ts';
import { assertError } from '../helpers/schemas.ts';

const NS = 'xmlns="http://www.w3.org/2000/svg"';

/** About a kilobyte that expands to 10^10 elements to draw. */
function useBomb(): string {
  let defs = '<rect id="l0" width="1" height="1"/>';
  for (let level = 1; level <= 10; level++) defs += `<g id="l${level}">${`<use href="#l${level - 1}"/>`.repeat(10)}</g>`;
  return `<svg ${NS} viewBox="0 0 10 10"><defs>${defs}</defs><use href="#l10"/></svg>`;
}
const CYCLE = `<svg ${NS} viewBox="0 0 10 10"><defs><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></defs><use href="#a"/></svg>`;
const BREAKOUT = `<svg ${NS} viewBox="0 0 10 10"><desc><style><![CDATA[</style><img src=x onerror=alert(1)>]]></style>A red square</desc><rect width="10" height="10" fill="#c00"/></svg>`;
const KEEPERS =
  `<svg ${NS} viewBox="0 0 10 10"><a href="#sq"><rect id="sq" width="4" height="4"/></a>` +
  `<image href="data:image/png;base64,${TINY_PNG_BASE64}" width="2" height="2"/>` +
  '<image href="data:image/svg+xml;base64,PHN2Zy8+" width="2" height="2"/></svg>';

describe('every SVG input is held to the reference budget and the integration-point rules', () => {
  let h: Harness;
  let media: MediaServer;

  before(async () => {
    media = await startMediaServer({ '/bomb.svg': mediaFile('image/svg+xml', useBomb()) });
    h = await startHarness({ config: { media: { allow_loopback_urls: true } } });
  });
  after(async () => {
    await h.close();
    await media.close();
  });

  const balance = async () => (await h.store.organizations.get(h.organizationId))!.balance_millicents;

  const inputs: Array<[string, string, (svg: string) => Record<string, unknown>, string, 'test' | 'live']> = [
    ['edit, inline svg', '/v1/svgs/edits', (svg) => ({ model: 'local-svg', prompt: 'make it blue', svg }), 'svg', 'test'],
    ['edit, svg_source base64', '/v1/svgs/edits', (svg) => ({ model: 'local-svg', prompt: 'make it blue', svg_source: { base64: base64(svg) } }), 'svg_source.base64', 'test'],
    ['animation, svg_source base64', '/v1/svgs/animations', (svg) => ({ model: 'local-svg', svg_source: { base64: base64(svg) } }), 'svg_source.base64', 'test'],
    ['vectorization, image base64 (live)', '/v1/svgs/vectorizations', (svg) => ({ model: 'inkwell-trace', image: { base64: base64(svg) } }), 'image.base64', 'live'],
  ];
  for (const [label, path, body, param, environment] of inputs) {
    it(`refuses a <use> bomb and a reference cycle in the ${label} with 400 on '${param}', charging nothing`, async () => {
      const start = await balance();
      for (const [svg, message] of [[useBomb(), /more than 250000/], [CYCLE, /cycle/]] as const) {
        const res = await h.request('POST', path, { key: h.keys[environment], body: body(svg) });
        assertError(res, { status: 400, code: 'invalid_request', param });
        assert.match(res.json.message, message);
      }
      assert.equal(await balance(), start);
    });
  }

  it("refuses a <use> bomb fetched by a live vectorization's URL with 400 on 'image.url', charging nothing", async () => {
    const start = await balance();
    const res = await h.request('POST', '/v1/svgs/vectorizations', {
      key: h.keys.live,
      body: { model: 'inkwell-trace', image: { url: `${media.url}/bomb.svg` } },
    });
    assertError(res, { status: 400, code: 'invalid_request', param: 'image.url' });
    assert.equal(await balance(), start);
  });

  it('returns an edit whose <desc> holds only its text: the style break-out is gone', async () => {
    const res = await h.request('POST', '/v1/svgs/edits', { body: { model: 'local-svg', prompt: 'keep it', svg: BREAKOUT } });
    assert.equal(res.status, 200, res.text);
    const svg: string = res.json.data[0].svg;
    assert.match(svg, /<desc>A red square<\/desc>/);
    assert.doesNotMatch(svg, /<style|<img|onerror=/);
  });

  it('keeps a fragment link and an embedded PNG through an edit and a vectorization, and drops an embedded SVG', async () => {
    const edit = await h.request('POST', '/v1/svgs/edits', { body: { model: 'local-svg', prompt: 'keep it', svg: KEEPERS } });
    assert.equal(edit.status, 200, edit.text);
    const vector = await h.request('POST', '/v1/svgs/vectorizations', {
      key: h.keys.live,
      body: { model: 'inkwell-trace', image: { base64: base64(KEEPERS) } },
    });
    assert.equal(vector.status, 200, vector.text);
    for (const svg of [edit.json.data[0].svg as string, vector.json.data[0].svg as string]) {
      assert.match(svg, /<a href="#sq"><rect id="sq" width="4" height="4"\/><\/a>/);
      assert.ok(svg.includes(`<image href="data:image/png;base64,${TINY_PNG_BASE64}" width="2" height="2"/>`), svg);
      assert.doesNotMatch(svg, /svg\+xml/);
    }
  });
});
