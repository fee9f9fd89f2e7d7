/**
 * The real `inkwell` binary: `node bin/inkwell.js …` as a child process, which runs the build in
 * dist/ (npm test builds it first; with no build, or sources changed since, the binary runs the
 * sources). Only what a process alone shows is here: help, the working directory and the process
 * environment, and `serve` with its signals, pages and worker processes. The other commands run
 * in-process (cli.test.ts, client.test.ts).
 */
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { COMMANDS } from '../../src/cli/command-index.ts';
import { BIN, cleanEnv, inkwell, inkwellBinary, ok, scratchDirs, slot, type CliResult } from '../helpers/cli.ts';
import { SQUARE_SVG } from '../helpers/fixtures.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

const ANY_SECRET = /sk_(?:test|live|admin)_[0-9A-Za-z]{43}/g;
const SECRET = /^sk_(test|live|admin)_[0-9A-Za-z]{43}$/;
const SERVE_TIMEOUT_MS = 60_000;

const workdir = scratchDirs('inkwell-binary-');

const okJson = (result: CliResult): any => JSON.parse(ok(result));
const okLines = (result: CliResult) => ok(result).split('\n').filter(Boolean);
const secretsIn = (text: string) => [...new Set(text.match(ANY_SECRET) ?? [])];
const hintOf = (secret: string) => `${secret.slice(0, secret.lastIndexOf('_') + 1)}…${secret.slice(-4)}`;

