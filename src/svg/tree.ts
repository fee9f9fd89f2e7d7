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
