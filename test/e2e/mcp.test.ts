import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AnimationRequest, EditRequest, GenerationRequest, VectorizationRequest } from '../../src/contract/svgs.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { FIXED_BILLING, SVG_CREDITS, svgModelEntry } from '../helpers/upstream-models.ts';
import { picture } from '../helpers/pictures.ts';

// Inkwell's MCP server, driven by the official SDK's own client over both transports: the tools
// and their schemas (the HTTP contract's own), each tool with a test key and a live key against the
// scripted upstream, a key without the capability, a bad argument, a cancelled call, and the
// balance to the millicent.

const ROOT = resolve(import.meta.dirname, '..', '..');
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="#bde0fe"/><circle cx="50" cy="50" r="30" fill="#ffb703"/></svg>';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

type Tools = Awaited<ReturnType<Client['listTools']>>['tools'];
const result = (value: unknown) => value as CallToolResult & { structuredContent: Record<string, any> };
const texts = (r: CallToolResult) => r.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text);
const images = (r: CallToolResult) => r.content.filter((c) => c.type === 'image') as { data: string; mimeType: string }[];

describe('the MCP server', () => {
  let upstream: FakeUpstream;
  let h: Harness;
  let work: string;

  before(async () => {
    upstream = await startFakeUpstream();
    h = await startHarness({
      config: {
        billing: { millicents_per_credit: 1000 },
        catalog: { models: [svgModelEntry('up', upstream.url, FIXED_BILLING, { first_token_timeout_ms: 5000, total_timeout_ms: 20_000, max_concurrency: 8 })] },
      },
    });
    work = mkdtempSync(join(tmpdir(), 'inkwell-mcp-'));
  });
  after(async () => {
    await h.close();
    await upstream.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    upstream.reply = () => ({ kind: 'stream', content: SVG });
  });

  const balance = async () => (await h.store.organizations.get(h.organizationId))!.balance_millicents;

  async function httpClient(key: string): Promise<Client> {
    const client = new Client({ name: 'inkwell-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    return client;
  }

  async function stdioClient(key: string): Promise<Client> {
    const client = new Client({ name: 'inkwell-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'bin', 'inkwell.js'), 'mcp', '--base-url', h.url],
      env: { ...(process.env as Record<string, string>), INKWELL_API_KEY: key },
      cwd: work,
      stderr: 'pipe',
    });
    await client.connect(transport);
    return client;
  }

  /** What both transports must do alike: `connect` opens a client with a key. */
  function eachTransport(transport: 'http' | 'stdio', connect: (key: string) => Promise<Client>) {
    it('lists the six tools, each schema the HTTP request\'s own fields (without stream)', async () => {
      const client = await connect(h.keys.live);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ['generate_svg', 'vectorize_image', 'edit_svg', 'animate_svg', 'list_models', 'get_balance']);
      assertSchemasFollowTheContract(tools, transport);
      await client.close();
    });

    it('generate_svg with a live key: the SVG, a PNG preview, the credits and request id; progress from the stream; billed once', async () => {
      const client = await connect(h.keys.live);
      const start = await balance();
      const progress: string[] = [];
      const r = result(await client.callTool({ name: 'generate_svg', arguments: { model: 'up', prompt: 'a sun', n: 2 } }, undefined, { onprogress: (p) => progress.push(String(p.message)) }));
      assert.equal(r.isError, undefined, texts(r).join('\n'));
      assert.equal(r.structuredContent.svgs.length, 2);
      assert.match(texts(r)[0]!, /^<svg [^>]*viewBox="0 0 100 100"/);
      assert.equal(images(r).length, 2);
      assert.equal(images(r)[0]!.mimeType, 'image/png');
      assert.ok(Buffer.from(images(r)[0]!.data, 'base64').subarray(0, 8).equals(PNG_SIGNATURE));
      assert.equal(r.structuredContent.credits, 2 * SVG_CREDITS.svg_generate);
      assert.equal(r.structuredContent.model, 'up');
      assert.match(r.structuredContent.request_id, /^req_/);
      assert.match(texts(r).at(-1)!, /charged 6 credits; request_id req_/);
      assert.ok(progress.includes('generating') && progress.filter((m) => /^output \d done$/.test(m)).length === 2, progress.join(','));
      assert.equal(start - (await balance()), 2 * SVG_CREDITS.svg_generate * 1000);
      assert.equal(upstream.requests.length, 2);
      await client.close();
    });

    it('every tool with a test key runs the sandbox: no model called, nothing billed', async () => {
      const client = await connect(h.keys.test);
      const start = await balance();
      const png = (await picture(64, 64)).toString('base64');
      const calls = [
        { name: 'generate_svg', arguments: { model: 'up', prompt: 'a sun' } },
        { name: 'vectorize_image', arguments: { model: 'inkwell-trace', image: { base64: png } } },
        { name: 'edit_svg', arguments: { model: 'up', prompt: 'make it blue', svg: SVG } },
        { name: 'animate_svg', arguments: { model: 'inkwell-motion', svg_source: { base64: Buffer.from(SVG).toString('base64') } } },
        { name: 'list_models', arguments: {} },
      ];
      for (const call of calls) {
        const r = result(await client.callTool(call));
        assert.equal(r.isError, undefined, `${call.name}: ${texts(r).join('\n')}`);
      }
      assert.equal(upstream.requests.length, 0);
      assert.equal(await balance(), start);
      await client.close();
    });

    it('vectorize_image, edit_svg and animate_svg with a live key, each billed at its price', async () => {
      const client = await connect(h.keys.live);
      const start = await balance();
      const png = (await picture(96, 96)).toString('base64');
      const traced = result(await client.callTool({ name: 'vectorize_image', arguments: { model: 'inkwell-trace', image: { base64: png } } }));
      assert.equal(traced.isError, undefined, texts(traced).join('\n'));
      assert.equal(traced.structuredContent.credits, 1);
      const edited = result(await client.callTool({ name: 'edit_svg', arguments: { model: 'up', prompt: 'make it blue', svg: SVG } }));
      assert.equal(edited.isError, undefined, texts(edited).join('\n'));
      assert.equal(edited.structuredContent.credits, SVG_CREDITS.svg_edit);
      const animated = result(await client.callTool({ name: 'animate_svg', arguments: { model: 'inkwell-motion', svg_source: { base64: Buffer.from(SVG).toString('base64') }, prompt: 'spin' } }));
      assert.equal(animated.isError, undefined, texts(animated).join('\n'));
      assert.match(texts(animated)[0]!, /@keyframes/);
      assert.equal(start - (await balance()), (1 + SVG_CREDITS.svg_edit + 2) * 1000);
      await client.close();
    });

    it('list_models with a project key; get_balance with an admin key, and refused to a project key', async () => {
      const project = await connect(h.keys.live);
      const models = result(await project.callTool({ name: 'list_models', arguments: {} }));
      assert.ok(models.structuredContent.data.some((m: { id: string }) => m.id === 'up'));
      const refused = result(await project.callTool({ name: 'get_balance', arguments: {} }));
      assert.equal(refused.isError, true);
      assert.equal(refused.structuredContent.error.code, 'unauthorized');
      await project.close();
      const admin = await connect(h.keys.admin);
      const balanceTool = result(await admin.callTool({ name: 'get_balance', arguments: {} }));
      assert.equal(balanceTool.structuredContent.object, 'organization.balance');
      assert.equal(balanceTool.structuredContent.available_credits, Math.floor((await balance()) / 1000));
      await admin.close();
    });

    it('a key without the capability, and a bad argument, are tool errors carrying the envelope', async () => {
      const key = await h.createKey({ kind: 'project', environment: 'live', scopes: ['svg_vectorize'] });
      const client = await connect(key);
      const denied = result(await client.callTool({ name: 'generate_svg', arguments: { model: 'up', prompt: 'a sun' } }));
      assert.equal(denied.isError, true);
      assert.equal(denied.structuredContent.error.code, 'unauthorized');
      assert.match(denied.structuredContent.error.request_id, /^req_/);
      assert.match(texts(denied)[0]!, /^unauthorized: .*\(request_id: req_/);
      const bad = result(await client.callTool({ name: 'vectorize_image', arguments: { model: 'inkwell-trace', image: { base64: 'not base64 at all!' } } }));
      assert.equal(bad.isError, true);
      assert.equal(bad.structuredContent.error.code, 'invalid_request');
      assert.equal(bad.structuredContent.error.param, 'image.base64');
      const range = result(await client.callTool({ name: 'vectorize_image', arguments: { model: 'inkwell-trace', image: { url: 'https://example.com/a.png' }, target_size: 5 } }));
      assert.equal(range.structuredContent.error.param, 'target_size');
      assert.equal(upstream.requests.length, 0);
      await client.close();
    });

    it('a cancelled call closes its request: the model call is abandoned and nothing is charged', async () => {
      upstream.reply = () => ({ kind: 'stream', content: SVG, firstTokenDelayMs: 3000 });
      const client = await connect(h.keys.live);
      const start = await balance();
      const controller = new AbortController();
      const call = client.callTool({ name: 'generate_svg', arguments: { model: 'up', prompt: 'a sun' } }, undefined, { signal: controller.signal });
      for (let i = 0; i < 300 && upstream.requests.length === 0; i++) await sleep(10);
      controller.abort();
      await assert.rejects(call);
      for (let i = 0; i < 300 && !upstream.requests[0]?.aborted; i++) await sleep(10);
      assert.equal(upstream.requests[0]?.aborted, true, 'the upstream call was closed');
      await sleep(200);
      assert.equal(await balance(), start);
      await client.close();
    });
  }

  describe('over Streamable HTTP at /mcp', () => {
    eachTransport('http', httpClient);

    it('refuses output_path and a local file: the service reads and writes no files of the agent\'s', async () => {
      const client = await httpClient(h.keys.live);
      const file = result(await client.callTool({ name: 'vectorize_image', arguments: { model: 'inkwell-trace', image: { path: '/etc/passwd' } } }));
      assert.equal(file.isError, true);
      assert.equal(file.structuredContent.error.param, 'image.path');
      const out = result(await client.callTool({ name: 'generate_svg', arguments: { model: 'up', prompt: 'a sun', output_path: '/tmp/x.svg' } }));
      assert.equal(out.structuredContent.error.param, 'output_path');
      await client.close();
    });

    it('refuses a missing or wrong key with the API\'s 401 envelope, and GET with 405', async () => {
      const missing = await h.request('POST', '/mcp', { key: null, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      assert.equal(missing.status, 401);
      assert.equal(missing.json.code, 'invalid_api_key');
      const wrong = await h.request('POST', '/mcp', { key: 'sk_live_nope', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      assert.equal(wrong.status, 401);
      const get = await h.request('GET', '/mcp', { key: h.keys.live });
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST');
    });
  });

  describe('over stdio (inkwell mcp)', () => {
    eachTransport('stdio', stdioClient);

    it('vectorizes a local file and writes the SVG where output_path says', async () => {
      writeFileSync(join(work, 'sun.png'), await picture(96, 96));
      const client = await stdioClient(h.keys.live);
      const r = result(await client.callTool({ name: 'vectorize_image', arguments: { model: 'inkwell-trace', image: { path: 'sun.png' }, output_path: 'sun.svg' } }));
      assert.equal(r.isError, undefined, texts(r).join('\n'));
      assert.deepEqual(r.structuredContent.files, [join(work, 'sun.svg')]);
      assert.equal(readFileSync(join(work, 'sun.svg'), 'utf8'), texts(r)[0]);
      const two = result(await client.callTool({ name: 'generate_svg', arguments: { model: 'up', prompt: 'a sun', n: 2, output_path: 'suns.svg' } }));
      assert.deepEqual(two.structuredContent.files, [join(work, 'suns.svg'), join(work, 'suns-2.svg')]);
      const missing = result(await client.callTool({ name: 'vectorize_image', arguments: { model: 'inkwell-trace', image: { path: 'nowhere.png' } } }));
      assert.equal(missing.isError, true);
      assert.equal(missing.structuredContent.error.param, 'image.path');
      assert.match(texts(missing)[0]!, /ENOENT/);
      await client.close();
    });
  });
});

/** Each operation tool's arguments are its HTTP request's fields, `stream` left out (and, over stdio, `output_path` and a file for the image added). */
function assertSchemasFollowTheContract(tools: Tools, transport: 'http' | 'stdio'): void {
  const json = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as { properties: Record<string, unknown> };
  const requests = { generate_svg: GenerationRequest, vectorize_image: VectorizationRequest, edit_svg: EditRequest, animate_svg: AnimationRequest };
  for (const [name, request] of Object.entries(requests)) {
    const tool = tools.find((t) => t.name === name)!;
    const { stream: _stream, ...expected } = json(request).properties;
    const properties = { ...(tool.inputSchema.properties as Record<string, unknown>) };
    if (transport === 'stdio') {
      assert.ok('output_path' in properties, `${name} takes output_path over stdio`);
      delete properties.output_path;
      if (name === 'vectorize_image') {
        const image = properties.image as { anyOf: unknown[] };
        assert.deepEqual(image.anyOf.slice(0, -1), (expected.image as { anyOf: unknown[] }).anyOf, 'the image as the API takes it, then a file');
        delete properties.image;
        delete expected.image;
      }
    } else assert.ok(!('output_path' in properties));
    assert.deepEqual(properties, expected, `${name}'s arguments are the contract's ${name} request fields`);
    assert.equal((tool.inputSchema as { additionalProperties?: unknown }).additionalProperties, false);
  }
}
