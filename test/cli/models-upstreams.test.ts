import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream.ts';
import { describeRun, inkwell, scratchDirs } from '../helpers/cli.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

// `inkwell models upstreams`: each entry's servers from the config, joined with their state now
// from a running server's metrics listener.

const workdir = scratchDirs('inkwell-upstreams-');

describe('inkwell models upstreams', () => {
  let a: FakeUpstream;
  let h: Harness;
  let configFile: string;
  let home: string;

  before(async () => {
    a = await startFakeUpstream();
    const catalog = {
      include_builtin: false,
      models: [
        {
          id: 'pooled',
          engine: 'openai-compatible',
          operations: ['svg_generate'],
          billing: { kind: 'fixed_credit', credits: { svg_generate: 1 } },
          max_references: 0,
          input_modalities: ['text', 'svg'],
          fallbacks: ['remote'],
          options: {
            model: 'fake-model',
            health: { failure_threshold: 1, ejection_ms: 60_000 },
            upstreams: [
              { name: 'a', base_url: a.url, weight: 2 },
              // Nothing listens on port 9: a refused connect, which takes it out at once.
              { name: 'gone', base_url: 'http://127.0.0.1:9/v1', max_concurrency: 8 },
            ],
          },
        },
        {
          id: 'remote',
          engine: 'openai-compatible',
          operations: ['svg_generate'],
          billing: { kind: 'fixed_credit', credits: { svg_generate: 2 } },
          max_references: 0,
          input_modalities: ['text', 'svg'],
          options: { model: 'hosted', base_url: 'https://user:hunter2@api.provider.example/v1' },
        },
        {
          id: 'draw',
          engine: 'image-trace',
          operations: ['svg_generate'],
          billing: { kind: 'fixed_credit', credits: { svg_generate: 3 } },
          max_references: 0,
          input_modalities: ['text'],
          options: { model: 'gpt-image-1', base_url: 'https://images.provider.example/v1', max_concurrency: 2 },
        },
      ],
    };
    h = await startHarness({ config: { metrics: { port: 0 }, catalog } });
    home = workdir('home');
    configFile = join(home, 'inkwell.config.json');
    writeFileSync(configFile, JSON.stringify({ catalog }));
  });
  after(async () => {
    await h.close();
    await a.close();
  });

  const run = (...args: string[]) => inkwell(['models', 'upstreams', '--config', configFile, '--data-dir', home, ...args]);

  it('lists each server from the config, the address without its password; state unknown without a metrics listener', async () => {
    const result = await run('--json');
    assert.equal(result.code, 0, describeRun(result));
    const rows = JSON.parse(result.stdout).data as Record<string, unknown>[];
    assert.deepEqual(
      rows.map((row) => [row.model, row.upstream, row.base_url, row.weight, row.max_concurrency, row.fallbacks, row.state]),
      [
        ['pooled', 'a', a.url, 2, 4, 'remote', 'unknown'],
        ['pooled', 'gone', 'http://127.0.0.1:9/v1', 1, 8, 'remote', 'unknown'],
        ['remote', 'api.provider.example', 'https://user:***@api.provider.example/v1', 1, 4, '', 'unknown'],
        ['draw', 'images.provider.example', 'https://images.provider.example/v1', 1, 2, '', 'unknown'],
      ],
    );
    const human = await run();
    assert.match(human.stdout, /^MODEL\s+UPSTREAM\s+BASE_URL\s+WEIGHT\s+MAX_CONCURRENCY\s+FALLBACKS\s+STATE\s+IN_FLIGHT\s+RETURNS_AT$/m);
    assert.match(human.stdout, /state unknown: no metrics listener in the config; give --metrics-url or set metrics\.port/);
    assert.doesNotMatch(human.stdout + human.stderr, /hunter2/);
  });

  it("shows each server's state now from the running server: one taken out after a refused connect, with when it returns", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await h.request('POST', '/v1/svgs/generations', { key: h.keys.live, body: { model: 'pooled', prompt: 'a sun' } });
      assert.equal(res.status, 200, res.text);
    }
    const result = await run('--json', '--metrics-url', h.server.metricsUrl!);
    assert.equal(result.code, 0, describeRun(result));
    const rows = JSON.parse(result.stdout).data as Record<string, unknown>[];
    const state = Object.fromEntries(rows.map((row) => [`${row.model}/${row.upstream}`, [row.state, row.in_flight]]));
    assert.deepEqual(state, {
      'pooled/a': ['in service', 0],
      'pooled/gone': ['out', 0],
      'remote/api.provider.example': ['in service', 0],
      'draw/images.provider.example': ['in service', 0],
    });
    const returnsAt = Date.parse(String(rows.find((row) => row.upstream === 'gone')!.returns_at));
    assert.ok(returnsAt > Date.now() + 50_000 && returnsAt <= Date.now() + 60_000, 'out for ejection_ms');
  });
});
