import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { UpstreamClient, type CompletionDelta, type UpstreamEndpoint } from '../../../src/engines/upstream/client.ts';
import { UpstreamError, type UpstreamCallReport, type UpstreamFailure } from '../../../src/engines/upstream/exchange.ts';
import { startUnacceptingListener } from '../../fakes/upstream.ts';

// The upstream client on its own, against servers that misbehave in ways the scripted upstream
// of the e2e tests does not: a response kept open after [DONE], an answer far larger than the
// client's queue, an error body of 100 KiB, a caller that leaves mid-stream, an event that never
// ends, a 200 that is no completion, a stream that stalls, a connect that hangs.

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
let handler: Handler = () => {};
let server: Server;
let client: UpstreamClient;
/** How each call ended, as the metrics are told. */
const reports: UpstreamCallReport[] = [];
const lastOutcome = () => {
  const { outcome, failure } = reports.at(-1)!;
  return failure ? `${outcome} ${failure}` : outcome;
};
/** Resolves when the server sees its current response's connection closed. */
let responseClosed: Promise<void>;
/** Whether the current response had been written out in full when it closed (false: the client cut it). */
let responseFinished: boolean | undefined;

const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
const sse = (response: ServerResponse) => response.writeHead(200, { 'content-type': 'text/event-stream' });
const baseUrl = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
const call = (signal = new AbortController().signal) => ({ body: { model: 'm', messages: [] }, signal, firstTokenTimeoutMs: 10_000, deadlineAt: Date.now() + 20_000 });

/** A client of its own (limits, timeouts), closed after `use`. */
async function withClient(endpoint: Partial<UpstreamEndpoint>, use: (client: UpstreamClient) => Promise<void>): Promise<void> {
  const own = new UpstreamClient({ baseUrl: baseUrl(), connectTimeoutMs: 2_000, onCallEnd: (report) => reports.push(report), ...endpoint });
  try {
    await use(own);
  } finally {
    await own.close();
  }
}

/** The text delivered before the call failed, and how it failed. */
/** The deltas of a call one by one (the client yields them in batches: those read together). */
async function* each<T>(batches: AsyncGenerator<T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch;
}

async function failing(batches: AsyncGenerator<CompletionDelta[]>): Promise<{ text: string; failure: UpstreamFailure }> {
  let text = '';
  try {
    for await (const delta of each(batches)) text += delta.content ?? '';
  } catch (error) {
    assert.ok(error instanceof UpstreamError, String(error));
    return { text, failure: error.failure };
  }
  assert.fail(`the call succeeded with ${text.length} characters`);
}

async function collect(batches: AsyncGenerator<CompletionDelta[]>, eachTurn = false): Promise<string> {
  let text = '';
  for await (const delta of each(batches)) {
    text += delta.content ?? '';
    if (eachTurn) await nextTurn(); // a slow consumer: the upstream runs ahead of it
  }
  return text;
}

