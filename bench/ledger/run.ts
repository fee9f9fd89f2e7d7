/**
 * Ledger and limits benchmark: requests per second and p50/p99 latency of a cheap billed path
 * (auth → request limit → operation limits → reserve → sandbox engine → settle) next to the
 * same path on a test key (no ledger) and a bare Fastify route, in one run, on SQLite and — when
 * DATABASE_URL and REDIS_URL are set — on PostgreSQL + Redis. Usage: npm run bench:ledger
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import { createApiKey } from '../../src/accounts/keys.ts';
import { loadConfig } from '../../src/config/load.ts';
import { startServer, type RunningServer } from '../../src/main.ts';
import { openStore } from '../../src/store/index.ts';
import { directLedger } from './direct.ts';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Reserve+settle cycles in flight at once in the direct ledger target. */
const LEDGER_CONCURRENCY = Number(process.env.BENCH_LEDGER_CONCURRENCY ?? 256);
/** `--direct-only`: the ledger targets without HTTP, and nothing else. */
const DIRECT_ONLY = process.argv.includes('--direct-only');
const roomy = { limit: 1_000_000_000, window_seconds: 3600 };

interface Row {
  target: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(target: string, url: string, options: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Row> {
  // A short warm-up so JIT and connection pools are settled before the measured run.
  await autocannon({ url, connections: CONNECTIONS, duration: 2, ...options });
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, ...options });
  return {
    target,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function bareFastify(): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify();
  app.post('/bare', async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}/bare`, close: () => app.close() };
}

async function inkwell(env: Record<string, string>, pgSchema?: string): Promise<{ server: RunningServer; live: string; test: string; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-bench-'));
  const configFile = join(dataDir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      server: { port: 0 },
      log: { level: 'silent' },
      billing: { starter_credits: 1_000_000_000 },
      limits: {
        redis_prefix: `inkwell-bench-${Date.now()}`,
        requests: { svg: roomy, edits: roomy, animations: roomy, responses: roomy, catalog: roomy },
        outputs: roomy,
      },
      catalog: {
        models: [{ id: 'bench-one', engine: 'sandbox', operations: ['svg_generate'], billing: { kind: 'fixed_credit', credits: { svg_generate: 1, svg_vectorize: 0 } } }],
      },
    }),
  );
  const config = loadConfig({ configFile, env: { INKWELL_DATA_DIR: dataDir, ...env } });
  const server = await startServer(config, { postgresSchema: pgSchema });
  const organizationId = server.bootstrap!.organization.id;
  const key = async (environment: 'live' | 'test') =>
    (await createApiKey(server.store, { organizationId, kind: 'project', environment, scopes: ['*'], models: ['*'] })).secret;
  return { server, live: await key('live'), test: await key('test'), dataDir };
}

function post(key: string) {
  return {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'bench-one', prompt: 'a dot' }),
  };
}

/** Reserve+settle pairs per second for one organization, the billing layer called directly (no HTTP). */
async function directRow(label: string, databaseUrl?: string, pgSchema?: string): Promise<Row> {
  const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-bench-ledger-'));
  const store = await openStore({ dataDir, databaseUrl, postgresSchema: pgSchema });
  try {
    const result = await directLedger(store, DURATION_S, LEDGER_CONCURRENCY);
    return { target: `${label}: ledger only, reserve+settle pairs/s, ${LEDGER_CONCURRENCY} at once (no HTTP)`, rps: result.pairsPerSecond, p50: NaN, p99: NaN, errors: 0 };
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function backendRows(label: string, env: Record<string, string>, pgSchema?: string): Promise<Row[]> {
  if (DIRECT_ONLY) return [await directRow(label, env.DATABASE_URL, pgSchema)];
  const { server, live, test, dataDir } = await inkwell(env, pgSchema);
  try {
    const url = `${server.url}/v1/svgs/generations`;
    const rows = [await measure(`${label}: live key (auth + limits + reserve + settle)`, url, post(live))];
    rows.push(await measure(`${label}: test key (auth + limits, no ledger)`, url, post(test)));
    const settled = await server.store.ledger.entries(server.bootstrap!.organization.id, 1);
    if (settled.length === 0) throw new Error('no ledger entries: the live run did not bill');
    rows.push(await directRow(label, env.DATABASE_URL, pgSchema));
    return rows;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
if (!DIRECT_ONLY) {
  const bare = await bareFastify();
  rows.push(await measure('bare Fastify route (POST, JSON)', bare.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
  await bare.close();
}
rows.push(...(await backendRows('SQLite + memory limits', {})));

if (process.env.DATABASE_URL && process.env.REDIS_URL) {
  const schema = `inkwell_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  try {
    rows.push(...(await backendRows('PostgreSQL + Redis', { DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL }, schema)));
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
} else {
  console.error('DATABASE_URL and REDIS_URL not both set: PostgreSQL + Redis run skipped');
}

console.log(`\n${CONNECTIONS} connections, ${DURATION_S} s per target, Node ${process.version}\n`);
console.log('| target | req/s | p50 ms | p99 ms | errors |');
console.log('|---|---:|---:|---:|---:|');
const ms = (value: number) => (Number.isNaN(value) ? '—' : String(value));
for (const row of rows) console.log(`| ${row.target} | ${row.rps} | ${ms(row.p50)} | ${ms(row.p99)} | ${row.errors} |`);
