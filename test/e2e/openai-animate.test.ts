// svg_animate on the openai-compatible engine against the scripted upstream: the prompt sent,
// timing measured from the delivered document, svg_score from rendered frames, credits, and the
// refusal (502 model_error, nothing charged) of answers that do not move.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { assertError } from '../helpers/schemas.ts';
import { readStream } from '../helpers/sse.ts';
import { FIXED_BILLING, METERED_BILLING, svgModelEntry, type UpstreamTiming } from '../helpers/upstream-models.ts';

const ANIMATE = '/v1/svgs/animations';
const SOURCE = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="#bde0fe"/><circle id="sun" cx="50" cy="50" r="20" fill="#ffb703"/></svg>';
const USAGE = { prompt_tokens: 300, completion_tokens: 200 };

/** The source with a CSS pulse (1.2 s, infinite) and a one-off 500 ms fade-in after 250 ms. */
const ANIMATED =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><style>@media (prefers-reduced-motion: no-preference){' +
  '#sun{animation:pulse 1.2s ease-in-out infinite, fade .5s ease-out .25s both;transform-box:fill-box;transform-origin:center}}' +
  '@keyframes pulse{50%{transform:scale(.8)}}@keyframes fade{from{opacity:0}}</style>' +
  '<rect width="100" height="100" fill="#bde0fe"/><circle id="sun" cx="50" cy="50" r="20" fill="#ffb703"/></svg>';

/** SMIL: a loop of 2 s and one of 3 s (loop 6 s), plus an entrance ending at 1.5 s. */
const SMIL =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="#bde0fe"/>' +
  '<g><circle cx="50" cy="50" r="20" fill="#ffb703"><animate attributeName="r" values="20;16;20" dur="2s" repeatCount="indefinite"/>' +
  '<animate attributeName="fill" values="#ffb703;#fb8500;#ffb703" dur="3s" repeatCount="indefinite"/></circle>' +
  '<animateTransform attributeName="transform" type="translate" from="0 -10" to="0 0" begin="0.5s" dur="1s" fill="freeze"/></g></svg>';

const TIMING: UpstreamTiming = { first_token_timeout_ms: 1500, total_timeout_ms: 4000, max_concurrency: 2 };

describe('model animations on the openai-compatible engine', () => {
  let upstream: FakeUpstream;
  let h: Harness;

  before(async () => {
    upstream = await startFakeUpstream();
    h = await startHarness({
      config: {
        catalog: {
          models: [
            svgModelEntry('up-animate', upstream.url, FIXED_BILLING, TIMING),
            svgModelEntry('up-animate-metered', upstream.url, METERED_BILLING, TIMING),
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
    upstream.requests.length = 0;
    upstream.reply = () => ({ kind: 'stream', content: ANIMATED, usage: USAGE });
  });

  const balance = async () => (await h.store.organizations.get(h.organizationId))!.balance_millicents;
  const credit = () => h.config.billing.millicents_per_credit;
  const animate = (body: Record<string, unknown> = {}) =>
    h.request('POST', ANIMATE, { key: h.keys.live, body: { model: 'up-animate', prompt: 'pulse the sun', svg_source: { base64: Buffer.from(SOURCE).toString('base64') }, ...body } });

  it('animates per the prompt: timing measured from the answer, svg_score from its frames, credits debited', async () => {
    const start = await balance();
    const res = await animate();
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.credits, 7);
    const [doc] = res.json.data;
    assert.match(doc.svg, /@keyframes pulse/);
    assert.equal(doc.loop_period_ms, 1200);
    assert.equal(doc.opening_animation_ms, 750);
    assert.equal(typeof res.json.svg_score, 'number');
    assert.ok(res.json.svg_score >= 0.9 && res.json.svg_score <= 1, `svg_score ${res.json.svg_score}`);
    assert.equal(start - (await balance()), 7 * credit());
    const sent = upstream.requests[0]!;
    assert.match(sent.body.messages[0].content, /expert SVG animator/);
    assert.match(sent.body.messages[0].content, /prefers-reduced-motion/);
    assert.match(sent.body.messages[1].content, /^Animation: pulse the sun/);
    assert.ok(sent.body.messages[1].content.includes(SOURCE), 'the source document is sent');
  });

  it('without a prompt the model is asked to choose; SMIL timing is measured (least common multiple of the loops)', async () => {
    upstream.reply = () => ({ kind: 'stream', content: SMIL, usage: USAGE });
    const res = await animate({ prompt: undefined });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.data[0].loop_period_ms, 6000);
    assert.equal(res.json.data[0].opening_animation_ms, 1500);
    assert.match(upstream.requests[0]!.body.messages[1].content, /^Choose a suitable, tasteful animation/);
    assert.match(res.json.data[0].svg, /<g><circle[^>]*><animate attributeName="r"/, 'the group the animation targets is kept');
  });

  it('streams generating, drafts, then content with timing, svg_score and credits', async () => {
    upstream.reply = () => ({ kind: 'stream', content: ANIMATED, chunks: 10, usage: USAGE });
    const streamed = await readStream(`${h.url}${ANIMATE}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-animate', prompt: 'pulse', svg_source: { base64: Buffer.from(SOURCE).toString('base64') }, stream: true }),
    });
    assert.equal(streamed.status, 200);
    const events = streamed.events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
    assert.equal(events[0].type, 'generating');
    assert.ok(events.some((e) => e.type === 'draft'));
    const content = events.at(-1);
    assert.equal(content.type, 'content');
    assert.equal(content.credits, 7);
    assert.equal(content.loop_period_ms, 1200);
    assert.equal(content.opening_animation_ms, 750);
    assert.equal(typeof content.svg_score, 'number');
  });

  it('a token-priced model reports usage and the score', async () => {
    const res = await animate({ model: 'up-animate-metered' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.usage.input_tokens, 300);
    assert.equal(res.json.usage.output_tokens, 200);
    assert.equal(typeof res.json.svg_score, 'number');
  });

  describe('an answer that does not move is a failed output: 502 model_error, nothing charged', () => {
    const refused = async (content: string, message: RegExp) => {
      upstream.reply = () => ({ kind: 'stream', content, usage: USAGE });
      const start = await balance();
      const res = await animate();
      assertError(res, { status: 502, code: 'model_error' });
      assert.match(res.json.message, message);
      assert.equal(await balance(), start, 'nothing charged');
      const reserved = (await h.store.organizations.get(h.organizationId))!.reserved_millicents;
      assert.equal(reserved, 0, 'the reservation is released');
    };

    it('the static source handed back', () => refused(SOURCE, /does not move: the SVG has no CSS or SMIL animation/));

    it('animations that only wait for a click, or never begin', () =>
      refused(
        SOURCE.replace('</svg>', '<animate href="#sun" attributeName="r" to="30" dur="1s" begin="click"/><animate href="#sun" attributeName="r" to="30" dur="1s" begin="indefinite"/></svg>'),
        /does not move/,
      ));

    it('keyframes that change nothing visible (found by rendering frames)', () =>
      refused(
        SOURCE.replace('<rect', '<style>#sun{animation:still 1s infinite}@keyframes still{from{opacity:1}to{opacity:1}}</style><rect'),
        /does not move: its frames/,
      ));

    it('an animation made only of a script is stripped by the sanitizer, then refused', () =>
      refused(SOURCE.replace('</svg>', '<script>setInterval(()=>{},100)</script></svg>'), /does not move/));

    it('streamed: generating, then an error event; nothing charged', async () => {
      upstream.reply = () => ({ kind: 'stream', content: SOURCE, chunks: 4, usage: USAGE });
      const start = await balance();
      const streamed = await readStream(`${h.url}${ANIMATE}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'up-animate', svg_source: { base64: Buffer.from(SOURCE).toString('base64') }, stream: true }),
      });
      const events = streamed.events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
      assert.ok(!events.some((e) => e.type === 'content'));
      assert.equal(events.at(-1).type, 'error');
      assert.equal(events.at(-1).code, 'model_error');
      assert.equal(await balance(), start);
    });
  });
});