before(async () => {
  server = createServer((request, response) => {
    responseFinished = undefined;
    responseClosed = new Promise((resolve) => response.once('close', () => resolve(void (responseFinished = response.writableFinished))));
    request.resume();
    request.once('end', () => handler(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new UpstreamClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, connectTimeoutMs: 2_000, onCallEnd: (report) => reports.push(report) });
});

after(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the upstream client', { timeout: 15_000 }, () => {
  it('answers a health check: GET {base_url}/models with the key, true on a 2xx, false on an error status, a refused connect or no answer in time', async () => {
    const seen: string[] = [];
    handler = (request, response) => {
      seen.push(`${request.method} ${request.url} ${request.headers.authorization}`);
      response.writeHead(seen.length === 1 ? 200 : 503, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
    };
    await withClient({ apiKey: 'sk-up' }, async (own) => {
      assert.equal(await own.answers(AbortSignal.timeout(2000)), true);
      assert.equal(await own.answers(AbortSignal.timeout(2000)), false);
    });
    assert.deepEqual(seen, ['GET /v1/models Bearer sk-up', 'GET /v1/models Bearer sk-up']);
    handler = () => {}; // never answers
    assert.equal(await client.answers(AbortSignal.timeout(200)), false);
    const refused = new UpstreamClient({ baseUrl: 'http://127.0.0.1:9/v1', connectTimeoutMs: 500 });
    assert.equal(await refused.answers(AbortSignal.timeout(2000)), false);
    await refused.close();
  });

  it('ends the call at [DONE] and closes a response the server keeps open after it', async () => {
    handler = (_request, response) => {
      sse(response);
      response.write(chunk('<svg/>') + 'data: [DONE]\n\n'); // and never ends
    };
    assert.equal(await collect(client.complete(call())), '<svg/>');
    assert.equal(lastOutcome(), 'ok');
    await responseClosed; // cut off by the client, or this test would time out
  });

  it('delivers every chunk in order to a consumer slower than the upstream', async () => {
    const pieces = Array.from({ length: 3_000 }, (_, i) => `<g id="p${i}"/>`);
    handler = (_request, response) => {
      sse(response);
      response.end(pieces.map(chunk).join('') + 'data: [DONE]\n\n');
    };
    assert.equal(await collect(client.complete(call()), true), pieces.join(''));
  });

  it('delivers an answer of 50 000 events whole and in order, read a batch at a time', async () => {
    // Just under the default output limit, written at once: most of it waits in the socket.
    const pieces = Array.from({ length: 50_000 }, (_, i) => `<g id="p${i}"/>`);
    handler = (_request, response) => {
      sse(response);
      response.end(pieces.map(chunk).join('') + 'data: [DONE]\n\n');
    };
    assert.equal(await collect(client.complete(call())), pieces.join(''));
  });

  it('hands the same deltas to completeInto as complete() yields, in order; a failure rejects after what came before it', async () => {
    const pieces = Array.from({ length: 2_000 }, (_, i) => `<g id="p${i}"/>`);
    handler = (_request, response) => {
      sse(response);
      response.end(pieces.map(chunk).join('') + 'data: [DONE]\n\n');
    };
    const taken: CompletionDelta[] = [];
    await client.completeInto(call(), (deltas) => taken.push(...deltas));
    assert.deepEqual(taken[0], { accepted: true });
    assert.equal(taken.map((delta) => delta.content ?? '').join(''), pieces.join(''));
    const yielded: CompletionDelta[] = [];
    for await (const delta of each(client.complete(call()))) yielded.push(delta);
    assert.deepEqual(taken, yielded);

    handler = (_request, response) => {
      sse(response);
      response.write(chunk('<svg>') + chunk('<rect/>'));
      setTimeout(() => response.destroy(), 50); // cut, without [DONE]
    };
    let text = '';
    await assert.rejects(
      client.completeInto(call(), (deltas) => deltas.forEach((delta) => (text += delta.content ?? ''))),
      (error: unknown) => error instanceof UpstreamError && error.failure.kind === 'dropped',
    );
    assert.equal(text, '<svg><rect/>');
  });

  it('starts nothing for a stream that is not iterated yet: no request, no deadline timer', async () => {
    let requests = 0;
    handler = (_request, response) => {
      requests++;
      response.end();
    };
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const streams = Array.from({ length: 5 }, () => client.complete(call()));
    assert.equal(timers(), before, 'no timer runs for a call nobody reads');
    await sleep(20);
    assert.equal(requests, 0);
    for (const stream of streams) await stream.return(undefined);
  });

  it('hands a long answer to completeInto a batch at a time within the turn budget, giving the event loop its turn in between', async () => {
    const pieces = Array.from({ length: 2_000 }, (_, i) => `<g id="p${i}"/>`);
    handler = (_request, response) => {
      sse(response);
      response.end(pieces.map(chunk).join('') + 'data: [DONE]\n\n');
    };
    // A turn of the event loop is one pass through its check phase, where this ticker counts.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const turnOfDelivery: number[] = [];
    let text = '';
    try {
      await client.completeInto(call(), (deltas) => {
        if (!deltas.some((delta) => delta.content)) return;
        turnOfDelivery.push(turn);
        for (const delta of deltas) text += delta.content ?? '';
        const until = performance.now() + 3; // a taker that costs the thread 3 ms a batch
        while (performance.now() < until);
      });
    } finally {
      ticking = false;
    }
    assert.equal(text, pieces.join(''));
    assert.ok(turnOfDelivery.length >= 10, `${turnOfDelivery.length} batches`);
    const mostInOneTurn = Math.max(...turnOfDelivery.map((t) => turnOfDelivery.filter((other) => other === t).length));
    assert.ok(mostInOneTurn <= 2, `${mostInOneTurn} batches of 3 ms in one turn (budget 4 ms): ${turnOfDelivery.join(' ')}`);
  });

  it('closes the upstream connection when the one taking the deltas throws, and rejects with its error', async () => {
    handler = (_request, response) => {
      sse(response);
      response.write(chunk('<svg>')); // and more would follow
    };
    const mistake = new Error('the taker failed');
    await assert.rejects(
      client.completeInto(call(), (deltas) => {
        if (deltas.some((delta) => delta.content)) throw mistake;
      }),
      mistake,
    );
    await responseClosed;
    assert.equal(responseFinished, false);
  });

  it('reads an error body only so far, and reports the status with the provider message', async () => {
    handler = (_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json', 'retry-after': '7' });
      response.end(JSON.stringify({ error: { message: 'overloaded' }, padding: 'x'.repeat(100_000) }));
    };
    await assert.rejects(collect(client.complete(call())), (error: unknown) => {
      assert.ok(error instanceof UpstreamError);
      assert.equal(error.failure.kind, 'status');
      assert.ok(error.failure.kind === 'status' && error.failure.status === 500 && error.failure.retryAfterSeconds === 7);
      // The body was cut at 8 KiB: not JSON any more, so the detail is its first 500 characters.
      assert.ok(error.failure.kind === 'status' && error.failure.detail.length === 500);
      return true;
    });
    assert.equal(lastOutcome(), 'error status_500');
  });

  it('a caller that leaves mid-stream gets its own reason, and the upstream connection is closed', async () => {
    handler = (_request, response) => {
      sse(response);
      response.write(chunk('<svg>'));
    };
    const controller = new AbortController();
    const reason = new Error('the client left');
    const deltas = each(client.complete(call(controller.signal)));
    const seen: CompletionDelta[] = [];
    await assert.rejects(
      (async () => {
        for await (const delta of deltas) {
          seen.push(delta);
          if (delta.content) controller.abort(reason);
        }
      })(),
      (error) => error === reason,
    );
    assert.deepEqual(seen.map((delta) => delta.content ?? (delta.accepted ? 'accepted' : '')), ['accepted', '<svg>']);
    assert.equal(lastOutcome(), 'cancelled');
    await responseClosed;
  });

  it('an answer larger than the limit fails as oversize, streamed or not, and the connection is closed', async () => {
    const small = new UpstreamClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, connectTimeoutMs: 2_000, maxResponseBytes: 64 * 1024, onCallEnd: (report) => reports.push(report) });
    const big = 'x'.repeat(100 * 1024);
    try {
      for (const streamed of [true, false]) {
        handler = (_request, response) => {
          if (streamed) {
            sse(response);
            response.write(chunk('<svg>') + chunk(big)); // and never ends
          } else {
            response.writeHead(200, { 'content-type': 'application/json' });
            response.end(JSON.stringify({ choices: [{ index: 0, message: { content: big } }] }));
          }
        };
        await assert.rejects(collect(small.complete(call())), (error: unknown) => error instanceof UpstreamError && error.failure.kind === 'oversize');
        assert.equal(lastOutcome(), 'error oversize');
        await responseClosed;
      }
      // Below the limit, the same client reads an answer whole.
      handler = (_request, response) => {
        sse(response);
        response.end(chunk('<svg/>') + 'data: [DONE]\n\n');
      };
      assert.equal(await collect(small.complete(call())), '<svg/>');
    } finally {
      await small.close();
    }
  });

  it('a connection dropped mid-stream is a dropped call, after what arrived before it', async () => {
    handler = (_request, response) => {
      sse(response);
      response.write(chunk('<svg>'), () => setTimeout(() => response.socket?.destroy(), 20));
    };
    let text = '';
    await assert.rejects(
      (async () => {
        for await (const delta of each(client.complete(call()))) text += delta.content ?? '';
      })(),
      (error: unknown) => error instanceof UpstreamError && error.failure.kind === 'dropped',
    );
    assert.equal(text, '<svg>');
    assert.equal(lastOutcome(), 'error dropped');
  });
});

