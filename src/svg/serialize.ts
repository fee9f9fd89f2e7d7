import { isElement, type SvgElement, type SvgNode } from './tree.ts';

// Most text and values need no escaping: one test instead of a chain of replaces.
const TEXT_SPECIAL = /[&<>]/;
const ATTRIBUTE_SPECIAL = /[&<"\t\n\r]/;

function escapeText(text: string): string {
  if (!TEXT_SPECIAL.test(text)) return text;
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(value: string): string {
  if (!ATTRIBUTE_SPECIAL.test(value)) return value;
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

function serializeNode(node: SvgNode, out: string[]): void {
  if (!isElement(node)) {
    out.push(escapeText(node.text));
    return;
  }
  out.push('<', node.name);
  for (const [name, value] of node.attributes) out.push(' ', name, '="', escapeAttribute(value), '"');
  if (node.children.length === 0) {
    out.push('/>');
    return;
  }
  out.push('>');
  for (const child of node.children) serializeNode(child, out);
  out.push('</', node.name, '>');
}

export function serializeSvg(root: SvgElement): string {
  const out: string[] = [];
  serializeNode(root, out);
  return out.join('');
}

export function serializeNodes(nodes: SvgNode[]): string {
  const out: string[] = [];
  for (const node of nodes) serializeNode(node, out);
  return out.join('');
}
