/**
 * Every curl line of docs/api.md's test-key examples, run as written with bash against a fresh
 * service: a documented example that stopped working fails here. Lines that need a model server
 * (`$SK_LIVE`) are left to the engine suites.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { SQUARE_SVG } from '../helpers/fixtures.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { mediaFile, startMediaServer, type MediaServer } from '../helpers/media-server.ts';

const run = promisify(execFile);
const API_MD = new URL('../../docs/api.md', import.meta.url);

/** The curl commands of the page's sh blocks, continuation lines joined. */
function curlCommands(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  return blocks.flatMap((block) =>
    block
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .filter((line) => line.startsWith('curl ')),
  );
}

describe('the curl examples of docs/api.md', () => {
  let h: Harness;
  let media: MediaServer;
  let cwd: string;
  const commands = curlCommands(readFileSync(API_MD, 'utf8')).filter((command) => !command.includes('$SK_LIVE'));

  before(async () => {
    h = await startHarness({ config: { media: { allow_loopback_urls: true } } });
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#c0392b' } }).png().toBuffer();
    media = await startMediaServer({ '/photo.png': mediaFile('image/png', png) });
    cwd = mkdtempSync(join(tmpdir(), 'inkwell-curl-'));
    writeFileSync(join(cwd, 'photo.png'), png);
    writeFileSync(join(cwd, 'logo.svg'), SQUARE_SVG);
  });
  after(async () => {
    await h.close();
    await media.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('covers every endpoint a test or admin key reaches', () => {
    const paths = new Set(commands.map((command) => /localhost:8080(\/\S+)/.exec(command)?.[1]));
    for (const path of ['/v1/models', '/v1/svgs/generations', '/v1/svgs/vectorizations', '/v1/svgs/edits', '/v1/svgs/animations', '/v1/organization/balance']) {
      assert.ok(paths.has(path), `no example for ${path}`);
    }
    assert.ok(commands.some((command) => command.includes('"base64"')) && commands.some((command) => command.includes('"url"')), 'vectorize by base64 and by URL');
  });

  it('each answers 200 with a JSON document, or a stream that ends with [DONE]', async () => {
    const local = h.url.replace(/^http:\/\//, '');
    for (const command of commands) {
      const runnable = `${command.replaceAll('localhost:8080', local).replaceAll('https://example.com', media.url)} -w '\\n%{http_code}'`;
      const { stdout } = await run('bash', ['-c', runnable], {
        cwd,
        env: { PATH: process.env.PATH, SK_TEST: h.keys.test, SK_ADMIN: h.keys.admin },
        maxBuffer: 16 * 1024 * 1024,
      });
      const status = stdout.slice(stdout.lastIndexOf('\n') + 1);
      const body = stdout.slice(0, stdout.lastIndexOf('\n'));
      assert.equal(status, '200', `${command}\n${body.slice(0, 400)}`);
      if (command.includes('"stream":true')) assert.match(body, /data: \[DONE\]\s*$/, command);
      else assert.doesNotThrow(() => JSON.parse(body), command);
    }
  });
});
