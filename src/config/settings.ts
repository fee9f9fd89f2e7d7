/**
 * Every deployment setting that can come from the environment or a command-line flag, in one
 * table: `serve --help`, the environment reader and the README are all derived from it.
 */
export interface Setting {
  /** Path in the config file, e.g. `server.port`. */
  path: string;
  env: string;
  flag: string;
  /** Placeholder shown in --help, e.g. `<port>`; absent for boolean switches. */
  argument?: string;
  description: string;
  parse: (raw: string) => unknown;
  /** Commands other than `serve` accept it too (data location). */
  everyCommand?: boolean;
}

function integer(raw: string): number {
  if (!/^\d+$/.test(raw.trim())) throw new Error(`expected a whole number, got "${raw}"`);
  return Number(raw);
}

function boolean(raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(value)) return false;
  throw new Error(`expected true or false, got "${raw}"`);
}

const text = (raw: string) => raw;
const list = (raw: string) =>
  raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export const SETTINGS: Setting[] = [
  {
    path: 'data_dir',
    env: 'INKWELL_DATA_DIR',
    flag: '--data-dir',
    argument: '<dir>',
    description: 'Directory of the embedded SQLite database (default ./data).',
    parse: text,
    everyCommand: true,
  },
  {
    path: 'database_url',
    env: 'DATABASE_URL',
    flag: '--database-url',
    argument: '<url>',
    description: 'postgres://… to use PostgreSQL instead of the SQLite file.',
    parse: text,
    everyCommand: true,
  },
  {
    path: 'redis_url',
    env: 'REDIS_URL',
    flag: '--redis-url',
    argument: '<url>',
    description: 'redis://… to keep rate-limit counters in Redis, shared by every replica (default: in process memory).',
    parse: text,
  },
  { path: 'server.host', env: 'INKWELL_HOST', flag: '--host', argument: '<host>', description: 'Address to listen on (default 127.0.0.1).', parse: text },
  { path: 'server.port', env: 'INKWELL_PORT', flag: '--port', argument: '<port>', description: 'Port to listen on (default 8080; 0 picks a free one).', parse: integer },
  {
    path: 'server.body_bytes_in_flight',
    env: 'INKWELL_BODY_BYTES_IN_FLIGHT',
    flag: '--body-bytes-in-flight',
    argument: '<bytes>',
    description:
      'Most request-body bytes being received and parsed at once across all requests (default 536870912). ' +
      'A request that would exceed it gets 429 rate_limit_exceeded with Retry-After.',
    parse: integer,
  },
  {
    path: 'server.request_timeout_ms',
    env: 'INKWELL_REQUEST_TIMEOUT_MS',
    flag: '--request-timeout',
    argument: '<ms>',
    description: 'Deadline for receiving a whole request (default 300000; 0 disables).',
    parse: integer,
  },
  {
    path: 'server.keep_alive_timeout_ms',
    env: 'INKWELL_KEEP_ALIVE_TIMEOUT_MS',
    flag: '--keep-alive-timeout',
    argument: '<ms>',
    description: 'Idle keep-alive connection timeout (default 72000).',
    parse: integer,
  },
  {
    path: 'server.shutdown_grace_ms',
    env: 'INKWELL_SHUTDOWN_GRACE_MS',
    flag: '--shutdown-grace',
    argument: '<ms>',
    description: 'How long in-flight requests may finish after SIGTERM (default 10000).',
    parse: integer,
  },
  {
    path: 'server.trust_proxy',
    env: 'INKWELL_TRUST_PROXY',
    flag: '--trust-proxy',
    description: 'Trust X-Forwarded-* headers from a reverse proxy (default off).',
    parse: boolean,
  },
  {
    path: 'server.cors_origins',
    env: 'INKWELL_CORS_ORIGINS',
    flag: '--cors-origins',
    argument: '<list>',
    description: 'Comma-separated origins allowed by CORS (default none: keys belong server-side).',
    parse: list,
  },
  {
    path: 'media.allow_loopback_urls',
    env: 'INKWELL_ALLOW_LOOPBACK_URLS',
    flag: '--allow-loopback-urls',
    description: 'Let image and SVG URL inputs reach 127.0.0.0/8 and ::1, for local use (default off; all other private ranges stay blocked).',
    parse: boolean,
  },
  {
    path: 'trace.workers',
    env: 'INKWELL_TRACE_WORKERS',
    flag: '--trace-workers',
    argument: '<n>',
    description: 'Worker processes that decode and trace images (default 0 = one per CPU core).',
    parse: integer,
  },
  {
    path: 'trace.queue',
    env: 'INKWELL_TRACE_QUEUE',
    flag: '--trace-queue',
    argument: '<n>',
    description: 'Tracing jobs that may wait for a worker before new ones get 503 (default 0 = four per worker).',
    parse: integer,
  },
  {
    path: 'trace.timeout_ms',
    env: 'INKWELL_TRACE_TIMEOUT_MS',
    flag: '--trace-timeout-ms',
    argument: '<ms>',
    description: 'Longest a tracing job may run before its worker is killed and the request gets 504 (default 60000).',
    parse: integer,
  },
  {
    path: 'log.level',
    env: 'INKWELL_LOG_LEVEL',
    flag: '--log-level',
    argument: '<level>',
    description: 'fatal, error, warn, info (default), debug, trace or silent.',
    parse: text,
    everyCommand: true,
  },
  {
    path: 'billing.starter_credits',
    env: 'INKWELL_STARTER_CREDITS',
    flag: '--starter-credits',
    argument: '<credits>',
    description: 'Credits granted to the organization created on the first start (default 1000).',
    parse: integer,
  },
  {
    path: 'upstream.base_url',
    env: 'INKWELL_UPSTREAM_BASE_URL',
    flag: '--upstream-base-url',
    argument: '<url>',
    description: 'OpenAI-compatible server of the built-in model entries (default http://127.0.0.1:11434/v1, Ollama).',
    parse: text,
    everyCommand: true,
  },
  {
    path: 'upstream.model',
    env: 'INKWELL_UPSTREAM_MODEL',
    flag: '--upstream-model',
    argument: '<name>',
    description: 'Upstream model name behind the built-in entries (default qwen2.5-coder:7b).',
    parse: text,
    everyCommand: true,
  },
  {
    path: 'upstream.api_key',
    env: 'INKWELL_UPSTREAM_API_KEY',
    flag: '--upstream-api-key',
    argument: '<key>',
    description: 'Bearer key sent to that upstream, if it needs one.',
    parse: text,
  },
];