describe('the output byte limit', { timeout: 15_000 }, () => {
  const LIMIT = 64 * 1024;
  const delta = (fields: object) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: fields }] })}\n\n`;

  it('an answer past max_output_bytes fails as oversize where it crosses: what came before is delivered, nothing after, and the connection is closed', async () => {
    handler = (_request, response) => {
      sse(response);
      response.write(Array.from({ length: 100 }, () => chunk('x'.repeat(1024))).join('')); // and never ends
    };
    await withClient({ maxOutputBytes: LIMIT }, async (small) => {
      const { text, failure } = await failing(small.complete(call()));
      assert.deepEqual(failure, { kind: 'oversize', limitBytes: LIMIT });
      assert.equal(text.length, LIMIT, 'the 64 chunks within the limit, not the 65th');
      assert.equal(lastOutcome(), 'error oversize');
      await responseClosed;
    });
  });

  it('counts reasoning, refusals and tool-call arguments with the answer, in UTF-8 bytes', async () => {
    // 20 000 bytes each (10 000 two-byte characters): 60 000 bytes fit in 64 KiB; a 6 000-byte refusal more does not.
    const parts = [
      delta({ reasoning_content: 'é'.repeat(10_000) }),
      delta({ content: 'é'.repeat(10_000) }),
      delta({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: 'ü'.repeat(10_000) } }] }),
    ];
    await withClient({ maxOutputBytes: LIMIT }, async (small) => {
      for (const refusal of [undefined, 'ß'.repeat(3_000)]) {
        handler = (_request, response) => {
          sse(response);
          response.end(parts.join('') + (refusal ? delta({ refusal }) : '') + 'data: [DONE]\n\n');
        };
        if (!refusal) assert.equal(await collect(small.complete(call())), 'é'.repeat(10_000));
        else assert.deepEqual((await failing(small.complete(call()))).failure, { kind: 'oversize', limitBytes: LIMIT });
      }
    });
  });

  it('an event that never ends is cut off once it is larger than any answer within the limit could be on the wire', async () => {
    handler = (_request, response) => {
      sse(response);
      response.write(`data: {"choices":[{"index":0,"delta":{"content":"${'x'.repeat(1024 * 1024)}`); // no end of event, no end of response
    };
    await withClient({ maxOutputBytes: LIMIT }, async (small) => {
      assert.deepEqual((await failing(small.complete(call()))).failure, { kind: 'oversize', limitBytes: LIMIT });
      await responseClosed;
      assert.equal(responseFinished, false);
    });
  });

  it('a JSON body larger than any answer within the limit could be fails before it is all read', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write(`{"choices":[{"index":0,"message":{"content":"${'x'.repeat(1024 * 1024)}`); // and never ends
    };
    await withClient({ maxOutputBytes: LIMIT }, async (small) => {
      assert.deepEqual((await failing(small.complete(call()))).failure, { kind: 'oversize', limitBytes: LIMIT });
      await responseClosed;
      assert.equal(responseFinished, false);
    });
  });

  it('an answer within the limit is read whole even when every character is escaped as \\u003c, streamed or not', async () => {
    // Go servers escape HTML characters: 60 000 `<` take 360 000 bytes on the wire, in one event or one body.
    const answer = '<'.repeat(60_000);
    const escaped = (json: string) => json.replaceAll('<', '\\u003c');
    for (const streamed of [true, false]) {
      handler = (_request, response) => {
        if (streamed) {
          sse(response);
          response.end(escaped(chunk(answer)) + 'data: [DONE]\n\n');
        } else {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(escaped(JSON.stringify({ choices: [{ index: 0, message: { content: answer } }] })));
        }
      };
      await withClient({ maxOutputBytes: LIMIT }, async (small) => assert.equal(await collect(small.complete(call())), answer));
    }
  });
});

