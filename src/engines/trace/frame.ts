import type { ViewBox } from '../../contract/common.ts';

/** The root the tracer writes (tracer.ts writeSvg): its viewBox starts at 0 0. */
const ROOT = /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 ([\d.]+) ([\d.]+)" width="\d+" height="\d+">/;

/** A trace split at its root: the root tag, its viewBox's width and height, and what is inside it. */
export function tracerRoot(svg: string): { tag: string; width: number; height: number; body: string } {
  const root = ROOT.exec(svg);
  if (!root) throw new Error('the tracer wrote a root it does not write');
  return { tag: root[0], width: Number(root[1]), height: Number(root[2]), body: svg.slice(root[0].length, -'</svg>'.length) };
}

/**
 * A trace drawn in another viewBox: the picture fitted whole and centred in it (as
 * preserveAspectRatio's xMidYMid meet), the viewBox's width and height the document's.
 */
export function fitIntoViewBox(svg: string, frame: ViewBox): string {
  const { width, height, body } = tracerRoot(svg);
  const scale = Math.min(frame.width / width, frame.height / height);
  const x = frame.minX + (frame.width - width * scale) / 2;
  const y = frame.minY + (frame.height - height * scale) / 2;
  const n = (value: number) => String(Number(value.toFixed(6)));
  const transform = `${x === 0 && y === 0 ? '' : `translate(${n(x)} ${n(y)}) `}scale(${n(scale)})`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${n(frame.minX)} ${n(frame.minY)} ${n(frame.width)} ${n(frame.height)}" width="${n(frame.width)}" height="${n(frame.height)}"><g transform="${transform}">${body}</g></svg>`;
}
