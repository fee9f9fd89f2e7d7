import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError } from '../contract/errors.ts';
import { pointerToParam } from '../contract/validator.ts';

/**
 * The most a route's JSON body may nest and hold, checked on the raw text before JSON.parse
 * builds anything: 32 MiB of `{},` would otherwise cost seconds of event loop and gigabytes of
 * heap before any validation could refuse it.
 */
export interface JsonShape {
  maxDepth: number;
  maxContainers: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The JSON shape this route accepts; routes without one get DEFAULT_JSON_SHAPE. */
    jsonShape?: JsonShape;
  }
}

/** Ample for every closed request schema, whose bodies hold a few dozen objects and arrays. */
export const DEFAULT_JSON_SHAPE: JsonShape = { maxDepth: 32, maxContainers: 1000 };

/**
 * Why the text is outside the shape, or undefined. One forward pass: strings are skipped with
 * indexOf (a base64 image costs what copying it would), structure is counted byte by byte, and
 * the pass stops at the first container over a limit.
 */
export function jsonShapeProblem(text: string, shape: JsonShape): string | undefined {
  let depth = 0;
  let containers = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x22) {
      at = stringEnd(text, at);
      if (at < 0) return undefined; // unterminated: JSON.parse reports it
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > shape.maxDepth) return `nests objects and arrays more than ${shape.maxDepth} levels deep`;
      if (++containers > shape.maxContainers) return `holds more than ${shape.maxContainers} objects and arrays`;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
  }
  return undefined;
}

/** The index of the quote closing the string that opens at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  for (let from = open + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/**
 * The JSON body parser of every route: the shape check, then Fastify's own parser
 * (secure-json-parse), which refuses `__proto__` and `constructor.prototype` keys, rightly, but
 * reports them as invalid JSON. When it refuses a body that is valid JSON, the body is read once
 * more only to tell the client which key was refused and why. No `param` for either: neither is
 * about a field the schema knows.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    const problem = jsonShapeProblem(text, request.routeOptions.config?.jsonShape ?? DEFAULT_JSON_SHAPE);
    if (problem) return done(new ApiError('invalid_request', { message: `The request body ${problem}; this endpoint accepts no more.` }), undefined);
    void parse(request, text, (error, value) => {
      const refused = (error as FastifyError | null)?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? prototypeKey(text) : undefined;
      if (!refused) return done(error, value);
      const what = refused.key === '__proto__' ? "a '__proto__' key" : "a 'constructor' key holding a 'prototype'";
      const where = refused.in === '' ? '' : ` in '${refused.in}'`;
      const message = `The request body contains ${what}${where}, which is not accepted (it could alter object prototypes).`;
      done(new ApiError('invalid_request', { message }), undefined);
    });
  });
}

/** The first prototype-altering key of a JSON text and the path of the object holding it; iterative, so depth cannot overflow the stack. */
function prototypeKey(text: string): { key: '__proto__' | 'constructor'; in: string } | undefined {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return undefined;
  }
  const stack: [unknown, string][] = [[root, '']];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, pointer] = item;
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, child] of Object.entries(node)) {
      const isPrototype = typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype');
      if (key === '__proto__' || (key === 'constructor' && isPrototype)) return { key, in: pointerToParam(pointer).slice(0, 128) };
      stack.push([child, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
    }
  }
  return undefined;
}
