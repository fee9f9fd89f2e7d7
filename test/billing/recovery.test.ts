import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { openStore, type Store } from '../../src/store/index.ts';
import { ledgerTotals, PAID_MODELS } from '../helpers/billing.ts';
import { BACKENDS, createPostgresSchema, POSTGRES_URL } from '../helpers/harness.ts';

const BIN = join(import.meta.dirname, '../../bin/inkwell.js');
const LEASE_MS = 1000;

interface Served {
  child: ChildProcess;
  url?: string;
  liveKey?: string;
  organizationId?: string;
}

/** Starts `inkwell serve` as a real process; on a first start it reads the URL and keys from its JSON line. */
async function serve(dataDir: string, configFile: string, env: Record<string, string>, firstStart: boolean): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--json', '--port', '0', '--data-dir', dataDir, '--config', configFile], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (!firstStart) return { child };
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    if (!line.startsWith('{')) continue;
    const parsed = JSON.parse(line);
    if (parsed.event !== 'first_start') continue;
    return {
      child,
      url: parsed.url,
      organizationId: parsed.organization_id,
      liveKey: parsed.keys.find((k: { environment: string }) => k.environment === 'live').secret,
    };
  }
  throw new Error('serve exited before printing its first-start line');
}

async function killHard(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function stopGently(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

for (const { backend, skip } of BACKENDS) {
  describe(`a process killed between reserve and settle, on ${backend}`, { skip }, () => {
    it('is recovered on the next start: delivered outputs settled, the rest released, nothing charged twice', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-crash-'));
      const pgSchema = backend === 'postgres' ? await createPostgresSchema() : undefined;
      const env: Record<string, string> = {};
      if (pgSchema) {
        const url = new URL(POSTGRES_URL!);
        url.searchParams.set('options', `-c search_path=${pgSchema.schema}`);
        env.DATABASE_URL = url.toString();
      }
      const configFile = join(dataDir, 'config.json');
      writeFileSync(
        configFile,
        JSON.stringify({
          log: { level: 'silent' },
          catalog: { models: PAID_MODELS },
          sandbox: { slow_stream_delay_ms: 300 },
          billing: { reservation_lease_ms: LEASE_MS },
        }),
      );
      let store: Store | undefined;
      const children: ChildProcess[] = [];
      try {
        const first = await serve(dataDir, configFile, env, true);
        children.push(first.child);
        store = await openStore({ dataDir, databaseUrl: env.DATABASE_URL, postgresSchema: pgSchema?.schema });
        const org = first.organizationId!;
        const start = await ledgerTotals(store, org);

        // A stream of 3 outputs killed after the first content event arrived.
        const controller = new AbortController();
        const streaming = await fetch(`${first.url}/v1/svgs/generations`, {
          method: 'POST',
          signal: controller.signal,
          headers: { authorization: `Bearer ${first.liveKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'paid-fixed', prompt: 'slow [mock:slow-stream]', n: 3, stream: true }),
        });
        const reader = streaming.body!.getReader();
        let text = '';
        while (!text.includes('event: content')) text += new TextDecoder().decode((await reader.read()).value);

        // And a JSON request of 2 outputs killed before it answered.
        const pendingJson = fetch(`${first.url}/v1/svgs/generations`, {
          method: 'POST',
          headers: { authorization: `Bearer ${first.liveKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'paid-fixed', prompt: 'slow json [mock:slow-stream]', n: 2 }),
        }).catch(() => 'dropped');
        await waitFor(async () => ((await store!.reservations.listOpen(org)).length === 2 ? true : undefined), 'two open reservations');

        await killHard(first.child);
        controller.abort();
        assert.equal(await pendingJson, 'dropped', 'the JSON request never got an answer');
        const crashed = await ledgerTotals(store, org);
        assert.equal(crashed.reserved, (3 + 2) * 3000, 'both reservations are still held after the crash');
        assert.equal(crashed.balance, start.balance, 'nothing settled yet');

        const second = await serve(dataDir, configFile, env, false);
        children.push(second.child);
        const recovered = await waitFor(async () => {
          const totals = await ledgerTotals(store!, org);
          return totals.reserved === 0 ? totals : undefined;
        }, 'the reservations to be recovered');
        assert.equal(start.balance - recovered.balance, 3000, 'exactly the one output the client received');
        const entries = await store.ledger.entries(org, 50);
        const recoveredEntries = entries.filter((e) => e.note?.includes('recovered'));
        assert.deepEqual(recoveredEntries.map((e) => e.kind).sort(), ['release', 'release', 'settle']);

        // Another sweep changes nothing: nothing is charged twice.
        await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 1.5));
        assert.deepEqual(await ledgerTotals(store, org), recovered);
        await stopGently(second.child);
      } finally {
        for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await store?.close();
        await pgSchema?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
