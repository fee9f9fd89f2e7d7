// `inkwell key create --models` takes only ids of the catalog the organization sees (or *): a
// typo is refused at creation, instead of making a key whose every request is a 404.
// Runs the command in-process (test/helpers/cli.ts), with a clean environment.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { inkwell as run, type CliResult } from '../helpers/cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-cli-models-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

const inkwell = (...args: string[]) => run([...args, '--data-dir', dataDir]);

function okJson(result: CliResult): any {
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

describe('inkwell key create --models', () => {
  it('refuses ids the organization cannot see in the catalog, naming each once; * and visible ids pass', async () => {
    const org = okJson(await inkwell('org', 'create', 'Models', '--json')).id as string;
    const config = join(dataDir, 'inkwell.config.json');
    const entry = (id: string, organizations: string[]) => ({
      id,
      engine: 'sandbox',
      operations: ['svg_generate'],
      billing: { kind: 'fixed_credit', credits: { svg_generate: 1 } },
      organizations,
    });
    writeFileSync(config, JSON.stringify({ catalog: { models: [entry('ours-svg', [org]), entry('theirs-svg', ['org_someone_else'])] } }));
    const create = (models: string) => inkwell('key', 'create', '--org', org, '--kind', 'project', '--env', 'live', '--models', models, '--config', config, '--json');

    const [typos, hidden, visible, wildcard] = await Promise.all([
      create('local-svg,foo,bar,foo'),
      create('theirs-svg'),
      create('ours-svg,local-svg'),
      create('*'),
    ]);
    for (const [result, named] of [[typos, 'foo, bar'], [hidden, 'theirs-svg']] as const) {
      assert.deepEqual(
        [result.code, result.stdout, result.stderr],
        [1, '', `inkwell: unknown model(s): ${named} (see inkwell models list)\n`],
      );
    }
    assert.deepEqual(okJson(visible).models, ['local-svg', 'ours-svg']);
    assert.deepEqual(okJson(wildcard).models, ['*']);

    const listed = okJson(await inkwell('key', 'list', '--org', org, '--json')).data as { models: string[] }[];
    assert.deepEqual(listed.map((k) => k.models.join(',')).sort(), ['*', 'local-svg,ours-svg'], 'the refused commands created no key');
  });
});