describe('a 200 that is not a completion', { timeout: 15_000 }, () => {
  const bodies = [
    { label: 'an HTML page', type: 'text/html; charset=utf-8', body: '<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>', detail: /not JSON; content-type text\/html; charset=utf-8, \d+ bytes, beginning "<!DOCTYPE html><html><body><h1>502 Bad Gateway/ },
    { label: 'JSON cut mid-string', type: 'application/json', body: '{"choices":[{"index":0,"message":{"content":"<svg viewBox=', detail: /not JSON; content-type application\/json, \d+ bytes, beginning "\{\\"choices\\"/ },
    { label: 'JSON of the wrong shape', type: 'application/json', body: '{"object":"list","data":[]}', detail: /the completion has no choices; content-type application\/json, 27 bytes, beginning "\{\\"object\\":\\"list\\"/ },
    { label: 'an empty body', type: undefined, body: '', detail: /not JSON; content-type none, 0 bytes, beginning ""/ },
  ];
  for (const { label, type, body, detail } of bodies) {
    it(`${label} is malformed, with its content type and first bytes in the detail`, async () => {
      handler = (_request, response) => {
        response.writeHead(200, type ? { 'content-type': type } : {});
        response.end(body);
      };
      const { failure } = await failing(client.complete(call()));
      assert.equal(failure.kind, 'malformed');
      assert.match(failure.kind === 'malformed' ? failure.detail : '', detail);
      assert.equal(lastOutcome(), 'error malformed');
    });
  }

  it('the first bytes in the detail are at most 200, however long the body', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<html>${'y'.repeat(10_000)}</html>`);
    };
    const { failure } = await failing(client.complete(call()));
    const beginning = failure.kind === 'malformed' ? JSON.parse(failure.detail.slice(failure.detail.indexOf('beginning ') + 10)) : '';
    assert.equal(beginning, `<html>${'y'.repeat(194)}`);
  });

  it('a connection that drops mid-body is dropped, not malformed', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      response.write('{"choices":[{"index":0,"message":{"content":"<svg', () => setTimeout(() => response.socket?.destroy(), 20));
    };
    assert.equal((await failing(client.complete(call()))).failure.kind, 'dropped');
  });
});

describe('the idle timeout', { timeout: 15_000 }, () => {
  it('a stream that stops mid-answer fails as idle-timeout, keep-alive comments notwithstanding, and the connection is closed', async () => {
    let keepAlives: NodeJS.Timeout | undefined;
    handler = (_request, response) => {
      sse(response);
      response.write(chunk('<svg>') + chunk('<g>'));
      keepAlives = setInterval(() => response.write(': keep-alive\n\n'), 50);
      response.once('close', () => clearInterval(keepAlives));
    };
    await withClient({ idleTimeoutMs: 300 }, async (own) => {
      const { text, failure } = await failing(own.complete(call()));
      assert.deepEqual(failure, { kind: 'idle-timeout' });
      assert.equal(text, '<svg><g>');
      assert.equal(lastOutcome(), 'error idle-timeout');
      await responseClosed;
    });
  });

  it('gaps shorter than the idle timeout are no stall, however long the whole answer takes', async () => {
    handler = async (_request, response) => {
      sse(response);
      for (let i = 0; i < 8; i++) {
        response.write(chunk(`<g id="${i}"/>`));
        await sleep(100);
      }
      response.end('data: [DONE]\n\n');
    };
    await withClient({ idleTimeoutMs: 300 }, async (own) => {
      assert.equal((await collect(own.complete(call()))).length, 8 * '<g id="0"/>'.length);
    });
  });

  it('a consumer slower than the idle timeout does not make the upstream look stalled', async () => {
    const pieces = Array.from({ length: 3_000 }, (_, i) => `<g id="p${i}"/>`);
    handler = (_request, response) => {
      sse(response);
      response.end(pieces.map(chunk).join('') + 'data: [DONE]\n\n');
    };
    await withClient({ idleTimeoutMs: 100 }, async (own) => {
      let text = '';
      for await (const delta of each(own.complete(call()))) {
        if (text === '' && delta.content) await sleep(300); // the queue fills and pauses the upstream meanwhile
        text += delta.content ?? '';
      }
      assert.equal(text, pieces.join(''));
    });
  });
});

describe('connecting', { timeout: 15_000 }, () => {
  it('a connect that hangs gives up after connectTimeoutMs, within 10 %, as connect-timeout', async (t) => {
    let listener;
    try {
      listener = await startUnacceptingListener();
    } catch (error) {
      return t.skip(String(error));
    }
    const own = new UpstreamClient({ baseUrl: listener.url, connectTimeoutMs: 500, onCallEnd: (report) => reports.push(report) });
    try {
      const started = performance.now();
      const { failure } = await failing(own.complete(call()));
      const elapsed = performance.now() - started;
      assert.deepEqual(failure, { kind: 'connect-timeout' });
      assert.ok(elapsed >= 450 && elapsed < 700, `gave up after ${Math.round(elapsed)} ms`);
      assert.equal(lastOutcome(), 'error connect-timeout');
    } finally {
      listener.close();
      await own.close();
    }
  });

  it('a refused connect is a failed connect (worth one retry), not a timeout', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const own = new UpstreamClient({ baseUrl: `http://127.0.0.1:${port}/v1`, connectTimeoutMs: 500 });
    try {
      assert.deepEqual((await failing(own.complete(call()))).failure, { kind: 'connect' });
    } finally {
      await own.close();
    }
  });
});

describe('the output byte limit on a native Responses stream', { timeout: 15_000 }, () => {
  const LIMIT = 64 * 1024;
  const event = (fields: object) => `data: ${JSON.stringify(fields)}\n\n`;
  /** A message streamed as OpenAI does: its text in deltas, then whole again in output_item.done and response.completed. */
  const answer = (text: string, deltas: boolean) => {
    const item = { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
    const pieces = deltas ? [text.slice(0, text.length / 2), text.slice(text.length / 2)] : [];
    return [
      event({ type: 'response.created', response: { id: 'r', object: 'response', status: 'in_progress', output: [] } }),
      ...pieces.map((delta) => event({ type: 'response.output_text.delta', output_index: 0, content_index: 0, item_id: 'msg_1', delta })),
      event({ type: 'response.output_item.done', output_index: 0, item }),
      event({ type: 'response.completed', response: { id: 'r', object: 'response', status: 'completed', output: [item] } }),
    ].join('');
  };
  const respond = (own: UpstreamClient) => own.respond(call()) as unknown as AsyncGenerator<CompletionDelta[]>;

  it('counts each output item once, however many events repeat its text', async () => {
    // 40 KiB of text, sent three times over (deltas, item done, completed): within 64 KiB, with or without deltas.
    for (const deltas of [true, false]) {
      handler = (_request, response) => {
        sse(response);
        response.end(answer('x'.repeat(40 * 1024), deltas));
      };
      await withClient({ maxOutputBytes: LIMIT }, async (small) => {
        let events = 0;
        for await (const _ of each(respond(small))) events++;
        assert.ok(events >= 3);
      });
    }
  });

  it('an answer past the limit fails as oversize, in deltas or whole', async () => {
    for (const deltas of [true, false]) {
      handler = (_request, response) => {
        sse(response);
        response.write(answer('x'.repeat(80 * 1024), deltas)); // and never ends
      };
      await withClient({ maxOutputBytes: LIMIT }, async (small) => {
        assert.deepEqual((await failing(respond(small))).failure, { kind: 'oversize', limitBytes: LIMIT });
        await responseClosed;
      });
    }
  });
});
