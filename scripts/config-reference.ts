// Writes docs/configuration.md from the code that defines the configuration: the settings table
// (src/config/settings.ts: flags, environment variables, help text), the config file's schema
// (src/config/schema.ts: keys, types, defaults, descriptions), the engine registry and each
// engine's options schema. Run with `node --import tsx scripts/config-reference.ts`;
// test/docs/config-reference.test.ts fails when the committed file differs from what this writes.
//
// Fields whose schema has no `description` (and no setting to borrow help text from) are listed
// on stderr, so they can be given one where they are defined.

import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { CatalogEntry, ConfigSchema, LimitRule, type Config } from '../src/config/schema.ts';
import { SETTINGS } from '../src/config/settings.ts';
import { TokenRates } from '../src/contract/models.ts';
import { ImageTraceOptions } from '../src/engines/image-trace/options.ts';
import { OpenAiCompatibleOptions } from '../src/engines/openai-compatible/options.ts';
import { builtinCatalogEntries, ENGINE_NAMES } from '../src/engines/registry.ts';

export const DOC_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'configuration.md');
export const FIX_COMMAND = 'npm run docs:config';

/**
 * The options schema of each engine the registry knows; null for engines that read no options.
 * Listed here because the registry does not expose it: an engine missing from this map fails the
 * generation (and so the drift test) instead of being left out of the reference silently.
 */
const ENGINE_OPTIONS: Record<string, TSchema | null> = {
  'openai-compatible': OpenAiCompatibleOptions,
  sandbox: null,
  trace: null,
  'image-trace': ImageTraceOptions,
  motion: null,
};

interface SharedShape {
  schema: TSchema;
  /** How a use names it, linking to its section. */
  name: string;
  title: string;
  anchor: string;
  /** Key prefix of its fields in the list of undocumented ones. */
  where: string;
  intro?: string;
}

/** Shapes documented once in a section of their own and linked from each use (lists, repeated rules). */
const SHARED_SHAPES: Record<'catalogEntry' | 'rule' | 'tokenRates', SharedShape> = {
  catalogEntry: {
    schema: CatalogEntry,
    name: 'catalog entry',
    title: 'Catalog entries',
    anchor: 'catalog-entries',
    where: 'catalog.models[].',
    intro: "Each element of `catalog.models` is a model of the catalog; an entry whose `id` is a built-in model's replaces it.",
  },
  rule: {
    schema: LimitRule,
    name: 'rule',
    title: 'Rate-limit rules',
    anchor: 'rate-limit-rules',
    where: 'LimitRule.',
    intro: 'A rule allows `limit` per fixed window of `window_seconds`; `null` in its place switches the rule off.',
  },
  tokenRates: { schema: TokenRates, name: 'token rates', title: 'Token rates', anchor: 'token-rates', where: 'TokenRates.' },
};

type Json = Record<string, any>;

interface Row {
  key: string;
  type: string;
  default: string;
  env: string;
  description: string;
}

const envByPath = new Map(SETTINGS.map((setting) => [setting.path, setting]));
const undocumented: string[] = [];

const sameShape = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const sharedShape = (schema: Json) => Object.values(SHARED_SHAPES).find((shape) => sameShape(stripAnnotations(schema), stripAnnotations(shape.schema)));

/** A schema without the annotations a use adds (default, description), to compare shapes. */
function stripAnnotations(schema: Json): Json {
  const { default: _default, description: _description, ...rest } = schema;
  return rest;
}

const code = (text: string) => `\`${text}\``;
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

function shownValue(value: unknown): string {
  if (value === undefined) return '—';
  if (typeof value === 'string') return value === '' ? '""' : code(value);
  return code(JSON.stringify(value));
}

function range(schema: Json): string {
  const min = schema.minimum;
  const max = schema.maximum;
  if (schema.exclusiveMinimum !== undefined) return ` > ${schema.exclusiveMinimum}${max === undefined ? '' : `, ≤ ${max}`}`;
  if (min !== undefined && max !== undefined) return ` ${min}–${max}`;
  if (min !== undefined) return ` ≥ ${min}`;
  if (max !== undefined) return ` ≤ ${max}`;
  return '';
}

const isObject = (schema: Json) => schema.type === 'object' && schema.properties !== undefined;

/** The property every member of a union of objects fixes with a `const` (e.g. billing's `kind`). */
function discriminator(members: Json[]): string | undefined {
  const first = members[0];
  if (!first || !members.every(isObject)) return undefined;
  return Object.keys(first.properties).find((key) => members.every((m) => m.properties[key]?.const !== undefined));
}

