import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const KEY = 'sk_live_Q2xpZW50S2V5VGhhdFNob3VsZE5vdEJlTG9nZ2Vk';

/** What the service's logger prints on stdout for one entry, in a process of its own (stdout is a pipe there). */
async function logged(format: string): Promise<string> {
  const script = [
    "const { createLogger } = await import('./src/main.ts');",
    `createLogger({ log: { level: 'info', format: ${JSON.stringify(format)} } }).info({ model: 'local-svg' }, 'upstream down ${KEY}');`,
  ].join('\n');
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
  return stdout;
}

describe('log lines', () => {
  it('are JSON lines when stdout is not a terminal (auto), and with json', async () => {
    for (const format of ['auto', 'json']) {
      const lines = (await logged(format)).trim().split('\n');
      assert.equal(lines.length, 1, format);
      const entry = JSON.parse(lines[0]!);
      assert.equal(entry.msg, 'upstream down [redacted]');
      assert.equal(entry.model, 'local-svg');
      assert.equal(entry.level, 30);
    }
  });

  it('are readable lines with pretty: time, level, message, fields; keys redacted the same way', async () => {
    const text = await logged('pretty');
    assert.throws(() => JSON.parse(text), 'not JSON');
    assert.match(text, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: upstream down \[redacted\]\n {4}model: "local-svg"\n$/);
    assert.ok(!text.includes(KEY.slice(8)), 'the key is not printed');
  });
});
