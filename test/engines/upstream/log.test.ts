import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { UpstreamError } from '../../../src/engines/upstream/exchange.ts';
import { mapUpstreamFailure } from '../../../src/engines/upstream/errors.ts';
import { UpstreamLog } from '../../../src/engines/upstream/log.ts';

/** A logger whose lines are kept as parsed objects. */
function captured() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

const fail = (log: UpstreamLog, error: UpstreamError) => log.failed(error, mapUpstreamFailure(error));

describe('UpstreamLog', () => {
  it('says an unreachable server once when it goes, with its address and no stack, and once when it is back', async () => {
    const { logger, lines } = captured();
    const log = new UpstreamLog(logger, 'local-svg', 'http://127.0.0.1:11434/v1');
    for (let call = 0; call < 5; call++) fail(log, new UpstreamError({ kind: 'connect', cause: new Error('ECONNREFUSED') } as never));
    fail(log, new UpstreamError({ kind: 'connect-timeout' } as never));
    log.answered();
    log.answered();
    fail(log, new UpstreamError({ kind: 'connect' } as never));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      lines.map((line) => [line.level, line.msg, line.upstream, line.failure]),
      [
        [40, 'the model server is not reachable', 'http://127.0.0.1:11434/v1', 'connect'],
        [30, 'the model server is reachable again', 'http://127.0.0.1:11434/v1', undefined],
        [40, 'the model server is not reachable', 'http://127.0.0.1:11434/v1', 'connect'],
      ],
    );
    assert.ok(lines.every((line) => line.err === undefined), 'no error object, so no stack trace');
  });

  it('logs every other failure as it happens, and a server that answers with one is reachable', async () => {
    const { logger, lines } = captured();
    const log = new UpstreamLog(logger, 'local-svg', 'http://127.0.0.1:11434/v1');
    fail(log, new UpstreamError({ kind: 'connect' } as never));
    fail(log, new UpstreamError({ kind: 'status', status: 500, body: '' } as never));
    fail(log, new UpstreamError({ kind: 'status', status: 401, body: '' } as never));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      lines.map((line) => [line.level, line.msg]),
      [
        [40, 'the model server is not reachable'],
        [30, 'the model server is reachable again'],
        [40, 'upstream call failed'],
        [50, lines[3]!.msg],
      ],
    );
    assert.match(String(lines[3]!.msg), /api_key_env/);
  });
});