function typeOf(schema: Json): string {
  const shape = sharedShape(schema);
  if (shape) return `[${shape.name}](#${shape.anchor})`;
  if (schema.const !== undefined) return code(String(schema.const));
  if (schema.enum) return schema.enum.map((value: string) => code(value)).join(' | ');
  if (schema.anyOf) {
    const members = schema.anyOf as Json[];
    const key = discriminator(members);
    if (key) return `object, by ${code(key)}: ${members.map((m) => code(String(m.properties[key].const))).join(' or ')}`;
    return members.map(typeOf).join(' or ');
  }
  switch (schema.type) {
    case 'integer':
      return `integer${range(schema)}`;
    case 'number':
      return `number${range(schema)}`;
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const items = schema.items as Json;
      if (isObject(items) && !sharedShape(items)) return 'list of objects';
      if (sharedShape(items)) return `list of ${typeOf(items)}`;
      return `list of ${typeOf(items)}${schema.uniqueItems ? ' (no repeats)' : ''}`;
    }
    case 'object':
      return isObject(schema) ? 'object' : 'object (any keys)';
    default:
      return 'any';
  }
}

function shownDefault(schema: Json, required: boolean): string {
  if (schema.default !== undefined) {
    // An object section defaults to {} so that its fields' own defaults apply: nothing to show.
    if (isObject(schema) && sameShape(schema.default, {})) return '—';
    return shownValue(schema.default);
  }
  return required ? '*required*' : '—';
}

/**
 * Rows of an object schema's fields, depth first. Nested objects are flattened into dotted keys;
 * a union of objects adds each member's fields under the value that selects it; lists of objects
 * and shared shapes are only named here (documented in sections of their own).
 */
function rowsOf(schema: Json, prefix: string, where = '', rows: Row[] = [], note = ''): Row[] {
  const required = new Set<string>(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties as Record<string, Json>)) {
    const key = `${prefix}${name}`;
    const setting = envByPath.get(key);
    const description = property.description ?? setting?.description ?? '';
    const container = isObject(property) && !sharedShape(property);
    if (!container) {
      if (description === '') undocumented.push(`${where}${key}`);
      rows.push({
        key,
        type: typeOf(property),
        default: shownDefault(property, required.has(name)),
        env: setting ? `${code(setting.env)}<br>${code(setting.flag)}` : '',
        description: note && description === '' ? `${note.replace(/: $/, '.')}` : `${note}${description}`,
      });
    } else if (property.description) {
      rows.push({ key, type: 'object', default: '—', env: '', description: `${note}${property.description}` });
    }
    if (container) rowsOf(property, `${key}.`, where, rows, note);
    // An engine option that lists objects (an entry's upstreams) has no section of its own: its fields follow it.
    const items = property.type === 'array' ? (property.items as Json) : undefined;
    if (items && isObject(items) && !sharedShape(items) && prefix.startsWith('options.')) rowsOf(items, `${key}[].`, where, rows, note);
    const members = (property.anyOf ?? []) as Json[];
    const selector = discriminator(members);
    if (selector) {
      for (const member of members) {
        const { [selector]: _selector, ...fields } = member.properties;
        const memberRequired = (member.required ?? []).filter((field: string) => field !== selector);
        rowsOf({ ...member, properties: fields, required: memberRequired }, `${key}.`, where, rows, `With ${code(`${selector}: ${member.properties[selector].const}`)}: `);
      }
    }
  }
  return rows;
}

function table(rows: Row[], withEnv: boolean): string {
  const head = withEnv
    ? ['| key | type | default | environment / flag | description |', '|---|---|---|---|---|']
    : ['| key | type | default | description |', '|---|---|---|---|'];
  const body = rows.map((row) =>
    withEnv
      ? `| ${code(row.key)} | ${cell(row.type)} | ${cell(row.default)} | ${row.env} | ${cell(row.description)} |`
      : `| ${code(row.key)} | ${cell(row.type)} | ${cell(row.default)} | ${cell(row.description)} |`,
  );
  return [...head, ...body].join('\n');
}

/** The config schema's node at a dotted path. */
function schemaAt(path: string): Json {
  let node: Json = ConfigSchema;
  for (const key of path.split('.')) node = node.properties[key];
  return node;
}

