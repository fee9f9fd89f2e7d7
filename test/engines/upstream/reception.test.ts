import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { Reception, type Reader, type ReceptionLimits } from '../../../src/engines/upstream/reception.ts';
import { startFakeUpstream, type FakeUpstream, type Reply } from '../../fakes/upstream.ts';

// One upstream response read as undici delivers it, against the scripted upstream: what the
// caller is handed, in what order, and where reading stops (the limits, a 200 that is no
// completion, an error frame, a cut connection). The reader here keeps the answer's text only.

const TEXT: Reader<string> = {
  json: (body) => {
    const content = (body as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new Error('not a completion');
    return content;
  },
  chunk: (chunk) => {
    if ((chunk as { error?: unknown }).error) throw new Error('an error frame');
    return (chunk as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '';
  },
  isToken: (delta) => delta !== '',
  meter: () => (delta) => Buffer.byteLength(delta),
};

const ROOMY: ReceptionLimits = { outputBytes: 1 << 20, frameBytes: 8 << 20, responseBytes: 64 << 20 };

class Oversize extends Error {
  constructor(readonly limitBytes: number) {
    super(`over ${limitBytes} bytes`);
  }
}
class Malformed extends Error {
  constructor(readonly sample: string) {
    super('malformed');
  }
}

let upstream: FakeUpstream;
let pool: Pool;

before(async () => {
  upstream = await startFakeUpstream();
  pool = new Pool(new URL(upstream.url).origin);
});
after(async () => {
  await pool.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
});

/** Sends one completion request answered by `reply` and takes everything, as the upstream client does. */
async function receive(reply: Reply, options: { stream?: boolean; limits?: Partial<ReceptionLimits>; beforeTake?: (reception: Reception<string>) => Promise<void> } = {}) {
  upstream.reply = () => reply;
  const hooks = { connected: 0, firstToken: 0 };
  const reception = new Reception(TEXT, { ...ROOMY, ...options.limits }, {
    connected: () => void hooks.connected++,
    firstToken: () => void hooks.firstToken++,
    activity: () => {},
    oversize: (limitBytes) => new Oversize(limitBytes),
    malformed: (_cause, sample) => new Malformed(sample),
  });
  const body = JSON.stringify({ model: 'fake-model', messages: [], stream: options.stream ?? true });
  pool.dispatch({ path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json' }, body, headersTimeout: 0, bodyTimeout: 0 }, reception);
  await options.beforeTake?.(reception);
  const deltas: string[] = [];
  for (;;) {
    deltas.push(...reception.take().filter((delta) => delta !== ''));
    if (reception.queued) continue;
    if (reception.error || reception.complete) break;
    await reception.changed();
  }
  return { reception, deltas, hooks, error: reception.error?.reason };
}

describe('Reception', { timeout: 15_000 }, () => {
  it('hands over a streamed answer in order, ending at [DONE]', async () => {
    const { reception, deltas, hooks, error } = await receive({ kind: 'stream', pieces: ['<svg>', '<rect/>', '</svg>'], keepAlive: 'data' });
    assert.equal(error, undefined);
    assert.equal(reception.status, 200);
    assert.equal(reception.complete, true);
    // `data: keep-alive` lines between the chunks are no JSON, and skipped.
    assert.deepEqual(deltas, ['<svg>', '<rect/>', '</svg>']);
    assert.deepEqual(hooks, { connected: 1, firstToken: 1 });
  });

  it('hands over an answer that ends without [DONE]', async () => {
    const { deltas, error } = await receive({ kind: 'stream', pieces: ['<svg>', '</svg>'], noDone: true });
    assert.equal(error, undefined);
    assert.deepEqual(deltas, ['<svg>', '</svg>']);
  });

  it('reads an unstreamed JSON answer whole', async () => {
    const { deltas, error } = await receive({ kind: 'json', content: '<svg/>' }, { stream: false });
    assert.equal(error, undefined);
    assert.deepEqual(deltas, ['<svg/>']);
  });

  it('pauses an upstream that runs ahead of its caller, and hands over every event once taken', async () => {
    const content = Array.from({ length: 1000 }, (_, i) => `<g id="p${i}"/>`).join('');
    let paused = false;
    const { deltas, error } = await receive(
      { kind: 'stream', content, chunks: 1000 },
      {
        beforeTake: async (reception) => {
          for (let waited = 0; !reception.paused && waited < 5_000; waited += 10) await sleep(10);
          paused = reception.paused;
        },
      },
    );
    assert.equal(paused, true, 'the upstream was paused while nothing was taken');
    assert.equal(error, undefined);
    assert.equal(deltas.join(''), content);
  });

  it('stops at the output limit: what came before it is handed over, nothing after, and the connection is closed', async () => {
    const { deltas, error } = await receive({ kind: 'stream', pieces: ['0123456789', 'abcdefghij', 'ABCDEFGHIJ', 'klmnopqrst'], chunkDelayMs: 20 }, { limits: { outputBytes: 25 } });
    assert.ok(error instanceof Oversize && error.limitBytes === 25, String(error));
    assert.deepEqual(deltas, ['0123456789', 'abcdefghij']);
    for (let waited = 0; !upstream.requests[0]!.aborted && waited < 2_000; waited += 10) await sleep(10);
    assert.equal(upstream.requests[0]!.aborted, true, 'the upstream saw its connection closed');
  });

  it('refuses an event larger than any answer within the limit before it ends, naming the output limit', async () => {
    // The event never ends: it is refused once its unfinished part passes frameBytes.
    const body = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'x'.repeat(5_000) } }] })}`;
    const { deltas, error } = await receive({ kind: 'raw', contentType: 'text/event-stream', body, keepOpen: true }, { limits: { outputBytes: 100_000, frameBytes: 1_000 } });
    assert.ok(error instanceof Oversize && error.limitBytes === 100_000, String(error));
    assert.deepEqual(deltas, []);
  });

  it('refuses a JSON answer larger than any answer within the limit, naming the output limit', async () => {
    const { deltas, error } = await receive({ kind: 'json', content: 'x'.repeat(5_000) }, { stream: false, limits: { outputBytes: 100_000, frameBytes: 1_000 } });
    assert.ok(error instanceof Oversize && error.limitBytes === 100_000, String(error));
    assert.deepEqual(deltas, []);
  });

  it('refuses a response larger than the response limit, naming that limit', async () => {
    const { error } = await receive({ kind: 'stream', content: 'y'.repeat(20_000), chunks: 20 }, { limits: { responseBytes: 4_096 } });
    assert.ok(error instanceof Oversize && error.limitBytes === 4_096, String(error));
  });

  it('tells a 200 that is no completion apart, with its content type, size and first bytes for the log', async () => {
    const page = '<html><body>Bad gateway</body></html>';
    const { error, deltas } = await receive({ kind: 'raw', contentType: 'text/html', body: page });
    assert.ok(error instanceof Malformed, String(error));
    assert.equal(error.sample, `content-type text/html, ${page.length} bytes, beginning ${JSON.stringify(page)}`);
    assert.deepEqual(deltas, []);
  });

  it('stops at an event the reader refuses (an error frame): what came before is handed over', async () => {
    const { deltas, error } = await receive({ kind: 'stream', pieces: ['<svg>', '<rect/>', '</svg>'], errorFrame: { after: 2, style: 'openai' } });
    assert.ok(error instanceof Malformed && error.sample.startsWith('an event: content-type text/event-stream'), String(error));
    assert.deepEqual(deltas, ['<svg>', '<rect/>']);
  });

  it('keeps an error status and its body for the log', async () => {
    const { reception, deltas, error } = await receive({ kind: 'error', status: 503, headers: { 'retry-after': '7' }, body: { error: { message: 'overloaded' } } });
    assert.equal(error, undefined);
    assert.equal(reception.status, 503);
    assert.equal(reception.headers!['retry-after'], '7');
    assert.deepEqual(JSON.parse(reception.errorText()), { error: { message: 'overloaded' } });
    assert.deepEqual(deltas, []);
  });

  it('fails with the transport error when the connection is cut mid-answer, after handing over what came', async () => {
    const { reception, deltas, error } = await receive({ kind: 'stream', pieces: ['<svg>', '<rect/>', '</svg>'], dropAfter: 2 });
    assert.ok(error instanceof Error && !(error instanceof Oversize) && !(error instanceof Malformed), String(error));
    assert.equal(reception.complete, false);
    assert.deepEqual(deltas, ['<svg>', '<rect/>']);
  });
});
