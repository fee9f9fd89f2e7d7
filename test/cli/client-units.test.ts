// The parts of the API client commands that need no server: the progress line, the outcome of a
// stream, error lines, the SSE reader and the file writer.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { SvgStreamEvent } from '../../src/contract/svgs.ts';
import { describeApiError } from '../../src/cli/client/api-error.ts';
import { connectionFrom } from '../../src/cli/client/connection.ts';
import { EXIT } from '../../src/cli/client/exit-codes.ts';
import { writeNewFile } from '../../src/cli/client/files.ts';
import { outcomeOf } from '../../src/cli/client/outcome.ts';
import { advance, progressLine, startProgress } from '../../src/cli/client/progress.ts';
import { readEventStream, StreamBroken, type StreamMessage } from '../../src/cli/client/sse.ts';

const scratch = mkdtempSync(join(tmpdir(), 'inkwell-client-units-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const events = (...list: object[]) => list as SvgStreamEvent[];

describe('progress line', () => {
  const T0 = 1_000_000;

  it('says a test key\'s credits were not charged', () => {
    const content = { type: 'content', id: 'out_a', svg: '<svg/>', credits: 4 } as SvgStreamEvent;
    assert.equal(progressLine(advance(startProgress('generate', 1, T0, true), content), T0, 200), 'generate: output received · 1/1 output · 4 credits (test key: not charged) · 0.0s');
    assert.equal(progressLine(advance(startProgress('generate', 1, T0, false), content), T0, 200), 'generate: output received · 1/1 output · 4 credits · 0.0s');
  });

  it('shows the phase, outputs done of n, credits and elapsed time, from the events alone', () => {
    let progress = startProgress('generate', 2, T0);
    assert.equal(progressLine(progress, T0, 80), 'generate: waiting · 0/2 outputs · 0.0s');
    const stream = events(
      { type: 'generating', id: 'out_a', index: 0, text: 'Sketching' },
      { type: 'draft', id: 'out_a', index: 0, svg: '<svg/>', update_type: 'snapshot' },
      { type: 'content', id: 'out_a', index: 0, svg: '<svg/>', credits: 4 },
      { type: 'draft', id: 'out_b', index: 1, svg: '<svg><rect/></svg>', update_type: 'snapshot' },
    );
    const lines = stream.map((event, i) => {
      progress = advance(progress, event);
      return progressLine(progress, T0 + (i + 1) * 1000, 200);
    });
    assert.deepEqual(lines, [
      'generate: generating · 0/2 outputs · 1.0s · Sketching',
      'generate: drafting · 0/2 outputs · 2.0s · Sketching',
      'generate: output received · 1/2 outputs · 4 credits · 3.0s · Sketching',
      'generate: drafting · 1/2 outputs · 4 credits · 4.0s · Sketching',
    ]);
  });

  it('counts tokens per output as token-priced streams report them, the latest figure of each', () => {
    let progress = startProgress('edit', 1, 0);
    for (const event of events(
      { type: 'reasoning', id: 'out_a', usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } },
      { type: 'draft', id: 'out_a', svg: '<svg>', usage: { input_tokens: 10, output_tokens: 30, total_tokens: 40 } },
      { type: 'content', id: 'out_a', svg: '<svg/>', usage: { input_tokens: 10, output_tokens: 50, total_tokens: 60 } },
    )) {
      progress = advance(progress, event);
    }
    assert.equal(progressLine(progress, 1500, 80), 'edit: output received · 1/1 output · 60 tokens · 1.5s');
  });

  it('stays on one line: cut to the width, control characters from the server removed', () => {
    const progress = advance(startProgress('vectorize', 1, 0), { type: 'generating', text: `tracing\u001b[31m\nred ${'x'.repeat(200)}` } as SvgStreamEvent);
    const line = progressLine(progress, 0, 40);
    assert.equal(line.length, 39);
    assert.ok(line.endsWith('…'));
    assert.doesNotMatch(line, /[\u0000-\u001f]/);
    assert.equal(progressLine(progress, 0, 5).length, 10, 'never narrower than 10 columns');
  });

  it('ignores event types it does not know (the stream may grow)', () => {
    const progress = startProgress('animate', 1, 0);
    assert.deepEqual(advance(progress, { type: 'heartbeat' } as unknown as SvgStreamEvent), progress);
  });
});

describe('outcome of a stream', () => {
  const failure = { status: 502, code: 'model_error', message: '1 of 2 outputs failed.', request_id: 'req_1' };

  it('is success only with every output, no error event, and [DONE]', () => {
    assert.deepEqual(outcomeOf({ written: 2, expected: 2, closed: true }), { phase: 'done', exitCode: EXIT.ok });
    assert.deepEqual(outcomeOf({ written: 2, expected: 2, closed: false }), {
      phase: 'partial',
      exitCode: EXIT.partial,
      problem: '2 of 2 outputs written; the event stream ended without [DONE]',
    });
    assert.deepEqual(outcomeOf({ written: 1, expected: 2, closed: true }), {
      phase: 'partial',
      exitCode: EXIT.partial,
      problem: '1 of 2 outputs written; the stream ended after 1 of 2 outputs',
    });
  });

  it('after an error event: partial with outputs, otherwise the exit code of its status', () => {
    assert.deepEqual(outcomeOf({ written: 1, expected: 2, closed: true, failure }), {
      phase: 'partial',
      exitCode: EXIT.partial,
      problem: '1 of 2 outputs written; 502 model_error: 1 of 2 outputs failed. (request_id req_1)',
    });
    assert.equal(outcomeOf({ written: 0, expected: 1, closed: true, failure }).exitCode, EXIT.failed);
    assert.equal(outcomeOf({ written: 0, expected: 1, closed: true, failure: { ...failure, status: 402, code: 'insufficient_credits' } }).exitCode, EXIT.refused);
    assert.equal(outcomeOf({ written: 0, expected: 1, closed: true, failure: { ...failure, status: 408, code: 'request_timeout' } }).exitCode, EXIT.failed);
    assert.deepEqual(outcomeOf({ written: 0, expected: 3, closed: false, broken: 'the event stream was cut: terminated' }), {
      phase: 'failed',
      exitCode: EXIT.failed,
      problem: 'the event stream was cut: terminated',
    });
  });
});

describe('error line', () => {
  it('names status, code, message, param, retry timing and request id, on one printable line', () => {
    assert.equal(
      describeApiError({ status: 429, code: 'rate_limit_exceeded', message: 'Slow down.', param: 'n', retry_after: 20, request_id: 'req_9' }),
      '429 rate_limit_exceeded: Slow down. (param n; retry after 20s; request_id req_9)',
    );
    assert.equal(describeApiError({ status: 502, code: 'http_502', message: 'Bad\u001b[2J\ngateway\u0007' }), '502 http_502: Bad gateway (request_id unknown)');
  });
});

describe('connection', () => {
  it('takes flags over INKWELL_BASE_URL and INKWELL_API_KEY, and defaults to the local server', () => {
    const env = { INKWELL_BASE_URL: 'https://svg.example/api/', INKWELL_API_KEY: 'sk_env' };
    assert.deepEqual(connectionFrom({}, env), { baseUrl: 'https://svg.example/api', key: 'sk_env' });
    assert.deepEqual(connectionFrom({ baseUrl: 'http://h:1', key: 'sk_flag' }, env), { baseUrl: 'http://h:1', key: 'sk_flag' });
    assert.deepEqual(connectionFrom({ key: 'k' }, {}), { baseUrl: 'http://127.0.0.1:8080', key: 'k' });
    assert.throws(() => connectionFrom({}, {}), /no API key/);
  });
});

describe('SSE reader', () => {
  function body(chunks: string[], { cut = false } = {}): ReadableStream<Uint8Array> {
    const bytes = chunks.map((chunk) => new TextEncoder().encode(chunk));
    return new ReadableStream({
      pull(controller) {
        const next = bytes.shift();
        if (next) controller.enqueue(next);
        else if (cut) controller.error(Object.assign(new TypeError('terminated'), { cause: new Error('other side closed') }));
        else controller.close();
      },
    });
  }

  async function read(stream: ReadableStream<Uint8Array>): Promise<StreamMessage[]> {
    const messages: StreamMessage[] = [];
    for await (const message of readEventStream(stream)) messages.push(message);
    return messages;
  }

  it('parses events split anywhere (inside a UTF-8 character too), skips keep-alives, stops at [DONE]', async () => {
    const raw = ': keep-alive\n\nevent: content\ndata: {"type":"content","id":"out_1","svg":"<svg>é</svg>"}\n\ndata: [DONE]\n\ndata: {"type":"late"}\n\n';
    const bytes = new TextEncoder().encode(raw);
    const cut = raw.indexOf('é') + 1; // byte offset inside the two-byte é
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const [from, to] of [[0, 5], [5, cut], [cut, cut + 1], [cut + 1, bytes.length]] as const) controller.enqueue(bytes.subarray(from, to));
        controller.close();
      },
    });
    assert.deepEqual(await read(stream), [{ done: false, event: { type: 'content', id: 'out_1', svg: '<svg>é</svg>' } }, { done: true }]);
  });

  it('turns a cut connection or unreadable data into StreamBroken, after the events that did arrive', async () => {
    const messages: StreamMessage[] = [];
    await assert.rejects(async () => {
      for await (const message of readEventStream(body(['data: {"type":"generating"}\n\n'], { cut: true }))) messages.push(message);
    }, (error: unknown) => error instanceof StreamBroken && /cut: other side closed/.test(error.message));
    assert.deepEqual(messages, [{ done: false, event: { type: 'generating' } }]);
    await assert.rejects(read(body(['data: {not json\n\n'])), (error: unknown) => error instanceof StreamBroken && /not JSON/.test(error.message));
    await assert.rejects(read(body(['data: {"svg":"x"}\n\n'])), /without a type/);
  });
});

