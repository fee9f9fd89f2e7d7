import { Type, type TSchema, type SchemaOptions, type TUnsafe } from '@sinclair/typebox';

/** A closed string enum written as JSON Schema `enum` (reads better in OpenAPI than anyOf of consts). */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

export function Nullable<T extends TSchema>(schema: T, options: SchemaOptions = {}) {
  return Type.Union([schema, Type.Null()], options);
}

/**
 * Annotation read by the validator: exceeding this field's maxLength is "input too large"
 * (413 payload_too_large) rather than an invalid value, as the spec's 413 row says for
 * prompts, images and SVG inputs.
 */
export const TOO_LARGE = { 'x-inkwell-too-large': true } as const;

/**
 * Deepest nesting accepted in a free-form JSON value (a tool's JSON Schema, an annotation):
 * objects and arrays, the value itself counting as level 1. Deeper values are refused so code
 * that walks them later (JSON.stringify, a model client) cannot overflow the call stack.
 */
export const JSON_MAX_DEPTH = 64;

/** A JSON object whose content is the caller's own: any properties, depth-bounded (validator keyword). */
export function FreeFormObject(description: string) {
  return Type.Object(
    {},
    {
      additionalProperties: true,
      'x-inkwell-max-depth': JSON_MAX_DEPTH,
      description: `${description} Objects and arrays in it nest at most ${JSON_MAX_DEPTH} levels deep (the value itself is level 1).`,
    },
  );
}
