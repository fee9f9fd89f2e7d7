import type { ViewBox } from '../contract/common.ts';
import type { SvgElement } from './tree.ts';

export function formatViewBox(viewBox: ViewBox): string {
  return [viewBox.minX, viewBox.minY, viewBox.width, viewBox.height].map((n) => String(n)).join(' ');
}

/** Applies the request's `attributes` to the root: the viewBox wins over whatever the source had. */
export function applyAttributes(root: SvgElement, viewBox: ViewBox | null | undefined): SvgElement {
  if (!viewBox) return root;
  const attributes = new Map(root.attributes);
  attributes.set('viewBox', formatViewBox(viewBox));
  return { ...root, attributes };
}
