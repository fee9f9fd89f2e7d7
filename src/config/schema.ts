import { Type, type Static } from '@sinclair/typebox';
import { MODALITIES, OPERATIONS, SAMPLING_PARAMETERS, TokenRates } from '../contract/models.ts';
import { StringEnum } from '../contract/schema-helpers.ts';

const Credits = (description: string) => Type.Integer({ minimum: 0, description });

export const CatalogEntry = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 200, description: "The model's id, which requests give as model; an entry with a built-in entry's id replaces it." }),
    engine: Type.String({ minLength: 1, description: 'Engine that serves the model (see the README).' }),
    name: Type.Optional(Type.String({ description: 'Display name shown in GET /v1/models.' })),
    description: Type.Optional(Type.String({ description: 'Description shown in GET /v1/models.' })),
    owned_by: Type.String({ default: 'inkwell', description: 'Owner shown as owned_by in GET /v1/models.' }),
    created: Type.Integer({ minimum: 0, default: 1767225600, description: 'Creation time shown in GET /v1/models, in Unix seconds (default 2026-01-01T00:00:00Z).' }),
    operations: Type.Array(StringEnum(OPERATIONS), {
      minItems: 1,
      uniqueItems: true,
      description: 'Operations the model serves, shown as supported_operations in GET /v1/models; open_responses needs token_usage billing.',
    }),
    billing: Type.Union(
      [
        Type.Object(
          {
            kind: Type.Literal('fixed_credit'),
            credits: Type.Object(
              {
                svg_generate: Type.Optional(Credits('Credits per delivered generation output (n outputs cost n times this); unset, 0.')),
                svg_vectorize: Type.Optional(Credits('Credits per delivered vectorization; unset, 0.')),
                svg_edit: Type.Optional(Credits('Credits per delivered edit; unset, 0.')),
                svg_animate: Type.Optional(Credits('Credits per delivered animation; unset, 0.')),
              },
              { additionalProperties: false },
            ),
          },
          { additionalProperties: false },
        ),
        Type.Object({ kind: Type.Literal('token_usage'), rates: TokenRates }, { additionalProperties: false }),
      ],
      { description: 'How the model is priced: fixed_credit charges credits per delivered output, token_usage the measured tokens at its rates.' },
    ),
    context_length: Type.Optional(Type.Integer({ minimum: 1, description: 'Context window in tokens, shown in GET /v1/models (not enforced).' })),
    max_output_length: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "Most tokens the model writes per answer, shown in GET /v1/models; the output cap when neither the request nor options.max_output_tokens sets one, and the ceiling of a Responses request's max_output_tokens.",
      }),
    ),
    input_modalities: Type.Optional(
      Type.Array(StringEnum(MODALITIES), {
        description: 'Inputs the model takes, shown in GET /v1/models; set without image, requests with references, reference_images or Responses input images get 400 (openai-compatible: must agree with options.vision).',
      }),
    ),
    output_modalities: Type.Optional(Type.Array(StringEnum(MODALITIES), { description: 'What the model outputs, shown in GET /v1/models (not enforced).' })),
    supported_sampling_parameters: Type.Optional(
      Type.Array(StringEnum(SAMPLING_PARAMETERS), {
        description: 'Sampling fields the model honours, shown in GET /v1/models; the openai-compatible engine sends upstream only those listed (unset, none).',
      }),
    ),
    max_references: Type.Integer({
      minimum: 0,
      maximum: 16,
      default: 4,
      description: 'Most generation references this model accepts (4 standard, 16 high-fidelity).',
    }),
    organizations: Type.Optional(
      Type.Array(Type.String(), { description: 'When set, only these organizations see the model.' }),
    ),
    fallbacks: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        uniqueItems: true,
        maxItems: 8,
        description:
          'Other catalog entries tried in order when this one cannot serve (every upstream out, or the answer is 503 model_unavailable) before anything reached the client; only those the key may use for the operation. The entry that served is billed and named in the X-Inkwell-Model header; fallbacks do not chain.',
      }),
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
    limit: Type.Integer({ minimum: 1, description: 'How much the rule allows per window, in what it counts: requests, outputs, tokens or operations.' }),
    window_seconds: Type.Integer({ minimum: 1, maximum: 2_678_400, description: 'Length of the fixed window in seconds (at most 31 days).' }),
  },
  { additionalProperties: false },
);
export type LimitRule = Static<typeof LimitRule>;

const rule = (fallback: LimitRule | null, description: string) =>
  Type.Union([LimitRule, Type.Null()], { default: fallback, description });

