import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { UpstreamClient, UpstreamError, type CompletionDelta, type UpstreamCallReport } from '../../src/engines/openai-compatible/upstream-client.ts';

// The upstream client on its own, against servers that misbehave in ways the scripted upstream
// of the e2e tests does not: a response kept open after [DONE], an answer far larger than the
// client's queue, an error body of 100 KiB, a caller that leaves mid-stream.

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

const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
const sse = (response: ServerResponse) => response.writeHead(200, { 'content-type': 'text/event-stream' });
const call = (signal = new AbortController().signal) => ({ body: { model: 'm', messages: [] }, signal, firstTokenTimeoutMs: 10_000, deadlineAt: Date.now() + 20_000 });

async function collect(deltas: AsyncGenerator<CompletionDelta>, eachTurn = false): Promise<string> {
  let text = '';
  for await (const delta of deltas) {
    text += delta.content ?? '';
    if (eachTurn) await nextTurn(); // a slow consumer: the upstream runs ahead of it
  }
  return text;
}

before(async () => {
  server = createServer((request, response) => {
    responseClosed = new Promise((resolve) => response.once('close', () => resolve()));
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
    const deltas = client.complete(call(controller.signal));
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
        for await (const delta of client.complete(call())) text += delta.content ?? '';
      })(),
      (error: unknown) => error instanceof UpstreamError && error.failure.kind === 'dropped',
    );
    assert.equal(text, '<svg>');
    assert.equal(lastOutcome(), 'error dropped');
  });
});
