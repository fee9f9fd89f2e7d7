import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sqliteDriverPackage } from '../../src/store/sqlite-driver.ts';

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('the SQLite driver', () => {
  const major = Number(process.versions.node.split('.')[0]);

  it(`is better-sqlite3 13 (Node-API) on Node 22 and later, 12 on Node 20 (this is ${process.version})`, () => {
    assert.equal(sqliteDriverPackage, major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3');
  });

  it('leaves statements to the garbage collector between awaits and exits cleanly, as the service does', async () => {
    // Statements that become garbage while the process waits, finalized by a collection that runs
    // outside JavaScript: better-sqlite3 12 aborts the process there (SIGABRT) on Node 24.19+.
    const script = [
      "const { Sqlite } = await import('./src/store/sqlite-driver.ts');",
      "const db = new Sqlite(':memory:');",
      "db.exec('create table t (n integer, s text)');",
      'for (let round = 0; round < 20; round++) {',
      "  for (let n = 0; n < 500; n++) db.prepare('insert into t values (?, ?)').run(n, 'x'.repeat(200));",
      "  const garbage = []; for (let i = 0; i < 20000; i++) garbage.push({ i, s: 'y' + i });",
      '  await new Promise((resolve) => setTimeout(resolve, 20));',
      '}',
      "console.log(db.prepare('select count(*) as count from t').get().count);",
    ].join('\n');
    const child = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
    assert.equal(child.stdout.trim(), '10000');
    assert.equal(child.stderr, '');
  });
});