export const LimitsSchema = Type.Object(
  {
    redis_prefix: Type.String({ minLength: 1, default: 'inkwell:limits', description: 'Prefix of the rate-limit counter keys in Redis (with redis_url).' }),
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
  {
    additionalProperties: false,
    default: {},
    description: 'Rate limits, counted per organization in fixed windows (test keys in a budget of their own); inkwell limits set overrides them per organization.',
  },
);
export type LimitsConfig = Static<typeof LimitsSchema>;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

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
        backlog: Type.Integer({ minimum: 1, maximum: 1_048_576, default: 4096 }),
        shutdown_grace_ms: Type.Integer({ minimum: 0, default: 10_000 }),
      },
      { additionalProperties: false, default: {}, description: 'The HTTP listener of the API.' },
    ),
    log: Type.Object(
      {
        level: StringEnum(LOG_LEVELS, { default: 'info' }),
        format: StringEnum(LOG_FORMATS, { default: 'auto' }),
      },
      { additionalProperties: false, default: {}, description: 'Logging on stdout: JSON lines, or readable lines on a terminal.' },
    ),
    metrics: Type.Object(
      {
        port: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: 65535,
            description: 'Serve Prometheus metrics at GET /metrics, and liveness at GET /healthz, on this port, apart from the API (0 picks a free one); unset, no metrics are served.',
          }),
        ),
        host: Type.Optional(Type.String({ minLength: 1, description: 'Address of the metrics listener; unset, the API\'s server.host.' })),
      },
      { additionalProperties: false, default: {}, description: 'Prometheus metrics, served on a listener of their own; off unless metrics.port is set.' },
    ),
    billing: Type.Object(
      {
        millicents_per_credit: Type.Integer({
          minimum: 1,
          default: 1000,
          description: 'Millicents one credit is worth, for fixed prices, grants and balances (1 USD = 100 000 millicents: the default makes a credit USD 0.01).',
        }),
        starter_credits: Type.Integer({ minimum: 0, default: 1000 }),
        reservation_lease_ms: Type.Integer({
          minimum: 300,
          default: 30_000,
          description:
            'A process whose heartbeat (renewed every third of this, from a worker thread, so a busy event loop keeps its lease) is this old is presumed dead: other processes settle or release its open reservations. A process never recovers its own.',
        }),
      },
      { additionalProperties: false, default: {}, description: 'Prepaid credits and the ledger, whose amounts are integer millicents.' },
    ),
    limits: LimitsSchema,
    media: Type.Object(
      {
        allow_loopback_urls: Type.Boolean({
          default: false,
          description: 'Let URL inputs reach 127.0.0.0/8 and ::1 (local use only); every other private or reserved range stays blocked.',
        }),
        fetch_connect_timeout_ms: Type.Integer({
          minimum: 100,
          maximum: 60_000,
          default: 5_000,
          description: "Milliseconds a URL input's fetch may take to connect, on each redirect hop; past it the input fails with 400.",
        }),
        fetch_timeout_ms: Type.Integer({
          minimum: 100,
          maximum: 300_000,
          default: 20_000,
          description: "Milliseconds a URL input's whole fetch may take (lookups, redirects and body); past it the input fails with 400.",
        }),
      },
      { additionalProperties: false, default: {}, description: 'Fetching of image and SVG inputs given by URL.' },
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
      { additionalProperties: false, default: {}, description: "The built-in tracer's worker processes (vectorizations)." },
    ),
    sandbox: Type.Object(
      {
        slow_stream_delay_ms: Type.Integer({
          minimum: 0,
          maximum: 60_000,
          default: 400,
          description: 'Milliseconds the sandbox waits before each draft and content event of a request that carries [mock:slow-stream].',
        }),
      },
      { additionalProperties: false, default: {}, description: 'The sandbox engine, behind every test key and entries with engine sandbox.' },
    ),
    data_posture: Type.Object(
      {
        policy: Type.String({
          minLength: 1,
          default: 'no-payload-storage',
          description: "Sent as X-Inkwell-Data-Policy on responses to live project keys: the operator's name for its data policy.",
        }),
        metadata_retention_seconds: Type.Optional(
          Type.Integer({
            minimum: 0,
            description:
              'Accepted and not sent: request metadata (ids, key, model, amounts) is kept until deleted, so no retention header is sent until one is enforced.',
          }),
        ),
        upstream_zero_data_retention: Type.Optional(
          Type.Boolean({
            description:
              "Sent as X-Inkwell-Zero-Data-Retention on responses to live project keys, only when set: the operator's declaration that the upstream model servers retain no data (the service cannot know it).",
          }),
        ),
      },
      { additionalProperties: false, default: {}, description: 'What the data-posture headers on responses to live project keys declare; prompts, inputs and outputs are never stored.' },
    ),
    upstream: Type.Object(
      {
        base_url: Type.String({ minLength: 1, default: 'http://127.0.0.1:11434/v1' }),
        model: Type.String({ minLength: 1, default: 'qwen2.5-coder:7b' }),
        api_key: Type.Optional(Type.String({ minLength: 1 })),
        vision: Type.Boolean({ default: false }),
      },
      { additionalProperties: false, default: {}, description: 'The OpenAI-compatible model server behind the built-in entries.' },
    ),
    catalog: Type.Object(
      {
        include_builtin: Type.Boolean({ default: true, description: 'Include the built-in catalog entries; false leaves only catalog.models.' }),
        models: Type.Array(CatalogEntry, { default: [], description: "The configured catalog entries; one with a built-in entry's id replaces it." }),
      },
      { additionalProperties: false, default: {}, description: 'The model catalog: the built-in entries and those configured here.' },
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
