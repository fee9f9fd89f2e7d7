// `inkwell key create --models` takes only ids of the catalog the organization sees (or *): a
// typo is refused at creation, instead of making a key whose every request is a 404.
// Runs the real `node bin/inkwell.js` like cli.test.ts, with a clean environment.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';

const BIN = fileURLToPath(new URL('../../bin/inkwell.js', import.meta.url));
const cwd = mkdtempSync(join(tmpdir(), 'inkwell-cli-models-'));
after(() => rmSync(cwd, { recursive: true, force: true }));

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('INKWELL_') || name === 'DATABASE_URL' || name.startsWith('NODE_TEST')) continue;
    env[name] = value;
  }
  return env;
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function inkwell(...args: string[]): Promise<Result> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args, '--data-dir', cwd], { cwd, env: cleanEnv(), timeout: 60_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

function okJson(result: Result): any {
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

describe('inkwell key create --models', () => {
  it('refuses ids the organization cannot see in the catalog, naming each once; * and visible ids pass', async () => {
    const org = okJson(await inkwell('org', 'create', 'Models', '--json')).id as string;
    const config = join(cwd, 'inkwell.config.json');
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