describe('the inkwell binary', { concurrency: true }, () => {
  it('--version and -V print the package version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    assert.equal(ok(await inkwellBinary(['--version'], { cwd: workdir('version') })), `${version}\n`);
    assert.equal(ok(await inkwellBinary(['-V'], { cwd: workdir('version') })), `${version}\n`);
  });

  it('a reader that closes the pipe early (`openapi | head -c 10`) ends the command quietly, exit 0', async () => {
    // A shell pipeline, as a user types it: `head` exits after 10 bytes and the rest of the
    // document meets a closed pipe. pipefail makes the pipeline's status the command's own.
    const pipeline = `set -o pipefail; "${process.execPath}" "${BIN}" openapi | head -c 10 > /dev/null`;
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile('bash', ['-c', pipeline], { cwd: workdir('pipe'), env: cleanEnv() }, (error, _stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stderr }),
      );
    });
    assert.deepEqual(result, { code: 0, stderr: '' });
  });

  it('--help lists every command', async () => {
    const help = ok(await inkwellBinary(['--help'], { cwd: workdir('help') }));
    assert.match(help, /^Usage: inkwell \[options\] \[command\]$/m);
    for (const [name, { term }] of Object.entries(COMMANDS)) assert.match(help, new RegExp(`^  ${term.replace(/[[\]]/g, '\\$&')} `, 'm'), name);
  });

  it('--data-dir, INKWELL_DATA_DIR and the ./data default choose the database', async () => {
    const cwd = workdir('datadir');
    const fromEnv = join(cwd, 'env-data');
    const fromFlag = join(cwd, 'flag-data');
    const [envCreate, defaultCreate] = await Promise.all([
      inkwellBinary(['org', 'create', 'From env', '--json'], { cwd, env: { INKWELL_DATA_DIR: fromEnv } }),
      inkwellBinary(['org', 'create', 'From default', '--json'], { cwd }),
    ]);
    const envOrg = okJson(envCreate);
    const defaultOrg = okJson(defaultCreate);
    assert.ok(existsSync(join(fromEnv, 'inkwell.sqlite')));
    assert.ok(existsSync(join(cwd, 'data', 'inkwell.sqlite')));

    const [envList, flagList, defaultList] = await Promise.all([
      inkwellBinary(['org', 'list', '--json', '--data-dir', fromEnv], { cwd }),
      inkwellBinary(['org', 'list', '--json', '--data-dir', fromFlag], { cwd, env: { INKWELL_DATA_DIR: fromEnv } }),
      inkwellBinary(['org', 'list', '--json'], { cwd }),
    ]);
    assert.deepEqual(okJson(envList).data, [envOrg]);
    assert.deepEqual(okJson(flagList).data, [], '--data-dir wins over INKWELL_DATA_DIR');
    assert.deepEqual(okJson(defaultList).data, [defaultOrg]);
  });

  describe('client commands', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness();
    });
    after(() => h?.close());

    it('write files relative to the working directory, with the base URL and key from the environment', async () => {
      const cwd = workdir('client');
      writeFileSync(join(cwd, 'square.svg'), SQUARE_SVG);
      const env = { INKWELL_BASE_URL: h.url, INKWELL_API_KEY: h.keys.test };
      const [generated, edited] = await Promise.all([
        inkwellBinary(['generate', 'a red fox', '-n', '2', '-o', 'out', '--model', 'local-svg'], { cwd, env }),
        inkwellBinary(['edit', 'square.svg', 'make it blue'], { cwd, env }),
      ]);
      const paths = okLines(generated).sort();
      assert.deepEqual(paths.map((path) => path.slice(0, 4)), ['out/', 'out/'], 'printed as given: under out/');
      for (const path of paths) assert.match(readFileSync(join(cwd, path), 'utf8'), /<svg/);
      const [editPath] = okLines(edited);
      assert.equal(basename(editPath!), editPath, 'written in the working directory by default');
      assert.match(readFileSync(join(cwd, editPath!), 'utf8'), /<svg/);
    });
  });

  describe('serve', { concurrency: true }, () => {
    interface Served {
      code: number | null;
      stdout: string;
      stderr: string;
    }

    /** Starts `inkwell serve`, waits until `ready(stdout)`, calls `whileUp`, then stops it with SIGTERM. */
    function serve(args: string[], cwd: string, ready: (stdout: string) => boolean, whileUp: (stdout: string) => Promise<void> = async () => {}): Promise<Served> {
      return slot(
        () =>
          new Promise<Served>((resolve, reject) => {
            let stdout = '';
            let stderr = '';
            let signalled = false;
            const child: ChildProcess = execFile(
              process.execPath,
              [BIN, 'serve', '--port', '0', ...args],
              { cwd, env: cleanEnv(), timeout: SERVE_TIMEOUT_MS, maxBuffer: 32 * 1024 * 1024 },
              (error) => {
                if (!signalled) reject(new Error(`serve exited before it was ready (${error?.code ?? 0})\n${stdout}\n${stderr}`));
                else if (error && typeof error.code !== 'number') reject(new Error(`serve did not stop on SIGTERM (${error.signal})\n${stdout}\n${stderr}`));
                else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
              },
            );
            child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
            child.stdout!.on('data', (chunk: Buffer) => {
              stdout += chunk;
              if (signalled || !ready(stdout)) return;
              signalled = true;
              whileUp(stdout).then(
                () => child.kill('SIGTERM'),
                (error: unknown) => {
                  child.kill('SIGKILL');
                  reject(error);
                },
              );
            });
          }),
      );
    }

    const isReady = (stdout: string) => stdout.includes('"msg":"inkwell ready"');
    const bannerDone = (stdout: string) => /^Try: {2}curl .*\n={78}$/m.test(stdout);

    it('prints the bootstrap keys once under a banner on the first start, never again; serves the pages and traces in a worker', async () => {
      const cwd = workdir('serve');
      const png = await sharp({ create: { width: 64, height: 64, channels: 4, background: '#204080' } }).png().toBuffer();
      const first = await serve(['--data-dir', cwd], cwd, (s) => isReady(s) && bannerDone(s), async (stdout) => {
        // The printed keys work against the running server.
        const url = /Try: {2}curl -s (\S+)\/v1\/models/.exec(stdout)![1]!;
        const [test, live] = ['sk_test_', 'sk_live_'].map((prefix) => secretsIn(stdout).find((s) => s.startsWith(prefix))!);
        const models = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${test}` } });
        assert.equal(models.status, 200);
        // The playground's files are read at run time from beside the code.
        const page = await fetch(`${url}/`);
        assert.equal(page.status, 200);
        assert.match(await page.text(), /<html/i);
        // A live vectorization runs in a tracer worker process (forked from the build's entry).
        const traced = await fetch(`${url}/v1/svgs/vectorizations`, {
          method: 'POST',
          headers: { authorization: `Bearer ${live}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'inkwell-trace', image: { base64: png.toString('base64') } }),
        });
        const traceBody = await traced.text();
        assert.equal(traced.status, 200, traceBody);
        assert.match(traceBody, /<svg/);
      });
      assert.equal(first.code, 0, `exit code after SIGTERM\n${first.stderr}`);
      assert.equal(first.stderr, '');
      assert.match(first.stdout, /^First start: created organization org_\w+ \("Default organization"\) with 1000 credits\.$/m);
      assert.match(first.stdout, /shown ONCE and will not be shown again/);
      const banner = first.stdout.slice(first.stdout.indexOf('First start'));
      const keyLines = [...banner.matchAll(/^ {2}(.+?) {2,}(sk_\S+)$/gm)].map((m) => [m[1], m[2]]);
      assert.deepEqual(
        keyLines.map(([label]) => label),
        ['Project key, test (sandbox)', 'Project key, live', 'Organization admin key'],
      );
      const secrets = keyLines.map(([, secret]) => secret!);
      for (const secret of secrets) assert.match(secret, SECRET);
      assert.deepEqual(secrets.map((s) => s.slice(0, s.lastIndexOf('_') + 1)), ['sk_test_', 'sk_live_', 'sk_admin_']);
      assert.deepEqual(secretsIn(first.stdout).sort(), [...secrets].sort(), 'no other secret is printed');
      // Paste-ready lines for the names the docs use, and where the pages are.
      const exports = [...banner.matchAll(/^ {2}export (SK_\w+)=(sk_\S+)$/gm)].map((m) => [m[1], m[2]]);
      assert.deepEqual(exports, [['SK_TEST', secrets[0]], ['SK_LIVE', secrets[1]], ['SK_ADMIN', secrets[2]]]);
      assert.match(banner, /^Playground: {2}http:\/\/127\.0\.0\.1:\d+\/ /m);
      assert.match(banner, /^Reference: {3}http:\/\/127\.0\.0\.1:\d+\/docs$/m);
      const org = /created organization (org_\w+)/.exec(first.stdout)![1]!;

      const second = await serve(['--data-dir', cwd], cwd, isReady);
      assert.equal(second.code, 0, second.stderr);
      assert.deepEqual(secretsIn(second.stdout), [], second.stdout);
      assert.ok(!second.stdout.includes('First start'), second.stdout);

      const [orgs, keys] = await Promise.all([inkwell(['org', 'list', '--json', '--data-dir', cwd]), inkwell(['key', 'list', '--org', org, '--json', '--data-dir', cwd])]);
      assert.deepEqual(
        okJson(orgs).data.map((o: { id: string; balance_credits: number }) => [o.id, o.balance_credits]),
        [[org, 999]],
        'the second start created nothing; the vectorization cost its one credit',
      );
      assert.deepEqual(secretsIn(keys.stdout), []);
      // Keys minted in the same millisecond have no defined order, so compare as sets.
      assert.deepEqual(new Set(okJson(keys).data.map((k: { hint: string }) => k.hint)), new Set(secrets.map(hintOf)));
    });

    it('serve --json prints the first-start keys as one JSON line', async () => {
      const cwd = workdir('serve-json');
      const isBootstrap = (line: string) => line.startsWith('{"event":"first_start"');
      const first = await serve(['--json', '--data-dir', cwd, '--starter-credits', '7'], cwd, (s) => isReady(s) && s.split('\n').some(isBootstrap));
      assert.equal(first.code, 0, first.stderr);
      assert.ok(!first.stdout.includes('First start'), 'no banner with --json');
      const lines = first.stdout.trimEnd().split('\n');
      for (const line of lines) JSON.parse(line); // stdout is JSON lines only
      const bootstrap = JSON.parse(lines.find(isBootstrap)!);
      assert.match(bootstrap.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(bootstrap.organization_id, /^org_/);
      assert.equal(bootstrap.credits, 7);
      assert.deepEqual(
        bootstrap.keys.map((k: { kind: string; environment: string | null }) => [k.kind, k.environment]),
        [
          ['project', 'test'],
          ['project', 'live'],
          ['admin', null],
        ],
      );
      for (const k of bootstrap.keys) {
        assert.match(k.secret, SECRET);
        assert.match(k.id, /^key_/);
      }
      assert.equal(first.stdout.match(ANY_SECRET)!.length, 3, 'each secret once');
    });
  });
});
