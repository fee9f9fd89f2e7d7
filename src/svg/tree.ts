// The small SVG tree the pipeline works on: elements, attributes in source order, and text.

/** An element: its name, its attributes in source order, its children. */
export interface SvgElement {
  name: string;
  attributes: Map<string, string>;
  children: SvgNode[];
}
export interface SvgText {
  text: string;
}
export type SvgNode = SvgElement | SvgText;

export function isElement(node: SvgNode): node is SvgElement {
  return 'name' in node;
}

export function element(name: string, attributes: Record<string, string> = {}, children: SvgNode[] = []): SvgElement {
  return { name, attributes: new Map(Object.entries(attributes)), children };
}

/**
 * Every element of a tree, the root first, each before its descendants. Iterative, so no depth of
 * nesting overflows the call stack; a loop may leave early (break or return) at no cost. An
 * element's children are read once the loop body has run for it, so the body may replace them.
 */
export function* walk(root: SvgElement): Generator<SvgElement> {
  const stack = [root];
  while (stack.length) {
    const node = stack.pop()!;
    yield node;
    for (const child of node.children) if (isElement(child)) stack.push(child);
  }
}
