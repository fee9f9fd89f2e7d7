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
 * An iterator of its own rather than a generator: the pipeline walks every answer several times
 * per request, and a generator allocates a result object per element.
 */
export function walk(root: SvgElement): Iterable<SvgElement> {
  return { [Symbol.iterator]: () => new TreeWalk(root) };
}

class TreeWalk implements Iterator<SvgElement> {
  private readonly stack: SvgElement[];
  private last: SvgElement | undefined;
  private readonly result = { done: false, value: undefined as unknown as SvgElement };

  constructor(root: SvgElement) {
    this.stack = [root];
  }

  next(): IteratorResult<SvgElement> {
    // The previous element's children are pushed only now, after the loop body ran for it.
    const last = this.last;
    if (last) {
      const children = last.children;
      for (let index = 0; index < children.length; index++) {
        const child = children[index]!;
        if (isElement(child)) this.stack.push(child);
      }
    }
    const node = this.stack.pop();
    this.last = node;
    if (!node) {
      this.result.done = true;
      this.result.value = undefined as unknown as SvgElement;
      return this.result;
    }
    this.result.value = node;
    return this.result;
  }
}
