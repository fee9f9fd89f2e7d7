import type { ReasoningEffort } from '../../contract/common.ts';
import { plainBackground } from './background.ts';
import { tracerRoot } from './frame.ts';
import type { RgbaImage } from './pixels.ts';
import { traceImage } from './tracer.ts';

const PATH_DATA = /<path d="([^"]*)"/g;

/**
 * A picture on a plain background traced as its subject alone. The picture is traced whole and
 * opaque — every gradient and edge as the tracer draws any picture — and clipped to the outline
 * of what is not background (the silhouette, traced as one ink), so the background is
 * transparent and an icon is not a square. A picture without a plain background is traced as it is.
 */
export async function traceCutout(image: RgbaImage, effort: ReasoningEffort): Promise<string> {
  const background = plainBackground(image);
  const { svg } = await traceImage(image, { effort });
  if (!background) return svg;
  const silhouette = await traceImage(inkOf(image, background), { effort });
  return clipTo(svg, silhouette.svg);
}

/** Black where the subject is, transparent where the background is. */
function inkOf({ width, height }: RgbaImage, background: Uint8Array): RgbaImage {
  const pixels = Buffer.alloc(width * height * 4);
  for (let p = 0; p < background.length; p++) if (!background[p]) pixels[p * 4 + 3] = 255;
  return { width, height, pixels };
}

/** The picture's trace inside a clipPath made of the silhouette's paths (scaled from its viewBox to the picture's). */
function clipTo(picture: string, silhouette: string): string {
  const root = tracerRoot(picture);
  const outline = tracerRoot(silhouette);
  const sx = root.width / outline.width;
  const sy = root.height / outline.height;
  const scale = sx === 1 && sy === 1 ? '' : ` transform="scale(${round(sx)}${sx === sy ? '' : ` ${round(sy)}`})"`;
  const paths = [...silhouette.matchAll(PATH_DATA)].map((match) => `<path${scale} d="${match[1]}"/>`).join('');
  return `${root.tag}<clipPath id="cut">${paths}</clipPath><g clip-path="url(#cut)">${root.body}</g></svg>`;
}

const round = (value: number) => String(Number(value.toFixed(6)));
