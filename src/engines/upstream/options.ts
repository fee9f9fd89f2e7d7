import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ConfigError } from '../../config/load.ts';
import type { CatalogEntry } from '../../config/schema.ts';
import { compileValidator } from '../../contract/validator.ts';

/**
 * The options every engine that calls model servers shares: where the servers are, their keys,
 * their health, attempts and concurrency. Each engine's own schema spreads `ServerOptionFields`.
 */
const BaseUrl = (description: string) => Type.String({ pattern: '^https?://[^\\s]+$', description });
const ModelName = (description: string) => Type.String({ minLength: 1, description });
const ApiKeyEnv = Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'Name of the environment variable holding the bearer key (keys stay out of config files).' });

/** One server of an entry with several (`upstreams`). */
const UpstreamSpec = Type.Object(
  {
    name: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$', description: 'How logs, metrics and the CLI name it (default: the base URL\'s host and port).' }),
    ),
    base_url: BaseUrl('This server\'s OpenAI-compatible base URL.'),
    model: Type.Optional(ModelName('The model name this server knows (default: the entry\'s options.model).')),
    api_key_env: Type.Optional(ApiKeyEnv),
    weight: Type.Number({ exclusiveMinimum: 0, maximum: 1000, default: 1, description: 'Its share of the traffic: calls in flight are compared per unit of weight.' }),
    max_concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Calls at once to this server (default: the entry\'s max_concurrency).' })),
  },
  { additionalProperties: false },
);

/** Passive health: when an upstream is taken out, and how it comes back. */
const HealthOptions = Type.Object(
  {
    failure_threshold: Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 3,
      description: 'Failures in a row (connect error or timeout, no first token in time, 5xx, an error frame, a cut or malformed answer) that take an upstream out.',
    }),
    ejection_ms: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 10_000, description: 'How long an upstream is out the first time; each time it fails again on return, twice as long.' }),
    max_ejection_ms: Type.Integer({ minimum: 100, maximum: 86_400_000, default: 300_000, description: 'The longest it is out at a time.' }),
    check_interval_ms: Type.Optional(
      Type.Integer({ minimum: 1000, maximum: 3_600_000, description: 'While an upstream is out, ask GET {base_url}/models this often; an answer lets it take a trial call at once (default: no checks, it waits out its time).' }),
    ),
    eject_sole_upstream: Type.Boolean({
      default: false,
      description: 'Take out the only upstream of an entry without fallbacks too (its callers then get 503 at once, without a call, until it is back). Off by default: with nothing to route to, every call tries it.',
    }),
  },
  { additionalProperties: false, default: {} },
);

/** The fields of `options` that say which servers an entry calls and how: spread into each engine's schema. */
export const ServerOptionFields = {
  base_url: Type.Optional(BaseUrl('The server\'s OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1. Required, unless upstreams lists the servers instead.')),
  model: Type.Optional(ModelName('The model name the server knows (with upstreams: the name for each that gives none). Required, unless every upstream names its own.')),
  api_key_env: Type.Optional(ApiKeyEnv),
  upstreams: Type.Optional(
    Type.Array(UpstreamSpec, {
      minItems: 1,
      maxItems: 64,
      description: 'Several servers behind this model, instead of base_url: each call goes to the healthy one with the fewest calls in flight for its weight, and fails over to another (docs/models.md, Several servers).',
    }),
  ),
  health: HealthOptions,
  max_attempts: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 10,
      description: 'Upstream attempts of one call, failovers and the retry included; only while nothing of it reached the client (default 2 with one upstream, 3 with several).',
    }),
  ),
  connect_timeout_ms: Type.Integer({
    minimum: 100,
    maximum: 600_000,
    default: 5000,
    description: 'Milliseconds to open a connection to the server; past it the call moves to another upstream if there is one, else 503 model_unavailable (a refused connect is retried once first).',
  }),
  max_concurrency: Type.Integer({ minimum: 1, maximum: 100_000, default: 4, description: 'Upstream calls at once for this entry (with upstreams: for each that sets none); more wait in turn.' }),
};

const ServerOptions = Type.Object(ServerOptionFields);
/** What routing reads of an entry's options, whatever its engine. */
export type ServerOptions = Static<typeof ServerOptions>;

/**
 * An entry's `options`, validated against its engine's schema with the defaults filled in, or a
 * ConfigError naming the entry and the field: a mistake fails the start, never a request.
 */
export function entryOptionsParser<T>(schema: TSchema): (entry: CatalogEntry) => T {
  let validate: ((value: unknown) => T) | undefined;
  return (entry) => {
    validate ??= compileValidator<T>(schema);
    const copy = structuredClone(entry.options) as Record<string, unknown>;
    try {
      return validate(copy);
    } catch (error) {
      const { message, param } = error as { message: string; param?: string };
      const field = param ? `options.${param}` : 'options';
      throw new ConfigError(`Model ${entry.id}: ${field} is invalid (${message.replace(/^Invalid (value|type) for '[^']*': /, '').replace(/^Unrecognized request argument supplied: /, 'unknown field ')})`);
    }
  };
}

/** One server of an entry, as calls reach it: the single-server form and `upstreams` read alike. */
export interface UpstreamTarget {
  /** How logs, metrics and the CLI name it: unique within the entry. */
  name: string;
  baseUrl: string;
  model: string;
  apiKeyEnv?: string;
  /** Where the config names it, for a start that fails on it: `options.api_key_env` or `options.upstreams[i].api_key_env`. */
  apiKeyField: string;
  weight: number;
  maxConcurrency: number;
}

/**
 * The entry's servers: `base_url` (one) or `upstreams` (several), never both; each with a model
 * name (its own or the entry's) and a name of its own (default: the base URL's host and port).
 */
export function upstreamTargets(entry: CatalogEntry, options: ServerOptions): UpstreamTarget[] {
  const fail = (detail: string) => new ConfigError(`Model ${entry.id}: ${detail}`);
  if (options.base_url !== undefined && options.upstreams !== undefined) throw fail('give options.base_url or options.upstreams, not both.');
  if (options.base_url === undefined && options.upstreams === undefined) throw fail('options.base_url is required (or options.upstreams, for several servers).');
  const specs = options.upstreams ?? [{ base_url: options.base_url!, api_key_env: options.api_key_env, weight: 1, max_concurrency: options.max_concurrency }];
  const targets = specs.map((spec, index): UpstreamTarget => {
    const model = spec.model ?? options.model;
    const where = options.upstreams ? `options.upstreams[${index}].model` : 'options.model';
    if (model === undefined) throw fail(`${where} is required: the model name the server knows.`);
    const apiKeyEnv = spec.api_key_env ?? options.api_key_env;
    const apiKeyField = options.upstreams && spec.api_key_env !== undefined ? `options.upstreams[${index}].api_key_env` : 'options.api_key_env';
    return {
      apiKeyField,
      name: spec.name ?? new URL(spec.base_url).host,
      baseUrl: spec.base_url,
      model,
      ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }),
      weight: spec.weight,
      maxConcurrency: spec.max_concurrency ?? options.max_concurrency,
    };
  });
  const seen = new Set<string>();
  targets.forEach((target, index) => {
    if (seen.has(target.name)) throw fail(`options.upstreams[${index}] is named '${target.name}' like an earlier one; give each a distinct name.`);
    seen.add(target.name);
  });
  return targets;
}

/** Attempts of one call when the entry does not say: one retry with one server, two failovers with several. */
export function maxAttemptsOf(options: ServerOptions, upstreams: number): number {
  return options.max_attempts ?? (upstreams > 1 ? 3 : 2);
}
