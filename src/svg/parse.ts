import { SaxesParser } from 'saxes';
import type { SvgElement, SvgNode } from './tree.ts';

/** Refused markup: the message is safe to show to the client. */
export class SvgParseError extends Error {
  override name = 'SvgParseError';
}

/** Deeper nesting than any real drawing; guards the recursive passes that follow. */
export const MAX_DEPTH = 256;

/**
 * Parses SVG markup strictly (well-formed XML). DOCTYPEs and therefore entity declarations are
 * refused; comments and processing instructions are dropped; CDATA becomes text.
 */
export function parseSvg(markup: string): SvgElement {
  const root = parseNodes(markup, false).find((node): node is SvgElement => 'name' in node);
  if (!root) throw new SvgParseError('The SVG has no root element.');
  if (root.name !== 'svg') throw new SvgParseError(`The root element must be <svg>, not <${root.name.slice(0, 40)}>.`);
  return root;
}

/**
 * The elements of a document still being written, parsed strictly as far as it goes: every
 * element whose start tag is complete, open ones left open (the caller closes them), a start
 * tag or text still being written left out. Throws SvgParseError where the markup so far is
 * not well-formed.
 */
export function parseSvgPrefix(markup: string): SvgElement | undefined {
  return parseNodes(markup, false, true).find((node): node is SvgElement => 'name' in node);
}

/** Parses element content (several siblings, text) such as a streamed draft delta. */
export function parseSvgFragment(markup: string): SvgNode[] {
  return parseNodes(markup, true);
}

function parseNodes(markup: string, fragment: boolean, open = false): SvgNode[] {
  const parser = new SaxesParser({ xmlns: false, position: false, fragment });
  const top: SvgNode[] = [];
  const stack: SvgElement[] = [];
  let failure: SvgParseError | undefined;
  const fail = (message: string) => {
    failure ??= new SvgParseError(message);
  };
  const append = (node: SvgNode) => (stack.length ? stack[stack.length - 1]!.children : top).push(node);

  parser.on('doctype', () => fail('The SVG contains a DOCTYPE; DOCTYPEs and entity declarations are not accepted.'));
  parser.on('opentag', (tag) => {
    // Thrown, not recorded: reading the rest of a document already refused would be wasted.
    if (stack.length >= MAX_DEPTH) throw new SvgParseError(`The SVG is nested deeper than ${MAX_DEPTH} levels.`);
    // Keys, then a lookup each: Object.entries on saxes' attribute objects costs twice as much.
    const attributes = new Map<string, string>();
    const values = tag.attributes as Record<string, string>;
    for (const name of Object.keys(values)) attributes.set(name, values[name]!);
    const node: SvgElement = { name: tag.name, attributes, children: [] };
    append(node);
    stack.push(node);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.on('text', (text) => {
    if (stack.length || fragment) append({ text });
  });
  parser.on('cdata', (text) => {
    if (stack.length) append({ text });
  });
  // Stop at the first error: saxes would otherwise go on, reporting every later character of
  // hostile markup at a cost each.
  parser.on('error', (error) => {
    throw new SvgParseError(`The SVG is not well-formed XML: ${firstLine(error.message)}`);
  });

  try {
    // Without close(), saxes keeps what it has not finished (a start tag, text) to itself.
    if (open) parser.write(markup);
    else parser.write(markup).close();
  } catch (error) {
    if (error instanceof SvgParseError) fail(error.message);
    else fail(`The SVG is not well-formed XML: ${firstLine((error as Error).message)}`);
  }
  if (failure) throw failure;
  return top;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/^[^:]*:\d+:\d+: /, '').slice(0, 200);
}
