import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { readStream } from '../helpers/sse.ts';

// What the service delivers from answers as real models write them: the SVG the model meant,
// never reasoning, never prose inside path data, never a drawing no browser shows — and large
// answers finished like small ones.

const NS = 'xmlns="http://www.w3.org/2000/svg"';
const USAGE = { prompt_tokens: 50, completion_tokens: 40 };

describe('answers as models write them', () => {
  let upstream: FakeUpstream;
  let h: Harness;
  let answer = '';

  before(async () => {
    upstream = await startFakeUpstream();
    h = await startHarness({
      config: {
        catalog: {
          models: [
            {
              id: 'up-fixed',
              engine: 'openai-compatible',
              operations: ['svg_generate'],
              billing: { kind: 'fixed_credit', credits: { svg_generate: 3, svg_vectorize: 0 } },
              max_references: 0,
              options: { base_url: upstream.url, model: 'fake-model', first_token_timeout_ms: 5_000, total_timeout_ms: 20_000 },
            },
          ],
        },
      },
    });
  });
  after(async () => {
    await h.close();
    await upstream.close();
  });
  beforeEach(() => {
    upstream.reply = () => ({ kind: 'stream', content: answer, usage: USAGE, chunks: 40 });
  });

  const balance = async () => (await h.store.organizations.get(h.organizationId))!.balance_millicents;
  const generate = (body: Record<string, unknown> = {}) => h.request('POST', '/v1/svgs/generations', { key: h.keys.live, body: { model: 'up-fixed', prompt: 'a lighthouse', ...body } });

  it('a model that restarts after a cut gets its complete second document delivered, not the first with prose in its path', async () => {
    answer =
      `<svg ${NS} viewBox="0 0 100 100"><rect width="100" height="100" fill="#f00"/><path d="M10 10 L20 ` +
      `Sorry, let me rewrite that.\n\n\`\`\`svg\n<svg ${NS} viewBox="0 0 64 64"><circle cx="32" cy="32" r="20" fill="#00f"/></svg>\n\`\`\``;
    const res = await generate();
    assert.equal(res.status, 200, res.text);
    const svg: string = res.json.data[0].svg;
    assert.match(svg, /viewBox="0 0 64 64"/);
    assert.match(svg, /<circle cx="32" cy="32" r="20" fill="#00f"\/>/);
    assert.doesNotMatch(svg, /Sorry|#f00/);
  });

  it('path data keeps only its valid commands: prose a model wrote into it is dropped', async () => {
    answer = `<svg ${NS} viewBox="0 0 100 100"><rect width="100" height="100" fill="#eee"/><path d="M10 10 L90 90 then I thought about it" stroke="#000"/></svg>`;
    const res = await generate();
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.data[0].svg, /<path d="M10 10 L90 90" stroke="#000"\/>/);
  });

  for (const wrapper of ['think', 'thinking', 'reasoning', 'reflection']) {
    it(`an SVG inside <${wrapper}> is reasoning: with no answer after it, the output fails (502) and costs nothing`, async () => {
      answer = `<${wrapper}>I could draw <svg ${NS} viewBox="0 0 10 10"><rect width="10" height="10"/></svg></${wrapper}>`;
      const start = await balance();
      const res = await generate();
      assert.equal(res.status, 502, res.text);
      assert.equal(res.json.code, 'model_error');
      assert.match(res.json.message, /no SVG/);
      assert.equal(await balance(), start);
    });
  }

  it('streams <thinking> as reasoning events and delivers the answer after it', async () => {
    answer = `<thinking>a tall tower <svg ${NS}><rect width="1" height="1"/></svg></thinking>Here: <svg ${NS} viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="#fc0"/></svg>`;
    const streamed = await readStream(`${h.url}/v1/svgs/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-fixed', prompt: 'a lighthouse', stream: true }),
    });
    const events = streamed.events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
    const reasoning = events.filter((e) => e.type === 'reasoning').map((e) => e.text).join('');
    assert.match(reasoning, /a tall tower/);
    const content = events.find((e) => e.type === 'content');
    assert.match(content.svg, /<circle cx="5" cy="5" r="4" fill="#fc0"\/>/);
    assert.doesNotMatch(content.svg, /<rect/);
  });

  it('a viewBox with no area is replaced: from width and height, else the viewBox asked for', async () => {
    answer = `<svg ${NS} viewBox="0 0 0 0" width="40" height="20"><rect width="40" height="20" fill="#0a0"/></svg>`;
    const sized = await generate();
    assert.equal(sized.status, 200, sized.text);
    assert.match(sized.json.data[0].svg, /viewBox="0 0 40 20"/);
    answer = `<svg ${NS} viewBox="0 0 0 0"><rect width="40" height="20" fill="#0a0"/></svg>`;
    const asked = await generate({ attributes: { viewBox: { minX: 0, minY: 0, width: 128, height: 64 } } });
    assert.equal(asked.status, 200, asked.text);
    assert.match(asked.json.data[0].svg, /viewBox="0 0 128 64"/);
    const fallback = await generate();
    assert.equal(fallback.status, 200, fallback.text);
    assert.match(fallback.json.data[0].svg, /viewBox="0 0 512 512"/, 'the viewBox the model was asked for');
  });

  describe('a large answer (finished in the render workers)', () => {
    const shapes = (count: number, fill: (i: number) => string) =>
      Array.from({ length: count }, (_, i) => `<rect x="${i % 500}" y="${(i * 7) % 500}" width="6" height="6" fill="${fill(i)}"/>`).join('');

    it('is delivered like a small one', async () => {
      answer = `Here you go:\n\`\`\`svg\n<svg ${NS} viewBox="0 0 512 512">${shapes(4000, (i) => `#${(i * 2654435761 % 0xffffff).toString(16).padStart(6, '0')}`)}</svg>\n\`\`\``;
      assert.ok(answer.length > 200_000);
      const res = await generate();
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.credits, 3);
      const svg: string = res.json.data[0].svg;
      assert.equal(svg.match(/<rect /g)?.length, 4000);
      assert.doesNotMatch(svg, /```|Here you go/);
    });

    it('fails as 502 when it draws nothing (only a render can tell), and costs nothing', async () => {
      answer = `<svg ${NS} viewBox="0 0 512 512">${shapes(4000, () => 'none')}</svg>`;
      const start = await balance();
      const res = await generate();
      assert.equal(res.status, 502, res.text);
      assert.equal(res.json.code, 'model_error');
      assert.match(res.json.message, /shows nothing/);
      assert.equal(await balance(), start);
    });

    it('fails as 502 when it holds no SVG at all', async () => {
      answer = 'I cannot draw that, but here is a long story instead. '.repeat(3000);
      const res = await generate();
      assert.equal(res.status, 502, res.text);
      assert.match(res.json.message, /no usable SVG/);
    });
  });
});
