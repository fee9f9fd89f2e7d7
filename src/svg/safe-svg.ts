// The type of a document that passed the SVG pipeline: parsed strictly, sanitized, the request's
// attributes applied. Only svg/ makes one (test/architecture.test.ts holds every other module to
// the type), so an engine or operation that forgets the pipeline fails to compile instead of
// delivering unchecked markup.

declare const sanitized: unique symbol;

/** A serialized document that passed the pipeline. It is a string, so it is read like one. */
export type SafeSvg = string & { readonly [sanitized]: true };

/** Brands a document serialized from a sanitized tree. For svg/ modules only. */
export function markSafe(serialized: string): SafeSvg {
  return serialized as SafeSvg;
}
