import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsModule, { type FormatsPlugin } from 'ajv-formats';
import { ApiError, PARAM_MAX_LENGTH } from './errors.ts';

// ajv-formats is CommonJS with an `exports.default`; under ESM that default sits one level down.
const addFormats = (formatsModule as unknown as { default: FormatsPlugin }).default;

type Schema = Record<string, unknown>;

/**
 * The one Ajv configuration for request bodies and config files: no type coercion, no silent
 * removal of unknown fields, defaults filled in, finite numbers only, first error per branch.
 */
export function createAjv() {
  const ajv = new Ajv({
    allErrors: false,
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: true,
    strictNumbers: true,
    discriminator: true,
    verbose: true,
    strict: true,
    allowUnionTypes: true,
  });
  addFormats(ajv, ['uri', 'date-time']);
  ajv.addKeyword({ keyword: 'x-inkwell-too-large', schemaType: 'boolean' });
  ajv.addKeyword({ keyword: 'x-inkwell-expected', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-inkwell-field-messages', schemaType: 'object' });
  ajv.addKeyword({
    keyword: 'x-inkwell-exactly-one',
    type: 'object',
    schemaType: 'array',
    errors: true,
    validate: function exactlyOne(fields: string[], data: Record<string, unknown>) {
      const present = fields.filter((field) => data[field] !== undefined && data[field] !== null);
      return present.length === 1;
    },
  });
  ajv.addKeyword({
    keyword: 'x-inkwell-max-depth',
    schemaType: 'number',
    errors: true,
    validate: (maxDepth: number, data: unknown) => nestingWithin(data, maxDepth),
  });
  return ajv;
}

/**
 * Whether `value` nests at most `maxDepth` levels of objects and arrays (itself being level 1).
 * An explicit stack, not recursion: the value may be nested far deeper than the call stack.
 */
export function nestingWithin(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (maxDepth < 1) return false;
  const pending: object[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const depth = depths.pop()!;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child !== 'object' || child === null) continue;
      if (depth === maxDepth) return false;
      pending.push(child);
      depths.push(depth + 1);
    }
  }
  return true;
}

export type Validator<T> = (value: unknown) => T;

/** Compiles a schema into a function that returns the value or throws the client-facing ApiError. */
export function compileValidator<T>(schema: unknown, ajv = createAjv(), messages: ValidationMessages = {}): Validator<T> {
  const validate = ajv.compile(schema as Schema) as ValidateFunction<T>;
  return (value: unknown) => {
    if (validate(value)) return value;
    throw validationError(validate.errors ?? [], messages);
  };
}

/** `references[2].url` from the JSON pointer `/references/2/url`. */
export function pointerToParam(pointer: string): string {
  let param = '';
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    param += /^\d+$/.test(segment) ? `[${segment}]` : param === '' ? segment : `.${segment}`;
  }
  return param;
}

function depthOf(pointer: string): number {
  return pointer === '' ? 0 : pointer.split('/').length - 1;
}

