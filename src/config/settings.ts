import { ConfigSchema, LOG_LEVELS } from './schema.ts';

/**
 * A deployment setting that can come from the environment or a command-line flag. SETTINGS lists
 * them all: `serve --help` and the environment reader are derived from it.
 */
export interface Setting {
  /** Path in the config file, e.g. `server.port`. */
  path: string;
  env: string;
  flag: string;
  /** Placeholder shown in --help, e.g. `<port>`; absent for boolean switches. */
  argument?: string;
  /** Help text; `{default}` stands for the schema's default, so no default is written twice. */
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

/** The config schema's default of a path such as `server.port`. */
function schemaDefault(path: string): unknown {
  let schema: unknown = ConfigSchema;
  for (const key of path.split('.')) schema = (schema as { properties: Record<string, unknown> }).properties[key];
  return (schema as { default?: unknown }).default;
}

/** A default as help text writes it: switches on/off, an empty list none. */
function shownDefault(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (Array.isArray(value) && value.length === 0) return 'none';
  return String(value);
}

/** The log levels as help text lists them, the default marked: `fatal, …, info (default), … or silent.` */
function logLevelsHelp(): string {
  const names = LOG_LEVELS.map((level) => (level === schemaDefault('log.level') ? `${level} (default)` : level));
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}.`;
}

const withDefault = (setting: Setting): Setting => ({
  ...setting,
  description: setting.description.replace('{default}', () => shownDefault(schemaDefault(setting.path))),
});

export const SETTINGS: Setting[] = ([
  {
    path: 'data_dir',
    env: 'INKWELL_DATA_DIR',
    flag: '--data-dir',
    argument: '<dir>',
    description: 'Directory of the embedded SQLite database (default {default}).',
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
  { path: 'server.host', env: 'INKWELL_HOST', flag: '--host', argument: '<host>', description: 'Address to listen on (default {default}).', parse: text },
  { path: 'server.port', env: 'INKWELL_PORT', flag: '--port', argument: '<port>', description: 'Port to listen on (default {default}; 0 picks a free one).', parse: integer },
  {
    path: 'server.body_bytes_in_flight',
    env: 'INKWELL_BODY_BYTES_IN_FLIGHT',
    flag: '--body-bytes-in-flight',
    argument: '<bytes>',
    description:
      'Most request-body bytes being received and parsed at once across all requests (default {default}). ' +
      'A request that would exceed it gets 429 rate_limit_exceeded with Retry-After.',
    parse: integer,
  },
  {
    path: 'server.request_timeout_ms',
    env: 'INKWELL_REQUEST_TIMEOUT_MS',
    flag: '--request-timeout',
    argument: '<ms>',
    description: 'Deadline for receiving a whole request (default {default}; 0 disables).',
    parse: integer,
  },
  {
    path: 'server.keep_alive_timeout_ms',
    env: 'INKWELL_KEEP_ALIVE_TIMEOUT_MS',
    flag: '--keep-alive-timeout',
    argument: '<ms>',
    description: 'Idle keep-alive connection timeout (default {default}).',
    parse: integer,
  },
  {
    path: 'server.backlog',
    env: 'INKWELL_BACKLOG',
    flag: '--backlog',
    argument: '<connections>',
    description:
      'Connections the kernel may queue before the server accepts them (default {default}; the kernel caps it at net.core.somaxconn). ' +
      'Too small a queue drops connections while the server is busy, and clients see resets.',
    parse: integer,
  },
  {
    path: 'server.shutdown_grace_ms',
    env: 'INKWELL_SHUTDOWN_GRACE_MS',
    flag: '--shutdown-grace',
    argument: '<ms>',
    description: 'How long in-flight requests may finish after SIGTERM (default {default}).',
    parse: integer,
  },
  {
    path: 'server.trust_proxy',
    env: 'INKWELL_TRUST_PROXY',
    flag: '--trust-proxy',
    description: 'Trust X-Forwarded-* headers from a reverse proxy (default {default}).',
    parse: boolean,
  },
  {
    path: 'server.cors_origins',
    env: 'INKWELL_CORS_ORIGINS',
    flag: '--cors-origins',
    argument: '<list>',
    description: 'Comma-separated origins allowed by CORS (default {default}: keys belong server-side).',
    parse: list,
  },
  {
    path: 'media.allow_loopback_urls',
    env: 'INKWELL_ALLOW_LOOPBACK_URLS',
    flag: '--allow-loopback-urls',
    description: 'Let image and SVG URL inputs reach 127.0.0.0/8 and ::1, for local use (default {default}; all other private ranges stay blocked).',
    parse: boolean,
  },
  {
    path: 'trace.workers',
    env: 'INKWELL_TRACE_WORKERS',
    flag: '--trace-workers',
    argument: '<n>',
    description: 'Worker processes that decode and trace images (default {default} = one per CPU core).',
    parse: integer,
  },
  {
    path: 'trace.queue',
    env: 'INKWELL_TRACE_QUEUE',
    flag: '--trace-queue',
    argument: '<n>',
    description: 'Tracing jobs that may wait for a worker before new ones get 503 (default {default} = four per worker).',
    parse: integer,
  },
  {
    path: 'trace.timeout_ms',
    env: 'INKWELL_TRACE_TIMEOUT_MS',
    flag: '--trace-timeout-ms',
    argument: '<ms>',
    description: 'Longest a tracing job may run before its worker is killed and the request gets 504 (default {default}).',
    parse: integer,
  },
  {
    path: 'log.level',
    env: 'INKWELL_LOG_LEVEL',
    flag: '--log-level',
    argument: '<level>',
    description: logLevelsHelp(),
    parse: text,
    everyCommand: true,
  },
  {
    path: 'log.format',
    env: 'INKWELL_LOG_FORMAT',
    flag: '--log-format',
    argument: '<format>',
    description: 'auto (default: readable lines when stdout is a terminal, JSON lines otherwise), json or pretty.',
    parse: text,
    everyCommand: true,
  },
  {
    path: 'metrics.port',
    env: 'INKWELL_METRICS_PORT',
    flag: '--metrics-port',
    argument: '<port>',
    description: 'Serve Prometheus metrics at GET /metrics (and liveness at GET /healthz) on this port, never on the API port (default: off; 0 picks a free one).',
    parse: integer,
  },
  {
    path: 'metrics.host',
    env: 'INKWELL_METRICS_HOST',
    flag: '--metrics-host',
    argument: '<host>',
    description: 'Address of the metrics listener (default: the --host address).',
    parse: text,
  },
  {
    path: 'billing.starter_credits',
    env: 'INKWELL_STARTER_CREDITS',
    flag: '--starter-credits',
    argument: '<credits>',
    description: 'Credits granted to the organization created on the first start (default {default}).',
    parse: integer,
  },
  {
    path: 'upstream.base_url',
    env: 'INKWELL_UPSTREAM_BASE_URL',
    flag: '--upstream-base-url',
    argument: '<url>',
    description: 'OpenAI-compatible server of the built-in model entries (default {default}, Ollama).',
    parse: text,
    everyCommand: true,
  },
  {
    path: 'upstream.model',
    env: 'INKWELL_UPSTREAM_MODEL',
    flag: '--upstream-model',
    argument: '<name>',
    description: 'Upstream model name behind the built-in entries (default {default}).',
    parse: text,
    everyCommand: true,
  },
  {
    path: 'upstream.vision',
    env: 'INKWELL_UPSTREAM_VISION',
    flag: '--upstream-vision',
    description: 'The built-in entries\' model takes image input: references are sent to it, and it reviews edits (default {default}).',
    parse: boolean,
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
] satisfies Setting[]).map(withDefault);
