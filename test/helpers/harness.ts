import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import { createApiKey, type NewKeySpec } from '../../src/accounts/keys.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import { startServer, type RunningServer } from '../../src/main.ts';
import type { Store } from '../../src/store/index.ts';

export type Backend = 'sqlite' | 'postgres';

/** PostgreSQL tests run when DATABASE_URL is set (CI sets it); otherwise they are skipped. */
export const POSTGRES_URL = process.env.DATABASE_URL;
export const SKIP_POSTGRES = POSTGRES_URL ? false : 'DATABASE_URL is not set: PostgreSQL tests skipped';

/** Redis-backed limit tests run when REDIS_URL is set (CI sets it). */
export const REDIS_URL = process.env.REDIS_URL;
export const SKIP_REDIS = REDIS_URL ? false : 'REDIS_URL is not set: Redis tests skipped';

export const BACKENDS: { backend: Backend; skip: string | false }[] = [
  { backend: 'sqlite', skip: false },
  { backend: 'postgres', skip: SKIP_POSTGRES },
];

/** A fresh PostgreSQL schema per test run, dropped afterwards, so parallel test files never collide. */
export async function createPostgresSchema(): Promise<{ schema: string; drop(): Promise<void> }> {
  const schema = `inkwell_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  return {
    schema,
    async drop() {
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

export interface HarnessOptions {
  backend?: Backend;
  /** Config file contents merged under the test defaults. */
  config?: Record<string, unknown>;
  /** Extra environment for loadConfig (the real environment is not read). */
  env?: Record<string, string>;
  /** A logger for the server instead of the silent default (log tests capture lines with it). */
  logger?: Logger;
}

export interface Keys {
  test: string;
  live: string;
  admin: string;
}

export interface Harness {
  url: string;
  server: RunningServer;
  store: Store;
  config: Config;
  organizationId: string;
  keys: Keys;
  /** The PostgreSQL schema of a postgres harness (another replica can start on it). */
  postgresSchema?: string;
  /** Creates another key in the harness organization (or another). */
  createKey(spec: Partial<NewKeySpec> & Pick<NewKeySpec, 'kind'>): Promise<string>;
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as-is instead of JSON.stringify(body). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

const roomy = { limit: 1_000_000, window_seconds: 60 };
/** Tests send far more than 20 requests a minute; limit tests set their own rules. */
const ROOMY_LIMITS = {
  requests: { svg: roomy, edits: roomy, animations: roomy, responses: roomy, catalog: roomy },
  outputs: roomy,
};

/** The shared harness: the real app on a temp SQLite (or a PostgreSQL schema), 127.0.0.1:0, seeded keys. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-test-'));
  const pgSchema = options.backend === 'postgres' ? await createPostgresSchema() : undefined;
  const configFile = join(dataDir, 'inkwell.config.json');
  const limits = (options.config?.limits ?? {}) as { requests?: object };
  const fileConfig = {
    ...options.config,
    limits: { ...ROOMY_LIMITS, ...limits, requests: { ...ROOMY_LIMITS.requests, ...limits.requests } },
    server: { port: 0, ...(options.config?.server as object) },
    // The built-in entries take images in tests (references reach the sandbox); a test of a
    // model without image input sets vision: false.
    upstream: { vision: true, ...(options.config?.upstream as object) },
    log: { level: 'silent' },
  };
  const { writeFileSync } = await import('node:fs');
  writeFileSync(configFile, JSON.stringify(fileConfig));
  const config = loadConfig({
    configFile,
    env: {
      INKWELL_DATA_DIR: dataDir,
      ...(pgSchema ? { DATABASE_URL: POSTGRES_URL! } : {}),
      ...options.env,
    },
  });
  const server = await startServer(config, { postgresSchema: pgSchema?.schema, logger: options.logger });
  const bootstrap = server.bootstrap!;
  const secretOf = (label: string) => bootstrap.keys.find((k) => k.label.includes(label))!.secret;
  const organizationId = bootstrap.organization.id;

  const harness: Harness = {
    url: server.url,
    server,
    store: server.store,
    config,
    organizationId,
    postgresSchema: pgSchema?.schema,
    keys: { test: secretOf('test'), live: secretOf('live'), admin: secretOf('admin') },
    async createKey(spec) {
      const { secret } = await createApiKey(server.store, {
        organizationId: spec.organizationId ?? organizationId,
        kind: spec.kind,
        environment: spec.environment ?? (spec.kind === 'project' ? 'test' : null),
        scopes: spec.scopes ?? ['*'],
        models: spec.models ?? (spec.kind === 'project' ? ['*'] : []),
        name: spec.name,
      });
      return secret;
    },
    async request(method, path, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers };
      const key = requestOptions.key === undefined ? harness.keys.test : requestOptions.key;
      if (key !== null) headers.authorization ??= `Bearer ${key}`;
      let body: string | Buffer | undefined;
      if (requestOptions.rawBody !== undefined) body = requestOptions.rawBody;
      else if (requestOptions.body !== undefined) {
        body = JSON.stringify(requestOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${server.url}${path}`, { method, headers, body });
      const text = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: response.status, headers: response.headers, text, json };
    },
    async close() {
      await server.close();
      await pgSchema?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}