/** The field an error is about: for required/additionalProperties, the named property. */
function fieldPointer(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const child = (params.missingProperty ?? params.additionalProperty) as string | undefined;
  if (child === undefined) return error.instancePath;
  return `${error.instancePath}/${child.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

const UNION_KEYWORDS = new Set(['anyOf', 'oneOf']);
const MISMATCH_KEYWORDS = new Set(['type', 'const', 'discriminator']);

/** Which union branch an error came from: the schema path up to its last anyOf/oneOf index. */
function branchOf(error: ErrorObject): string {
  const match = /^(.*\/(?:anyOf|oneOf)\/\d+)/.exec(error.schemaPath);
  return match ? match[1]! : '';
}

/**
 * Picks the one error a client should see. Union branches that fail on type are the wrong
 * branch, so the deepest error from a branch that fits the shape wins; when several branches
 * fit equally, the union itself is reported.
 */
export function pickError(errors: ErrorObject[]): ErrorObject | undefined {
  const leaves = errors.filter((e) => !UNION_KEYWORDS.has(e.keyword));
  if (leaves.length === 0) return errors[0];
  const maxDepth = Math.max(...leaves.map((e) => depthOf(e.instancePath)));
  let candidates = leaves.filter((e) => depthOf(e.instancePath) === maxDepth);
  const fitting = candidates.filter((e) => !MISMATCH_KEYWORDS.has(e.keyword));
  if (fitting.length > 0) candidates = fitting;
  const first = candidates[0]!;
  if (candidates.every((e) => branchOf(e) === branchOf(first))) {
    if (fitting.length > 0 || candidates.length === 1) return first;
  }
  const union = errors.find(
    (e) => UNION_KEYWORDS.has(e.keyword) && first.instancePath.startsWith(e.instancePath) &&
      depthOf(e.instancePath) === maxDepth,
  );
  return union ?? errors.find((e) => UNION_KEYWORDS.has(e.keyword)) ?? first;
}

function describe(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return 'a valid value';
  const s = schema as Schema;
  if (typeof s['x-inkwell-expected'] === 'string') return s['x-inkwell-expected'];
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const variants = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(variants)) return [...new Set(variants.map(describe))].join(' or ');
  if (s.type === 'null') return 'null';
  if (typeof s.type === 'string') return /^[aeiou]/.test(s.type) ? `an ${s.type}` : `a ${s.type}`;
  return 'a valid value';
}

function bounds(schema: Schema): string {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema as Record<string, number | undefined>;
  if (minimum !== undefined && maximum !== undefined) return `must be between ${minimum} and ${maximum}`;
  if (exclusiveMinimum !== undefined) return `must be greater than ${exclusiveMinimum}`;
  if (exclusiveMaximum !== undefined) return `must be less than ${exclusiveMaximum}`;
  if (minimum !== undefined) return `must be at least ${minimum}`;
  return `must be at most ${maximum}`;
}

function quoted(param: string): string {
  return param.length > 80 ? `'${param.slice(0, 77)}...'` : `'${param}'`;
}

/** Messages a schema may set instead of the generic ones. */
export interface ValidationMessages {
  /** Messages for unknown top-level fields that deserve an explanation (e.g. unsupported options). */
  unknownFields?: Record<string, string>;
}

/** Turns Ajv's errors into the spec's envelope: a message and `param` from the body root. */
export function validationError(errors: ErrorObject[], messages: ValidationMessages = {}): ApiError {
  const error = pickError(errors);
  if (!error) return new ApiError('invalid_request');
  const pointer = fieldPointer(error);
  const param = pointerToParam(pointer);
  const name = quoted(param);
  const parent = (error.parentSchema ?? {}) as Schema;
  const options = { param: param.length <= PARAM_MAX_LENGTH && param !== '' ? param : undefined };
  const invalid = (message: string) => new ApiError('invalid_request', { ...options, message });

  if (param === '' && error.keyword !== 'x-inkwell-exactly-one') {
    return invalid('Request body must be a JSON object.');
  }
  const explained = typeof parent['x-inkwell-expected'] === 'string';
  switch (error.keyword) {
    case 'required':
      return invalid(`Missing required parameter: ${name}.`);
    case 'additionalProperties':
      if (messages.unknownFields && Object.hasOwn(messages.unknownFields, param)) {
        return invalid(messages.unknownFields[param]!);
      }
      return invalid(`Unrecognized request argument supplied: ${param.length > 80 ? `${param.slice(0, 77)}...` : param}`);
    case 'x-inkwell-max-depth':
      return invalid(
        `Invalid value for ${name}: objects and arrays may be nested at most ${parent['x-inkwell-max-depth']} levels deep.`,
      );
    case 'x-inkwell-exactly-one': {
      const fields = (error.schema as string[]).map((f) => `'${f}'`).join(' or ');
      return new ApiError('invalid_request', { message: `Provide exactly one of ${fields} (and not null).` });
    }
    case 'maxLength':
      if (parent['x-inkwell-too-large'] === true) {
        return new ApiError('payload_too_large', {
          ...options,
          message: `${name} is too large: at most ${parent.maxLength} characters are accepted.`,
        });
      }
      return invalid(`Invalid value for ${name}: must be at most ${parent.maxLength} characters.`);
    case 'minLength':
      return invalid(
        parent.minLength === 1
          ? `Invalid value for ${name}: must not be empty.`
          : `Invalid value for ${name}: must be at least ${parent.minLength} characters.`,
      );
    case 'maxItems':
      return invalid(`Invalid value for ${name}: at most ${parent.maxItems} items are accepted.`);
    case 'minItems':
      return invalid(`Invalid value for ${name}: at least ${parent.minItems} item(s) are required.`);
    case 'maxProperties':
      return invalid(`Invalid value for ${name}: at most ${parent.maxProperties} entries are accepted.`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return invalid(`Invalid value for ${name}: ${bounds(parent)}.`);
    case 'type':
      return invalid(`Invalid ${explained ? 'value' : 'type'} for ${name}: expected ${describe(parent)}.`);
    case 'pattern':
      if (explained) break;
      return invalid(`Invalid value for ${name}: must match the pattern ${parent.pattern}.`);
    case 'discriminator': {
      const tag = (error.params as { tag?: string }).tag ?? 'type';
      const tagParam = pointerToParam(`${pointer}/${tag}`);
      return new ApiError('invalid_request', {
        param: tagParam.length <= PARAM_MAX_LENGTH ? tagParam : undefined,
        message: `Invalid value for ${quoted(tagParam)}: expected ${describe(parent)}.`,
      });
    }
  }
  return invalid(`Invalid value for ${name}: expected ${describe(parent)}.`);
}
