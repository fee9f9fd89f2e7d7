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