function settingsSection(): string {
  const rows = SETTINGS.map((setting) => {
    const schema = schemaAt(setting.path);
    return `| ${code(`${setting.flag}${setting.argument ? ` ${setting.argument}` : ''}`)} | ${code(setting.env)} | ${code(setting.path)} | ${cell(shownDefault(schema, false))} | ${setting.everyCommand ? 'every command' : '`serve`'} | ${cell(setting.description)} |`;
  });
  return [
    '## Settings',
    '',
    'Each of these can be given as a command-line flag, an environment variable or a key in the config',
    'file; `inkwell serve --help` prints the same list.',
    '',
    '| flag | environment | config key | default | accepted by | description |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The config file's fields, one section per top-level object; top-level scalars first. */
function configFileSections(): string {
  const properties = ConfigSchema.properties as Record<string, Json>;
  const scalars = Object.keys(properties).filter((name) => !isObject(properties[name]!));
  const sections = Object.keys(properties).filter((name) => isObject(properties[name]!));
  const out = ['## Config file', ''];
  out.push('### Top level', '', table(rowsOf({ ...ConfigSchema, properties: Object.fromEntries(scalars.map((n) => [n, properties[n]])) }, ''), true));
  for (const name of sections) {
    const section = properties[name]!;
    out.push('', `### \`${name}\``, '');
    if (section.description) out.push(section.description, '');
    out.push(table(rowsOf(section, `${name}.`), true));
  }
  return out.join('\n');
}


function engineSection(): string {
  const missing = ENGINE_NAMES.filter((name) => !(name in ENGINE_OPTIONS));
  const stale = Object.keys(ENGINE_OPTIONS).filter((name) => !ENGINE_NAMES.includes(name));
  if (missing.length > 0 || stale.length > 0) {
    throw new Error(
      `ENGINE_OPTIONS in scripts/config-reference.ts does not match the engine registry: ${[...missing.map((n) => `missing ${n}`), ...stale.map((n) => `unknown ${n}`)].join(', ')}`,
    );
  }
  const out = ['## Engine options (`options` of a catalog entry)', '', `Engines: ${ENGINE_NAMES.map(code).join(', ')}.`];
  for (const name of ENGINE_NAMES) {
    const schema = ENGINE_OPTIONS[name];
    out.push('', `### \`${name}\``, '');
    out.push(schema ? table(rowsOf(schema, 'options.', `${name} `), false) : 'Reads no options.');
  }
  return out.join('\n');
}

function sharedShapeSection(shape: SharedShape): string {
  const schema = shape.schema as Json;
  const intro = [shape.intro, schema.description].filter(Boolean).join(' ');
  return [`## ${shape.title}`, '', ...(intro ? [intro, ''] : []), table(rowsOf(schema, '', shape.where), false)].join('\n');
}

/** The built-in catalog entries under the default settings (upstream.* changes their options). */
function builtinSection(): string {
  const defaults = { ...(Value.Default(ConfigSchema, {}) as Omit<Config, 'secrets'>), secrets: {} } as Config;
  const billing = (entry: CatalogEntry) =>
    entry.billing.kind === 'fixed_credit'
      ? `credits per output: ${Object.entries(entry.billing.credits).map(([op, credits]) => `${op} ${credits}`).join(', ')}`
      : `millicents per million tokens: ${Object.entries(entry.billing.rates).map(([kind, rate]) => `${kind} ${rate}`).join(', ')}`;
  const rows = builtinCatalogEntries(defaults).map(
    (entry) => `| ${code(entry.id)} | ${code(entry.engine)} | ${entry.operations.map(code).join(', ')} | ${cell(billing(entry))} | ${cell(entry.description ?? '')} |`,
  );
  return [
    '## Built-in catalog entries',
    '',
    'Present while `catalog.include_builtin` is true; the `openai-compatible` ones take their options from `upstream.*`.',
    '',
    '| id | engine | operations | billing | description |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The whole reference, and the fields that have no description to show. */
export function configReference(): { text: string; undocumented: string[] } {
  undocumented.length = 0;
  const text = [
    '# Configuration reference',
    '',
    `<!-- Generated from src/config/settings.ts, src/config/schema.ts and the engines' options schemas by \`${FIX_COMMAND}\`; do not edit by hand. -->`,
    '',
    'Settings come from defaults < config file < environment < flags. The config file (JSON or YAML, snake_case',
    'keys) is `--config FILE`, else `INKWELL_CONFIG`, else `inkwell.config.json`, `.yaml` or `.yml` in the working',
    'directory. Switches given in the environment take `true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`); lists',
    'are comma-separated. Unknown keys in the config file are an error.',
    '',
    settingsSection(),
    '',
    configFileSections(),
    '',
    sharedShapeSection(SHARED_SHAPES.catalogEntry),
    '',
    engineSection(),
    '',
    builtinSection(),
    '',
    sharedShapeSection(SHARED_SHAPES.rule),
    '',
    sharedShapeSection(SHARED_SHAPES.tokenRates),
    '',
  ].join('\n');
  return { text, undocumented: [...new Set(undocumented)] };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { text, undocumented: missing } = configReference();
  writeFileSync(DOC_PATH, text);
  process.stdout.write(`wrote ${DOC_PATH}\n`);
  if (missing.length > 0) process.stderr.write(`fields without a description (${missing.length}): ${missing.join(', ')}\n`);
}
