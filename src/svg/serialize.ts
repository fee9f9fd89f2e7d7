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

/**
 * The markup of one node. Iterative (a stack of open elements), so no depth of nesting can
 * overflow the call stack. String concatenation: V8 builds it as a rope, cheaper than an array
 * join.
 */
function serializeNode(root: SvgNode): string {
  let out = '';
  const open: { element: SvgElement; next: number }[] = [];
  for (let node: SvgNode | undefined = root; ; ) {
    if (node && !isElement(node)) {
      out += escapeText(node.text);
    } else if (node) {
      out += `<${node.name}`;
      for (const [name, value] of node.attributes) out += ` ${name}="${escapeAttribute(value)}"`;
      if (node.children.length === 0) out += '/>';
      else {
        out += '>';
        open.push({ element: node, next: 0 });
      }
    }
    const parent = open[open.length - 1];
    if (!parent) return out;
    if (parent.next < parent.element.children.length) {
      node = parent.element.children[parent.next++];
    } else {
      out += `</${parent.element.name}>`;
      open.pop();
      node = undefined;
    }
  }
}

export function serializeSvg(root: SvgElement): string {
  return serializeNode(root);
}

export function serializeNodes(nodes: SvgNode[]): string {
  let out = '';
  for (const node of nodes) out += serializeNode(node);
  return out;
}