describe('file writer', () => {
  it('writes complete files under new names only: a taken name moves on to name.1.svg, leaving no temporary file', async () => {
    const dir = mkdtempSync(join(scratch, 'files-'));
    writeFileSync(join(dir, 'generate-req_1-0.svg'), 'mine');
    const [first, second] = await Promise.all([
      writeNewFile(dir, 'generate-req_1-0.svg', '<svg id="a"/>'),
      writeNewFile(dir, 'generate-req_1-1.svg', '<svg id="b"/>'),
    ]);
    const third = await writeNewFile(dir, 'generate-req_1-0.svg', '<svg id="c"/>');
    assert.equal(first, join(dir, 'generate-req_1-0.1.svg'));
    assert.equal(second, join(dir, 'generate-req_1-1.svg'));
    assert.equal(third, join(dir, 'generate-req_1-0.2.svg'));
    assert.equal(readFileSync(join(dir, 'generate-req_1-0.svg'), 'utf8'), 'mine', 'never overwritten');
    assert.equal(readFileSync(first, 'utf8'), '<svg id="a"/>');
    assert.deepEqual(readdirSync(dir).sort(), ['generate-req_1-0.1.svg', 'generate-req_1-0.2.svg', 'generate-req_1-0.svg', 'generate-req_1-1.svg']);
  });

  it('fails on a directory it cannot write, leaving nothing', async () => {
    await assert.rejects(writeNewFile(join(scratch, 'missing-dir'), 'x.svg', '<svg/>'), /ENOENT/);
  });
});
