import { existsSync, readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { createAjv } from '../contract/validator.ts';
import { BUILTIN_UPSTREAM_KEY, ConfigSchema, type Config } from './schema.ts';
import { SETTINGS, type Setting } from './settings.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const DEFAULT_FILES = ['inkwell.config.json', 'inkwell.config.yaml', 'inkwell.config.yml'];

export interface ConfigSources {
  /** `--config FILE`; otherwise INKWELL_CONFIG, otherwise inkwell.config.* in the working directory. */
  configFile?: string;
  /** Values from command-line flags, keyed by setting path (`server.port`). */
  flags?: Record<string, string | boolean | undefined>;
  env?: NodeJS.ProcessEnv;
}

function readFile(path: string): Record<string, unknown> {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  try {
    const parsed: unknown = ['.yaml', '.yml'].includes(extname(path)) ? parseYaml(raw) : JSON.parse(raw);
    if (parsed === null || parsed === undefined) return {};
    if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the top level must be an object');
    return parsed as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`Cannot parse config file ${path}: ${(error as Error).message}`);
  }
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

function parseSetting(setting: Setting, raw: string, origin: string): unknown {
  try {
    return setting.parse(raw);
  } catch (error) {
    throw new ConfigError(`Invalid ${origin}: ${(error as Error).message}`);
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

let validateConfig: ValidateFunction | undefined;

/**
 * Reads the configuration once: defaults < file < environment < flags. The result is validated
 * against ConfigSchema and frozen; nothing else in the code base reads process.env.
 */
export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? process.env;
  const explicit = sources.configFile ?? env.INKWELL_CONFIG;
  const file = explicit ?? DEFAULT_FILES.find((name) => existsSync(name));
  const config = file ? readFile(resolve(file)) : {};

  for (const setting of SETTINGS) {
    const raw = env[setting.env];
    if (raw !== undefined && raw !== '') setPath(config, setting.path, parseSetting(setting, raw, setting.env));
  }
  for (const setting of SETTINGS) {
    const raw = sources.flags?.[setting.path];
    if (raw === undefined) continue;
    setPath(config, setting.path, typeof raw === 'boolean' ? raw : parseSetting(setting, raw, setting.flag));
  }

  validateConfig ??= createAjv().compile(ConfigSchema);
  if (!validateConfig(config)) {
    const error = validateConfig.errors?.[0];
    const where = error?.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : 'config';
    const detail = error?.keyword === 'additionalProperties'
      ? `unknown setting "${(error.params as { additionalProperty: string }).additionalProperty}"`
      : error?.message ?? 'invalid';
    throw new ConfigError(`Invalid configuration${file ? ` (${file})` : ''} at ${where}: ${detail}`);
  }
  const validated = config as Omit<Config, 'secrets'>;
  return deepFreeze({ ...validated, secrets: secretsOf(validated, env) });
}

/** The environment variables the catalog's `api_key_env` options name (an entry's and its upstreams'), and the built-in upstream key. */
function secretsOf(config: Omit<Config, 'secrets'>, env: NodeJS.ProcessEnv): Record<string, string> {
  const secrets: Record<string, string> = {};
  const take = (name: unknown) => {
    if (typeof name === 'string' && env[name] !== undefined && env[name] !== '') secrets[name] = env[name]!;
  };
  for (const entry of config.catalog.models) {
    take(entry.options.api_key_env);
    const upstreams = entry.options.upstreams;
    if (Array.isArray(upstreams)) for (const upstream of upstreams) take((upstream as { api_key_env?: unknown } | null)?.api_key_env);
  }
  if (config.upstream.api_key !== undefined) secrets[BUILTIN_UPSTREAM_KEY] = config.upstream.api_key;
  return secrets;
}
