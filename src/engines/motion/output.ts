// Writing the animated document: wrappers around moving nodes, classes on animated elements,
// pathLength on drawn strokes, and one `<style>` holding the keyframes, the animations and the
// reduced-motion rule. Nothing of the source is changed otherwise.

import { walk } from '../../svg/sanitize.ts';
import { serializeSvg } from '../../svg/serialize.ts';
import { element, isElement, type SvgElement, type SvgNode } from '../../svg/tree.ts';
import { writeSheet, type SheetHost } from './css.ts';
import type { Host } from './motions/index.ts';
import { isRendered, type Scene } from './scene.ts';

/** The attribute that marks the animator's style sheet (its value is the class prefix). */
export const SHEET_MARK = 'data-inkwell-motion';

/** A class prefix no name of the source uses (so the sheet touches nothing but what it animates). */
export function choosePrefix(markup: string): string {
  for (let i = 0; ; i++) {
    const prefix = i === 0 ? 'iwm' : `iwm${String.fromCharCode(97 + (i % 26))}${Math.floor(i / 26) || ''}`;
    if (!markup.includes(prefix)) return prefix;
  }
}

function replaceChild(parent: SvgElement, node: SvgElement, replacement: SvgElement): boolean {
  const at = parent.children.indexOf(node);
  if (at < 0) return false;
  parent.children[at] = replacement;
  return true;
}

function findParent(root: SvgElement, node: SvgElement): SvgElement | undefined {
  for (const el of walk(root)) if (el.children.includes(node)) return el;
  return undefined;
}

/** Puts the stage's children back where the root's drawn children were, when the stage itself is not animated. */
function unstage(scene: Scene): void {
  const first = scene.originalChildren.findIndex(isRendered);
  const before = scene.originalChildren.slice(0, Math.max(0, first)).filter((n) => !isRendered(n));
  const after = first < 0 ? [] : scene.originalChildren.slice(first).filter((n) => !isRendered(n));
  scene.root.children = [...before, ...scene.stage.children, ...after];
}

/** The animated document: the scene's tree with the hosts written in. */
export function writeAnimated(scene: Scene, hosts: Host[], sourceMarkup: string): string {
  const prefix = choosePrefix(sourceMarkup);
  const sheetHosts: SheetHost[] = [];
  let classes = 0;
  let names = 0;
  const nextClass = () => `${prefix}${++classes}`;
  const nextName = () => `${prefix}k${++names}`;

  // Element hosts: one class per element, every track of the element in one animation list.
  const elementHosts = new Map<SvgElement, Host[]>();
  for (const host of hosts.filter((h) => !h.wrap)) {
    const list = elementHosts.get(host.node);
    if (list) list.push(host);
    else elementHosts.set(host.node, [host]);
  }
  for (const [node, list] of elementHosts) {
    const className = nextClass();
    const existing = node.attributes.get('class')?.trim();
    node.attributes.set('class', existing ? `${existing} ${prefix} ${className}` : `${prefix} ${className}`);
    if (list.some((h) => h.pathLength)) node.attributes.set('pathLength', '1');
    sheetHosts.push({ className, tracks: list.flatMap((h) => h.tracks.map((track) => ({ name: nextName(), track }))) });
  }

  // Wrapper hosts: a <g> each, nested by layer around the node (lowest innermost).
  const wrapHosts = new Map<SvgElement, Host[]>();
  for (const host of hosts.filter((h) => h.wrap)) {
    const list = wrapHosts.get(host.node);
    if (list) list.push(host);
    else wrapHosts.set(host.node, [host]);
  }
  for (const [node, list] of wrapHosts) {
    const ordered = list.map((host, i) => ({ host, i })).sort((a, b) => a.host.layer - b.host.layer || a.i - b.i);
    const parent = node === scene.stage ? scene.root : (scene.parentOf.get(node) ?? findParent(scene.root, node));
    if (!parent) continue;
    let inner: SvgElement = node;
    for (const { host } of ordered) {
      const className = nextClass();
      const wrapper = element('g', { class: `${prefix} ${className}` }, [inner]);
      sheetHosts.push({ className, tracks: host.tracks.map((track) => ({ name: nextName(), track })) });
      if (!replaceChild(parent, inner, wrapper)) break;
      inner = wrapper;
    }
  }

  if (!wrapHosts.has(scene.stage)) unstage(scene);

  if (sheetHosts.length > 0) {
    const sheet = element('style', { [SHEET_MARK]: prefix }, [{ text: writeSheet(prefix, sheetHosts) }]);
    const children: SvgNode[] = scene.root.children;
    // After a leading <title>/<desc> (the accessible name comes first), before everything else.
    let at = 0;
    while (at < children.length) {
      const child = children[at]!;
      if (isElement(child) && (child.name === 'title' || child.name === 'desc')) at++;
      else if (!isElement(child) && child.text.trim() === '') at++;
      else break;
    }
    children.splice(at, 0, sheet);
  }
  return serializeSvg(scene.root);
}
