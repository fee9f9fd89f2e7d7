// The exact frame at time t of a document the animator wrote: its style sheet is read back, each
// animated element's state at t is written in as static attributes (wrappers: transform and
// opacity; elements: inline style, which overrides sheets as the animation did), and the sheet is
// removed. Rendered by any SVG renderer, the result is what a browser shows at t.
//
// Dashes are written in user units, since renderers without pathLength support (resvg) would
// otherwise read the normalized ones as lengths: the outline's length is measured here.

import { styleText } from '../../svg/css/text.ts';
import { parseSvg } from '../../svg/parse.ts';
import { walk } from '../../svg/sanitize.ts';
import { serializeSvg } from '../../svg/serialize.ts';
import { isElement, type SvgElement } from '../../svg/tree.ts';
import { formatColour } from './colour.ts';
import { fmt, readSheet } from './css.ts';
import { outlineLength } from './geometry.ts';
import { SHEET_MARK } from './output.ts';
import { sceneViewBox, shapeOutline } from './scene.ts';
import { hostValuesAt, type Track } from './timeline.ts';

/** The document as it looks at `timeMs` (milliseconds from the start), without any animation of the animator's. */
export function frameAt(svg: string, timeMs: number): string {
  const root = parseSvg(svg);
  const viewBox = sceneViewBox(root);
  let hosts = new Map<string, Track[]>();
  let prefix: string | undefined;
  const remove: { parent: SvgElement; node: SvgElement }[] = [];
  for (const el of walk(root)) {
    for (const child of el.children) {
      if (!isElement(child) || child.name !== 'style' || !child.attributes.has(SHEET_MARK)) continue;
      prefix = child.attributes.get(SHEET_MARK)!;
      hosts = readSheet(styleText(child));
      remove.push({ parent: el, node: child });
    }
  }
  for (const { parent, node } of remove) parent.children = parent.children.filter((c) => c !== node);
  if (!prefix) return serializeSvg(root);

  for (const el of walk(root)) {
    const classes = (el.attributes.get('class') ?? '').split(/\s+/);
    const hostClass = classes.find((c) => hosts.has(c));
    if (!hostClass) continue;
    const { values, pivot } = hostValuesAt(hosts.get(hostClass)!, timeMs);
    const isWrapper = el.name === 'g' && classes[0] === prefix && el.attributes.size === 1;
    if (isWrapper) {
      if (values.transform) {
        const v = values.transform;
        const p = pivot ?? { x: 0, y: 0 };
        el.attributes.set(
          'transform',
          `translate(${fmt(p.x + v.tx)} ${fmt(p.y + v.ty)}) rotate(${fmt(v.rotate)}) scale(${fmt(v.sx)} ${fmt(v.sy)}) translate(${fmt(-p.x)} ${fmt(-p.y)})`,
        );
      }
      if (values.opacity !== undefined) el.attributes.set('opacity', fmt(values.opacity));
      continue;
    }
    const declarations: string[] = [];
    const dash = values['stroke-dasharray'];
    if (dash || values['stroke-dashoffset'] !== undefined) {
      // pathLength="1": dashes in units of the outline's length.
      const length = outlineLength(shapeOutline(el, viewBox));
      if (dash) declarations.push(`stroke-dasharray:${fmt(dash[0] * length)} ${fmt(dash[1] * length)}`);
      if (values['stroke-dashoffset'] !== undefined) declarations.push(`stroke-dashoffset:${fmt(values['stroke-dashoffset'] * length)}`);
    }
    if (el.attributes.get('pathLength') === '1') el.attributes.delete('pathLength');
    if (values['fill-opacity'] !== undefined) declarations.push(`fill-opacity:${fmt(values['fill-opacity'])}`);
    if (values.fill) declarations.push(`fill:${formatColour(values.fill)}`);
    if (values.stroke) declarations.push(`stroke:${formatColour(values.stroke)}`);
    if (values['stop-color']) declarations.push(`stop-color:${formatColour(values['stop-color'])}`);
    if (declarations.length > 0) {
      const existing = el.attributes.get('style')?.trim().replace(/;$/, '');
      el.attributes.set('style', existing ? `${existing};${declarations.join(';')}` : declarations.join(';'));
    }
  }
  return serializeSvg(root);
}
