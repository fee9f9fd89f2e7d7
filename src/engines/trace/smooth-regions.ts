import type { RgbaImage } from './pixels.ts';
import { analysisGrid, segment, type Grid } from './smooth-grid.ts';
import { chooseMarkers, type Markers } from './smooth-markers.ts';
import { mergePieces } from './smooth-merge.ts';
import { absorbLeftovers, findPieces, pieceOwners } from './smooth-pieces.ts';
import { piecePixels } from './smooth-pixels.ts';
import type { Scratch } from './smooth-split.ts';

/**
 * Smooth colour (wallpapers, glossy icons, soft illustrations) as gradients.
 *
 * The image is looked at on a small grid (at most ANALYSIS_SIDE cells a side, each the mean of
 * k×k pixels). Opaque cells are joined into regions where neighbours differ by at most STEP per
 * channel, or by at most RAMP_STEP where the colour runs straight through both (a steep but even
 * ramp), so a slow ramp stays one region while a soft but real edge (a wave's rim, a highlight's
 * border, a facet) separates two. A large region that is not flat gets a gradient
 * (gradient-fit.ts) when it leaves a small part of a flat fill's error and wins enough over the
 * whole image to pay for its bytes; one that no gradient fits is cut in two along what the fit
 * missed, and the parts are fitted in turn (a piece of it that is flat becomes a flat fill). What
 * a kept gradient glosses over, if large enough (a faint wave or facet a few levels off), becomes
 * a piece of its own drawn over it. Cells left over join the piece next to them when its fill is
 * close.
 *
 * Nothing is traced here: each gradient piece's pixels are painted with a marker colour of its
 * own (far from every colour of the image), each flat piece's with its colour, and the caller
 * traces that image in colour as usual. Each piece comes out as one shape, stacked in order with
 * the detail around and inside it, and the shapes in a marker's colour get its gradient.
 *
 * The steps, one module each: the analysis grid and its regions (smooth-grid.ts), pieces fitted
 * and split (smooth-pieces.ts, smooth-split.ts, gradient-fit.ts), merged (smooth-merge.ts), their
 * pixels (smooth-pixels.ts) and their markers (smooth-markers.ts).
 */

/** The gradient regions and the image to trace in their place. */
export interface SmoothPlan extends Markers {
  /** The image with each gradient region's pixels painted its marker colour, each flat piece's its colour. */
  marked: RgbaImage;
  /** Share of the visible cells covered by smooth pieces. */
  coverage: number;
}

/** Smallest region considered, as a share of the grid. */
const MIN_REGION_SHARE = 0.01;
const MIN_REGION_CELLS = 48;
/** The gradient path is taken when smooth pieces cover this share of the visible image... */
const MIN_COVERAGE = 0.5;
/** ... or this share, for an opaque image with few flat pixels (a photograph, unless it is nearly all smooth). */
const PHOTO_COVERAGE = 0.85;

/**
 * Finds the regions of smooth colour worth drawing as gradients, or undefined when there are
 * none (flat art, texture): then the image is traced as before.
 */
export function planSmoothRegions(image: RgbaImage, options: { photo: boolean; opaque: boolean }): SmoothPlan | undefined {
  // Flat art on transparency (icons, emoji, logos with some gradients) keeps its flat trace: its
  // bands cost fewer bytes than gradients would. Shading everywhere (few flat pixels) or an
  // opaque picture that is mostly smooth (a wallpaper) takes the gradients.
  if (!options.opaque && !options.photo) return undefined;
  const needed = options.photo && options.opaque ? PHOTO_COVERAGE : MIN_COVERAGE;
  const grid = analysisGrid(image);
  const total = grid.width * grid.height;
  const regions = segment(grid, Math.max(MIN_REGION_CELLS, total * MIN_REGION_SHARE));
  const visibleCells = countVisible(grid);
  // Pieces come from these regions (and what they absorb around them): too little, and no need to fit.
  if (regions.reduce((sum, cells) => sum + cells.length, 0) < visibleCells * needed * 0.8) return undefined;
  const scratch: Scratch = { mark: new Int32Array(total), stamp: 0, queue: new Int32Array(total) };
  const { pieces, smooth, gradients } = findPieces(regions, grid, visibleCells, scratch);
  if (gradients === 0) return undefined;
  mergePieces(pieces, grid, visibleCells);

  const owner = pieceOwners(pieces, total);
  const paints = pieces.map((piece) => piece.paint);
  absorbLeftovers(grid, owner, smooth, paints, scratch.queue);
  let covered = 0;
  for (let i = 0; i < total; i++) if (owner[i]! >= 0) covered++;
  const coverage = covered / Math.max(1, visibleCells);
  if (coverage < needed) return undefined;

  // Each pixel of a piece is painted: a flat piece's with its colour, a gradient piece's with a
  // marker colour of its own, far from every other colour of the image and from the other
  // markers, so the colour trace draws each gradient piece as one shape, stacked in order with the
  // detail around and inside it.
  const marked = Buffer.from(image.pixels);
  const assigned = piecePixels(image, grid, owner, paints, marked);
  const markers = chooseMarkers(marked, assigned, paints);
  return { ...markers, marked: { width: image.width, height: image.height, pixels: marked }, coverage };
}

/** Cells at least half opaque. */
function countVisible({ width, height, alpha }: Grid): number {
  let visible = 0;
  for (let i = 0; i < width * height; i++) if (alpha[i]! >= 128) visible++;
  return visible;
}
