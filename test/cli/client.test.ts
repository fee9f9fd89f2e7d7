/**
 * The API client commands (generate, vectorize, edit, animate, models), run in this process:
 * main() with captured output (no terminal) and an environment cleared of INKWELL_*, against the
 * server started here on 127.0.0.1 with the sandbox test key. Files go to absolute -o folders;
 * paths relative to the working directory and the process environment are binary.test.ts's.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { parseSvg } from '../../src/svg/parse.ts';
import { describeRun, inkwell, type CliResult } from '../helpers/cli.ts';
import { SQUARE_SVG } from '../helpers/fixtures.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { mediaFile, startMediaServer, type MediaServer } from '../helpers/media-server.ts';

const REQUEST_ID = /req_[0-9A-Z]{26}/;
/** `generate-req_…-0.svg`: the command, the request id, the output index. */
const FILE_NAME = (command: string) => new RegExp(`^${command}-req_[0-9A-Z]{26}-\\d+\\.svg$`);

const scratch = mkdtempSync(join(tmpdir(), 'inkwell-client-'));
let h: Harness;
let media: MediaServer;
let png: Buffer;

before(async () => {
  h = await startHarness({ config: { media: { allow_loopback_urls: true } } });
  png = await sharp({ create: { width: 64, height: 64, channels: 4, background: '#204080' } }).png().toBuffer();
  media = await startMediaServer({ '/disc.png': mediaFile('image/png', png) });
});

