import { SMIL_ELEMENTS } from './allowlist.ts';
import { styleText, urlTargets } from './css/text.ts';
import { SvgParseError } from './parse.ts';
import { declarationReferences, sheetReferences, type Compound } from './style-sheet.ts';
import { isElement, type SvgElement } from './tree.ts';

/**
 * The most elements a document may make a renderer draw once every reference is expanded.
 * A 1 KB document of nested <use> can otherwise expand to billions of nodes and hang any
 * browser that opens it; real drawings, sprite sheets included, stay far below this.
 */
export const RENDER_BUDGET = 250_000;

/** Refused because of what its references expand to; the message is safe to show to the client. */
export class SvgReferenceError extends SvgParseError {
  override name = 'SvgReferenceError';
}

const SHAPES = new Set(['path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'text', 'image']);
const MARKABLE = new Set(['path', 'line', 'polyline', 'polygon']);
const GRADIENTS = new Set(['linearGradient', 'radialGradient']);
/** Definitions: drawn only where something references them, never where they stand. */
const DEFINITIONS = new Set(['defs', 'symbol', 'pattern', 'marker', 'mask', 'clipPath', 'linearGradient', 'radialGradient', 'filter']);
/** Elements whose href makes a renderer draw (or inherit) the target's content. */
const TEMPLATE_HREF = new Set(['use', 'pattern', 'linearGradient', 'radialGradient']);
/** Properties that inherit: set on a group, they apply to every shape inside it. */
const INHERITED = new Set(['fill', 'stroke', 'marker', 'marker-start', 'marker-mid', 'marker-end']);

interface Reference {
  id: string;
  /** 'use' clones the target; 'template' inherits it (pattern, gradient); otherwise the CSS property. */
  via: string;
}

interface Node {
  element: SvgElement;
  /** Child elements drawn where they stand (definitions are drawn only when referenced). */
  drawnChildren: number[];
  /** Elements in its subtree as written: a definition's share of the document where it stands. */
  size: number;
  references: Reference[];
}

/** Elements a style sheet's url() rules may make the check look at: a bound on its work. */
const SELECTOR_WORK = 4 * RENDER_BUDGET;

/** Everything drawn at most this many times; sums and products stay exact far beyond it. */
const CAP = RENDER_BUDGET + 1;
const capped = (n: number) => (n > CAP ? CAP : n);

/** Numbers and commands in path data or a points list: a bound on its vertices, for markers. */
function vertexBound(element: SvgElement): number {
  if (!MARKABLE.has(element.name)) return 0;
  if (element.name === 'line') return 2;
  const data = element.attributes.get(element.name === 'path' ? 'd' : 'points') ?? '';
  let count = 0;
  let inNumber = false;
  let seenDot = false;
  let previous = '';
  for (const char of data) {
    const digit = char >= '0' && char <= '9';
    if (digit) {
      if (!inNumber) count++;
      inNumber = true;
    } else if (char === '.') {
      if (!inNumber || seenDot) count++;
      inNumber = true;
      seenDot = true;
      previous = char;
      continue;
    } else if ((char === '-' || char === '+') && (previous === 'e' || previous === 'E')) {
      // exponent sign: same number
    } else if (char === 'e' || char === 'E') {
      // exponent: same number
    } else {
      if (/[a-zA-Z]/.test(char)) count++;
      inNumber = false;
      seenDot = false;
      if (char === '-' || char === '+') {
        count++;
        inNumber = true;
      }
    }
    previous = char;
  }
  return count;
}

/** Every element in document order, with its child elements and the references it makes. */
function collect(root: SvgElement): { nodes: Node[]; byId: Map<string, number[]>; sheets: string[] } {
  const nodes: Node[] = [];
  const byId = new Map<string, number[]>();
  const sheets: string[] = [];
  const parents: number[] = [];
  // Document order with each element's parent index (not `walk`, which yields neither).
  const pending: { element: SvgElement; parent: number }[] = [{ element: root, parent: -1 }];
  while (pending.length > 0) {
    const { element, parent } = pending.pop()!;
    const index = nodes.length;
    nodes.push({ element, drawnChildren: [], size: 1, references: [] });
    if (parent >= 0 && nodes[parent]!.element.name !== 'defs' && !DEFINITIONS.has(element.name)) {
      nodes[parent]!.drawnChildren.push(index);
    }
    parents.push(parent);
    const id = element.attributes.get('id');
    if (id !== undefined) {
      const same = byId.get(id);
      if (same) same.push(index);
      else byId.set(id, [index]);
    }
    if (element.name === 'style') sheets.push(styleText(element));
    // An animation's url() values apply to the element it animates: its parent.
    const owner = SMIL_ELEMENTS.has(element.name) && parent >= 0 ? parent : index;
    addOwnReferences(element, nodes[owner]!.references);
    for (let i = element.children.length - 1; i >= 0; i--) {
      const child = element.children[i]!;
      if (isElement(child)) pending.push({ element: child, parent: index });
    }
  }
  // Document order puts every child after its parent: sizes add up in one backward pass.
  for (let index = nodes.length - 1; index > 0; index--) nodes[parents[index]!]!.size += nodes[index]!.size;
  return { nodes, byId, sheets };
}

const MENTIONS_URL = /url\(/i;

function addOwnReferences(element: SvgElement, references: Reference[]): void {
  for (const [name, value] of element.attributes) {
    if (name === 'href' || name === 'xlink:href') {
      const target = value.trim();
      if (TEMPLATE_HREF.has(element.name) && target.startsWith('#')) {
        references.push({ id: target.slice(1), via: element.name === 'use' ? 'use' : 'template' });
      }
    } else if (name === 'id' || name === 'class' || !MENTIONS_URL.test(value)) {
      continue;
    } else if (name === 'style') {
      for (const { property, target } of declarationReferences(value)) references.push({ id: target, via: property });
    } else {
      const via = SMIL_ELEMENTS.has(element.name) ? (element.attributes.get('attributeName') ?? '').trim() : name;
      for (const id of urlTargets(value)) references.push({ id, via });
    }
  }
}

/** Elements by type, id and class: a rule is matched against its candidates, never every element. */
class SelectorIndex {
  private readonly byType = new Map<string, Node[]>();
  private readonly byId = new Map<string, Node[]>();
  private readonly byClass = new Map<string, Node[]>();
  private readonly classes = new Map<Node, Set<string>>();

  constructor(readonly nodes: Node[]) {
    const add = (map: Map<string, Node[]>, key: string, node: Node) => {
      const list = map.get(key);
      if (list) list.push(node);
      else map.set(key, [node]);
    };
    for (const node of nodes) {
      add(this.byType, node.element.name, node);
      const id = node.element.attributes.get('id');
      if (id !== undefined) add(this.byId, id, node);
      const classes = new Set((node.element.attributes.get('class') ?? '').split(/\s+/).filter(Boolean));
      this.classes.set(node, classes);
      for (const name of classes) add(this.byClass, name, node);
    }
  }

  /** Elements looked at so far: what matching has cost. */
  examined = 0;

  /** The elements a compound selector matches. */
  select(compound: Compound): Node[] {
    const candidates =
      compound.id !== undefined
        ? (this.byId.get(compound.id) ?? [])
        : compound.classes.length > 0
          ? (this.byClass.get(compound.classes[0]!) ?? [])
          : (this.byType.get(compound.type!) ?? []);
    this.examined += candidates.length + 1;
    if (this.examined > SELECTOR_WORK) {
      throw new SvgReferenceError('The SVG\'s style sheet has more selectors with url() references than can be checked.');
    }
    return candidates.filter(
      (node) =>
        (compound.type === undefined || compound.type === node.element.name) &&
        (compound.id === undefined || compound.id === node.element.attributes.get('id')) &&
        compound.classes.every((name) => this.classes.get(node)!.has(name)),
    );
  }
}

/**
 * Attaches each style-sheet reference to every element its rule could apply to (an upper bound:
 * only the rightmost compound selector is matched). More attachments than the budget is
 * already a refusal.
 */
function attachSheetReferences(nodes: Node[], sheets: string[]): void {
  const references = sheets.flatMap(sheetReferences);
  if (references.length === 0) return;
  const index = new SelectorIndex(nodes);
  let attached = 0;
  for (const { target, property, subjects } of references) {
    const matched = subjects.length === 0 ? nodes : new Set(subjects.flatMap((compound) => index.select(compound)));
    for (const node of matched) {
      node.references.push({ id: target, via: property });
      if (++attached > RENDER_BUDGET) {
        throw new SvgReferenceError(`The SVG's style sheet references more than ${RENDER_BUDGET} elements.`);
      }
    }
  }
}

/**
 * What drawing each node of the graph once makes a renderer draw, references expanded: one
 * typed array per figure, indexed by node (elements, then ids), so that a quarter of a million
 * nodes cost no object each.
 */
class Expansions {
  /** Elements drawn. */
  readonly cost: Float64Array;
  /** Shapes inside it (inherited fills and markers apply to each). */
  readonly shapes: Float64Array;
  /** A bound on the vertices of the shapes inside it (markers are drawn at each). */
  readonly vertices: Float64Array;

  constructor(size: number) {
    this.cost = new Float64Array(size);
    this.shapes = new Float64Array(size);
    this.vertices = new Float64Array(size);
  }
}

/**
 * Refuses a document whose references (<use>, url(#…) in fills, strokes, markers, masks,
 * clips, filters and patterns, pattern and gradient templates, style-sheet rules) form a cycle,
 * or would make a renderer draw more than RENDER_BUDGET elements. Gradients are paint servers:
 * referencing one draws nothing more, so only cycles through them count. Iterative, linear in
 * the elements and references.
 *
 * Each id is a node of the graph of its own, between the references to it and the elements
 * that carry it: a thousand references to an id a thousand elements share cost two thousand
 * edges, not a million.
 */
export function checkReferences(root: SvgElement): void {
  const { nodes, byId, sheets } = collect(root);
  // Every element is drawn at least once: past the budget, nothing else needs counting (and
  // every subtree's size stays below the cap the sums below rely on).
  if (nodes.length > RENDER_BUDGET) throw new SvgReferenceError(`The SVG has more than ${RENDER_BUDGET} elements.`);
  attachSheetReferences(nodes, sheets);
  const ids = [...byId.keys()];
  const idNode = new Map(ids.map((id, k) => [id, nodes.length + k]));
  const targets = ids.map((id) => byId.get(id)!);
  const total = nodes.length + ids.length;
  const expansions = new Expansions(total);
  const state = new Uint8Array(total); // 0 new, 1 on the stack, 2 done
  // Vertices matter only to markers; counting them reads every path's data, so only when needed.
  const countVertices = nodes.some((node) => node.references.some((reference) => reference.via.startsWith('marker')));
  const edgesOf = (index: number): number[] => {
    if (index >= nodes.length) return targets[index - nodes.length]!;
    const node = nodes[index]!;
    if (node.references.length === 0) return node.drawnChildren;
    const edges = node.drawnChildren.slice();
    for (const reference of node.references) {
      const target = idNode.get(reference.id);
      if (target !== undefined) edges.push(target);
    }
    return edges;
  };
  const expandNode = (index: number): void => {
    if (index >= nodes.length) expandId(index, targets[index - nodes.length]!, nodes, expansions);
    else expandElement(index, nodes, expansions, idNode, countVertices);
  };

  for (let start = 0; start < nodes.length; start++) {
    if (state[start] !== 0) continue;
    const stack: { index: number; edges: number[]; next: number }[] = [{ index: start, edges: edgesOf(start), next: 0 }];
    state[start] = 1;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next < frame.edges.length) {
        const target = frame.edges[frame.next++]!;
        if (state[target] === 1) {
          const id = target >= nodes.length ? ids[target - nodes.length]! : (nodes[target]!.element.attributes.get('id') ?? nodes[target]!.element.name);
          throw new SvgReferenceError(`The SVG's references form a cycle through '#${id.slice(0, 40)}'.`);
        }
        if (state[target] === 0) {
          state[target] = 1;
          stack.push({ index: target, edges: edgesOf(target), next: 0 });
        }
        continue;
      }
      stack.pop();
      state[frame.index] = 2;
      expandNode(frame.index);
    }
  }
  if (expansions.cost[0]! > RENDER_BUDGET) {
    throw new SvgReferenceError(`The SVG's references expand to more than ${RENDER_BUDGET} elements to draw.`);
  }
}

/**
 * What a reference to an id shared by `targets` (all expanded) draws. A renderer picks one
 * element for an id: the cost is the dearest of them (gradients are paint servers and draw
 * nothing more); shapes and vertices are summed, an upper bound.
 */
function expandId(index: number, targets: number[], nodes: Node[], expansions: Expansions): void {
  const { cost, shapes, vertices } = expansions;
  for (const target of targets) {
    shapes[index] = capped(shapes[index]! + shapes[target]!);
    vertices[index] = capped(vertices[index]! + vertices[target]!);
    if (!GRADIENTS.has(nodes[target]!.element.name)) cost[index] = Math.max(cost[index]!, cost[target]!);
  }
}

/** One element's expansion, from its children's and its references' (all expanded before it). */
function expandElement(index: number, nodes: Node[], expansions: Expansions, idNode: Map<string, number>, countVertices: boolean): void {
  const node = nodes[index]!;
  const e = expansions;
  // The definitions inside it count once, as written; what it draws counts with its references.
  let cost = node.size;
  let shapes = SHAPES.has(node.element.name) ? 1 : 0;
  let vertices = countVertices ? vertexBound(node.element) : 0;
  for (const child of node.drawnChildren) {
    cost = capped(cost - nodes[child]!.size + e.cost[child]!);
    shapes = capped(shapes + e.shapes[child]!);
    vertices = capped(vertices + e.vertices[child]!);
  }
  for (const reference of node.references) {
    const target = reference.via === 'use' ? idNode.get(reference.id) : undefined;
    if (target === undefined) continue;
    shapes = capped(shapes + e.shapes[target]!);
    vertices = capped(vertices + e.vertices[target]!);
  }
  for (const reference of node.references) {
    const target = idNode.get(reference.id);
    if (target === undefined) continue;
    let times = 1;
    if (INHERITED.has(reference.via)) times = reference.via.startsWith('marker') ? vertices : shapes;
    cost = capped(cost + capped(e.cost[target]! * times));
  }
  e.cost[index] = cost;
  e.shapes[index] = shapes;
  e.vertices[index] = vertices;
}
