import { Type, type Static } from '@sinclair/typebox';
import { MODALITIES, OPERATIONS, SAMPLING_PARAMETERS, TokenRates } from '../contract/models.ts';
import { StringEnum } from '../contract/schema-helpers.ts';

const Credits = Type.Integer({ minimum: 0 });

export const CatalogEntry = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 200 }),
    engine: Type.String({ minLength: 1, description: 'Engine that serves the model (see the README).' }),
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    owned_by: Type.String({ default: 'inkwell' }),
    created: Type.Integer({ minimum: 0, default: 1767225600 }),
    operations: Type.Array(StringEnum(OPERATIONS), { minItems: 1, uniqueItems: true }),
    billing: Type.Union([
      Type.Object(
        {
          kind: Type.Literal('fixed_credit'),
          credits: Type.Object(
            {
              svg_generate: Type.Optional(Credits),
              svg_vectorize: Type.Optional(Credits),
              svg_edit: Type.Optional(Credits),
              svg_animate: Type.Optional(Credits),
            },
            { additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      ),
      Type.Object({ kind: Type.Literal('token_usage'), rates: TokenRates }, { additionalProperties: false }),
    ]),
    context_length: Type.Optional(Type.Integer({ minimum: 1 })),
    max_output_length: Type.Optional(Type.Integer({ minimum: 1 })),
    input_modalities: Type.Optional(Type.Array(StringEnum(MODALITIES))),
    output_modalities: Type.Optional(Type.Array(StringEnum(MODALITIES))),
    supported_sampling_parameters: Type.Optional(Type.Array(StringEnum(SAMPLING_PARAMETERS))),
    max_references: Type.Integer({
      minimum: 0,
      maximum: 16,
      default: 4,
      description: 'Most generation references this model accepts (4 standard, 16 high-fidelity).',
    }),
    organizations: Type.Optional(
      Type.Array(Type.String(), { description: 'When set, only these organizations see the model.' }),
    ),
    options: Type.Record(Type.String(), Type.Unknown(), {
      default: {},
      description: "Engine settings, e.g. an upstream's base_url and model.",
    }),
  },
  { additionalProperties: false },
);
export type CatalogEntry = Static<typeof CatalogEntry>;

/** A capacity per fixed window; null switches the rule off. */
export const LimitRule = Type.Object(
  {
    limit: Type.Integer({ minimum: 1 }),
    window_seconds: Type.Integer({ minimum: 1, maximum: 2_678_400 }),
  },
  { additionalProperties: false },
);
export type LimitRule = Static<typeof LimitRule>;

const rule = (fallback: LimitRule | null, description: string) =>
  Type.Union([LimitRule, Type.Null()], { default: fallback, description });

export const LimitsSchema = Type.Object(
  {
    redis_prefix: Type.String({ minLength: 1, default: 'inkwell:limits' }),
    requests: Type.Object(
      {
        svg: rule({ limit: 20, window_seconds: 60 }, 'Requests to generations and vectorizations together (the spec: 20 per 60 s).'),
        edits: rule({ limit: 20, window_seconds: 60 }, 'Requests to edits.'),
        animations: rule({ limit: 20, window_seconds: 60 }, 'Requests to animations.'),
        responses: rule({ limit: 60, window_seconds: 60 }, 'Requests to /v1/responses.'),
        catalog: rule({ limit: 600, window_seconds: 60 }, 'Requests to /v1/models and /v1/models/{model}.'),
      },
      { additionalProperties: false, default: {} },
    ),
    outputs: rule({ limit: 120, window_seconds: 60 }, 'SVG outputs produced (n of a generation, 1 otherwise): operation throughput.'),
    input_tokens: rule(null, 'Input tokens of token-priced models, counted from the request bound and corrected by measured usage.'),
    output_tokens: rule(null, 'Output tokens of token-priced models, counted from max_output_tokens and corrected by measured usage.'),
    weekly_requests: rule(null, 'Billable operations per week.'),
  },
  { additionalProperties: false, default: {} },
);
export type LimitsConfig = Static<typeof LimitsSchema>;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The configuration file's shape (JSON or YAML, snake_case keys). Defaults fill what is left out;
 * this is the only place they are written (`serve --help` reads them from here).
 */
export const ConfigSchema = Type.Object(
  {
    data_dir: Type.String({ minLength: 1, default: './data' }),
    database_url: Type.Optional(Type.String({ minLength: 1 })),
    redis_url: Type.Optional(Type.String({ minLength: 1 })),
    server: Type.Object(
      {
        host: Type.String({ minLength: 1, default: '127.0.0.1' }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
        trust_proxy: Type.Boolean({ default: false }),
        cors_origins: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
        body_bytes_in_flight: Type.Integer({ minimum: 1_048_576, default: 536_870_912 }),
        request_timeout_ms: Type.Integer({ minimum: 0, default: 300_000 }),
        keep_alive_timeout_ms: Type.Integer({ minimum: 0, default: 72_000 }),
        shutdown_grace_ms: Type.Integer({ minimum: 0, default: 10_000 }),
      },
      { additionalProperties: false, default: {} },
    ),
    log: Type.Object({ level: StringEnum(LOG_LEVELS, { default: 'info' }) }, { additionalProperties: false, default: {} }),
    metrics: Type.Object(
      {
        port: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: 65535,
            description: 'Serve Prometheus metrics at GET /metrics on this port, apart from the API (0 picks a free one); unset, no metrics are served.',
          }),
        ),
        host: Type.Optional(Type.String({ minLength: 1, description: 'Address of the metrics listener; unset, the API\'s server.host.' })),
      },
      { additionalProperties: false, default: {} },
    ),
    billing: Type.Object(
      {
        millicents_per_credit: Type.Integer({ minimum: 1, default: 1000 }),
        starter_credits: Type.Integer({ minimum: 0, default: 1000 }),
        reservation_lease_ms: Type.Integer({
          minimum: 300,
          default: 30_000,
          description: 'A process silent this long is presumed dead; its open reservations are settled or released.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    limits: LimitsSchema,
    media: Type.Object(
      {
        allow_loopback_urls: Type.Boolean({
          default: false,
          description: 'Let URL inputs reach 127.0.0.0/8 and ::1 (local use only); every other private or reserved range stays blocked.',
        }),
        fetch_connect_timeout_ms: Type.Integer({ minimum: 100, maximum: 60_000, default: 5_000 }),
        fetch_timeout_ms: Type.Integer({ minimum: 100, maximum: 300_000, default: 20_000 }),
      },
      { additionalProperties: false, default: {} },
    ),
    trace: Type.Object(
      {
        workers: Type.Integer({ minimum: 0, maximum: 256, default: 0, description: 'Tracer worker processes; 0 = one per CPU core.' }),
        queue: Type.Integer({ minimum: 0, maximum: 10_000, default: 0, description: 'Jobs waiting for a worker; 0 = four per worker.' }),
        timeout_ms: Type.Integer({
          minimum: 1_000,
          maximum: 3_600_000,
          default: 60_000,
          description: 'Longest a job may run; beyond it its worker is killed and the request gets 504.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    sandbox: Type.Object(
      { slow_stream_delay_ms: Type.Integer({ minimum: 0, maximum: 60_000, default: 400 }) },
      { additionalProperties: false, default: {} },
    ),
    data_posture: Type.Object(
      {
        policy: Type.String({ minLength: 1, default: 'no-payload-storage' }),
        metadata_retention_seconds: Type.Integer({ minimum: 0, default: 31_536_000 }),
        upstream_zero_data_retention: Type.Boolean({ default: true }),
      },
      { additionalProperties: false, default: {} },
    ),
    upstream: Type.Object(
      {
        base_url: Type.String({ minLength: 1, default: 'http://127.0.0.1:11434/v1' }),
        model: Type.String({ minLength: 1, default: 'qwen2.5-coder:7b' }),
        api_key: Type.Optional(Type.String({ minLength: 1 })),
        vision: Type.Boolean({ default: false }),
      },
      { additionalProperties: false, default: {} },
    ),
    catalog: Type.Object(
      {
        include_builtin: Type.Boolean({ default: true }),
        models: Type.Array(CatalogEntry, { default: [] }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false },
);
/**
 * The validated settings, plus the secrets the catalog names: `secrets[NAME]` is the value of
 * the environment variable an entry's `options.api_key_env` names (read by loadConfig, since
 * nothing else reads the environment), and INKWELL_UPSTREAM_API_KEY is the built-in entries' key.
 */
export type Config = Static<typeof ConfigSchema> & { readonly secrets: Readonly<Record<string, string>> };

/** The name under which the built-in entries' upstream key is kept in `secrets`. */
export const BUILTIN_UPSTREAM_KEY = 'INKWELL_UPSTREAM_API_KEY';