after(async () => {
  await h?.close();
  await media?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A fresh directory for one test's files. */
function workdir(name: string): string {
  return mkdtempSync(join(scratch, `${name}-`));
}

/** The command against the test server with the sandbox key, as flags. */
const withTestKey = (...args: string[]) => inkwell([...args, '--base-url', h.url, '--key', h.keys.test]);

/** Success, nothing on stderr (no terminal, so no progress line): the stdout lines. */
function okLines(result: CliResult): string[] {
  assert.equal(result.code, 0, describeRun(result));
  assert.equal(result.stderr, '', describeRun(result));
  return result.stdout.split('\n').filter(Boolean);
}

function okJson(result: CliResult): any {
  assert.equal(result.code, 0, describeRun(result));
  return JSON.parse(result.stdout);
}

/** Failure with `code`, one `inkwell: …` line on stderr matching every pattern. */
function fails(result: CliResult, code: number, ...patterns: RegExp[]): string {
  assert.equal(result.code, code, describeRun(result));
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, describeRun(result));
  assert.match(lines[0]!, /^inkwell: /, describeRun(result));
  for (const pattern of patterns) assert.match(lines[0]!, pattern, describeRun(result));
  return lines[0]!;
}

/** A written file: well-formed SVG markup with an <svg> root. */
function assertSvgFile(path: string): string {
  const markup = readFileSync(path, 'utf8');
  assert.equal(parseSvg(markup).name, 'svg');
  return markup;
}

/** Only finished files in the directory: no temporary file left behind. */
function filesIn(dir: string): string[] {
  return readdirSync(dir).sort();
}

describe('inkwell client commands', { concurrency: true }, () => {
  it('generate -n 2 writes two SVG files into -o DIR and prints their paths, one a line', async () => {
    const out = join(workdir('generate'), 'out');
    const lines = okLines(await withTestKey('generate', 'a red fox', '-n', '2', '-o', out, '--model', 'local-svg'));
    assert.equal(lines.length, 2, lines.join('\n'));
    // Printed as each output completes: output 1 may finish before output 0.
    lines.sort();
    assert.deepEqual(lines.map((line) => dirname(line)), [out, out]);
    for (const line of lines) {
      assert.match(basename(line), FILE_NAME('generate'));
      assertSvgFile(line);
    }
    assert.deepEqual(lines.map((line) => basename(line).slice(-6)), ['-0.svg', '-1.svg']);
    assert.equal(new Set(lines.map((line) => REQUEST_ID.exec(line)![0])).size, 1, 'both carry the request id');
    assert.deepEqual(filesIn(out), lines.map((line) => basename(line)).sort());
    assert.ok(!/\u001b/.test(lines.join('')), 'no escape codes when piped');
  });

  it('generate --json: one document with the files, their credits and no error; the default model is the catalog’s first generator', async () => {
    const dir = workdir('generate-json');
    const result = okJson(await withTestKey('generate', 'a lighthouse', '-n', '2', '--json', '--instructions', 'flat colours', '-o', dir));
    assert.equal(result.operation, 'generate');
    assert.equal(result.model, 'local-svg');
    assert.match(result.request_id, REQUEST_ID);
    assert.equal(result.requested, 2);
    assert.equal(result.error, null);
    assert.equal(result.credits, 8, 'the catalog price of 2 outputs of 4 credits, reported (not billed) for a test key');
    assert.equal(result.charged, false, 'a test key says nothing was charged');
    assert.deepEqual(result.files.map((f: { index: number }) => f.index).sort(), [0, 1]);
    for (const file of result.files) {
      assert.match(file.id, /^out_/);
      assert.equal(file.path, join(dir, `generate-${result.request_id}-${file.index}.svg`));
      assertSvgFile(file.path);
    }
  });

  it('vectorize writes one SVG from a local PNG (sent as base64) and from an http URL (fetched by the server)', async () => {
    const dir = workdir('vectorize');
    const svgs = join(dir, 'svgs');
    writeFileSync(join(dir, 'disc.png'), png);
    const [fromFile, fromUrl] = await Promise.all([
      withTestKey('vectorize', join(dir, 'disc.png'), '-o', svgs),
      withTestKey('vectorize', `${media.url}/disc.png`, '-o', svgs, '--json', '--model', 'inkwell-trace'),
    ]);
    const [path] = okLines(fromFile);
    assert.match(basename(path!), FILE_NAME('vectorize'));
    assertSvgFile(path!);
    const document = okJson(fromUrl);
    assert.equal(document.model, 'inkwell-trace');
    assert.equal(document.files.length, 1);
    assertSvgFile(document.files[0].path);
  });

  it('edit and animate take a local SVG file; animate reports its timing with --json', async () => {
    const dir = workdir('edit-animate');
    const square = join(dir, 'square.svg');
    const anim = join(dir, 'anim');
    writeFileSync(square, SQUARE_SVG);
    const [edited, animated, animatedJson] = await Promise.all([
      withTestKey('edit', square, 'make it blue', '-o', dir),
      withTestKey('animate', square, 'spin slowly', '-o', anim),
      withTestKey('animate', square, '--json', '-o', anim),
    ]);
    const [editPath] = okLines(edited);
    assert.match(basename(editPath!), FILE_NAME('edit'));
    assertSvgFile(editPath!);
    const [animatePath] = okLines(animated);
    assert.match(basename(animatePath!), FILE_NAME('animate'));
    assert.match(assertSvgFile(animatePath!), /@keyframes|<animate/);
    const document = okJson(animatedJson);
    assert.equal(document.files.length, 1);
    assert.ok('loop_period_ms' in document.files[0], JSON.stringify(document));
    assert.deepEqual(filesIn(anim).length, 2);
  });

  it('models lists the ids the API returns; --json prints the list document; models list still reads the config', async () => {
    const dir = workdir('models');
    const api = (await h.request('GET', '/v1/models')).json as { data: { id: string }[] };
    const ids = api.data.map((m) => m.id);
    const [human, json, admin] = await Promise.all([
      withTestKey('models'),
      withTestKey('models', '--json'),
      inkwell(['models', 'list', '--json', '--data-dir', dir]),
    ]);
    const rows = okLines(human);
    assert.match(rows[0]!, /^ID\s+BILLING\s+OPERATIONS\s+CREDITS$/);
    assert.deepEqual(rows.slice(1).map((row) => row.split(/\s+/)[0]), ids);
    assert.match(rows.find((row) => row.startsWith('local-svg '))!, /fixed_credit\s+svg_generate,svg_edit,svg_animate\s+svg_generate 4, svg_edit 6, svg_animate 8$/);
    assert.deepEqual(okJson(json), api);
    assert.deepEqual(okJson(admin).data.map((m: { id: string }) => m.id), ids, 'the admin view of the same built-in catalog');
  });

  it('honours INKWELL_BASE_URL and INKWELL_API_KEY; flags win over them', async () => {
    const dir = workdir('env');
    const env = { INKWELL_BASE_URL: h.url, INKWELL_API_KEY: h.keys.test };
    const [fromEnv, flagWins, generated] = await Promise.all([
      inkwell(['models', '--json'], { env }),
      inkwell(['models', '--key', 'sk_test_wrong'], { env }),
      inkwell(['generate', 'a kite', '--json', '-o', dir], { env }),
    ]);
    assert.ok(okJson(fromEnv).data.length > 0);
    fails(flagWins, 2, /401 invalid_api_key/);
    assert.equal(okJson(generated).files.length, 1);
  });

  it('a bad key: exit 2, and stderr names the status, code, message and request id; nothing is written', async () => {
    const dir = workdir('bad-key');
    const [generated, listed] = await Promise.all([
      inkwell(['generate', 'a fox', '--model', 'local-svg', '-o', dir, '--base-url', h.url, '--key', 'sk_test_nope']),
      inkwell(['models', '--base-url', h.url, '--key', 'sk_test_nope']),
    ]);
    for (const result of [generated, listed]) {
      assert.equal(result.stdout, '');
      fails(result, 2, /^inkwell: 401 invalid_api_key: Malformed API key\. .*\(request_id req_[0-9A-Z]{26}\)$/);
    }
    assert.deepEqual(filesIn(dir), []);
  });

  it('an error event mid-stream: the outputs completed before it are written, exit 4, the error on stderr', async () => {
    const dir = workdir('partial');
    const [piped, json] = await Promise.all([
      withTestKey('generate', 'a fox [mock:partial]', '-n', '2', '-o', join(dir, 'piped')),
      withTestKey('generate', 'a fox [mock:partial]', '-n', '2', '-o', join(dir, 'json'), '--json'),
    ]);
    const line = fails(piped, 4, /^inkwell: 1 of 2 outputs written; 502 model_error: 1 of 2 outputs failed: .*\(request_id req_[0-9A-Z]{26}\)$/);
    const paths = piped.stdout.split('\n').filter(Boolean);
    assert.equal(paths.length, 1);
    assert.match(basename(paths[0]!), /-0\.svg$/);
    assertSvgFile(paths[0]!);
    assert.equal(REQUEST_ID.exec(line)![0], REQUEST_ID.exec(paths[0]!)![0], 'the error and the file name carry the same request id');
    assert.deepEqual(filesIn(join(dir, 'piped')), [basename(paths[0]!)]);

    assert.equal(json.code, 4, describeRun(json));
    const document = JSON.parse(json.stdout);
    assert.equal(document.files.length, 1);
    assert.equal(document.error.code, 'model_error');
    assert.equal(document.error.status, 502);
    assert.equal(document.error.request_id, document.request_id);
    assertSvgFile(document.files[0].path);
  });

  it('errors before and during the stream: the exit code follows the status; param and retry timing are shown', async () => {
    const dir = workdir('errors');
    writeFileSync(join(dir, 'in.svg'), SQUARE_SVG);
    const [invalid, unavailable, failedOnly, missing] = await Promise.all([
      withTestKey('generate', 'a fox [mock:error=invalid_request]', '-o', dir),
      withTestKey('edit', join(dir, 'in.svg'), 'make it blue [mock:error=model_unavailable]', '--model', 'local-svg', '-o', dir),
      withTestKey('generate', 'a fox [mock:partial]', '-o', join(dir, 'single')),
      withTestKey('animate', join(dir, 'nothing.svg'), '-o', dir),
    ]);
    fails(invalid, 2, /^inkwell: 400 invalid_request: .*\(param prompt; request_id req_[0-9A-Z]{26}\)$/);
    fails(unavailable, 3, /^inkwell: 503 model_unavailable: .*\(retry after 30s; request_id req_/);
    fails(failedOnly, 3, /^inkwell: 502 model_error: /);
    assert.deepEqual(filesIn(join(dir, 'single')), [], 'a failed single output writes nothing');
    fails(missing, 1, /^inkwell: cannot read .*\/nothing\.svg: no such file$/);
    assert.equal(invalid.stdout + unavailable.stdout + failedOnly.stdout, '');
    assert.deepEqual(filesIn(dir), ['in.svg', 'single']);
  });

  it('refuses bad input before any request: exit 1', async () => {
    const dir = workdir('usage');
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const [noKey, badCount, badBase, unwritable, unreachable] = await Promise.all([
      inkwell(['generate', 'a fox', '-o', dir, '--base-url', h.url]),
      withTestKey('generate', 'a fox', '-n', 'two', '-o', dir),
      inkwell(['models', '--base-url', 'ftp://example.com', '--key', h.keys.test]),
      withTestKey('generate', 'a fox', '-o', join(file, 'out')),
      inkwell(['models', '--base-url', 'http://127.0.0.1:9', '--key', h.keys.test]),
    ]);
    fails(noKey, 1, /^inkwell: no API key: set INKWELL_API_KEY or pass --key$/);
    assert.equal(badCount.code, 1, describeRun(badCount));
    assert.match(badCount.stderr, /^error: option '-n, --count <n>' argument 'two' is invalid/);
    fails(badBase, 1, /base URL must be http or https/);
    fails(unwritable, 1, /ENOTDIR/);
    fails(unreachable, 3, /^inkwell: cannot reach http:\/\/127\.0\.0\.1:9: /);
  });
});

describe('inkwell client commands against a server that misbehaves', () => {
  let fake: Server;
  let fakeUrl: string;

  before(async () => {
    // Behind a path prefix, as a proxy would serve it: the client appends /v1/… to the base URL.
    fake = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/svg-api/v1/svgs/generations') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_fake1' });
        res.write('event: content\ndata: {"type":"content","id":"out_1","index":0,"svg":"<svg xmlns=\\"http://www.w3.org/2000/svg\\"/>"}\n\n');
        // The connection drops before output 1 and before [DONE].
        setTimeout(() => res.socket?.destroy(), 50);
      } else if (req.url === '/svg-api/v1/models') {
        res.writeHead(502, { 'content-type': 'text/html', 'x-request-id': 'req_proxy1' }).end('<html>Bad Gateway</html>');
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/svg-api/`;
  });
  after(() => new Promise((resolve) => fake?.close(resolve)));

  it('a cut stream keeps the outputs that arrived (exit 4); an error without envelope still shows its status and request id (exit 3)', async () => {
    const dir = workdir('misbehaving');
    const [cut, proxied] = await Promise.all([
      inkwell(['generate', 'a fox', '-n', '2', '--model', 'm', '-o', dir, '--base-url', fakeUrl, '--key', 'k']),
      inkwell(['models', '--base-url', fakeUrl, '--key', 'k']),
    ]);
    fails(cut, 4, /^inkwell: 1 of 2 outputs written; the event stream was cut: /);
    const written = join(dir, 'generate-req_fake1-0.svg');
    assert.equal(cut.stdout, `${written}\n`);
    assertSvgFile(written);
    fails(proxied, 3, /^inkwell: 502 http_502: no error envelope in the answer: <html>Bad Gateway<\/html> \(request_id req_proxy1\)$/);
  });
});
