import type { TraceOutcome, TraceTask } from './job.ts';
import { traceCutout } from './cutout.ts';
import { fitIntoViewBox } from './frame.ts';
import { cropRgba, decodeRgba, subjectBox, UndecodableImageError, withMargin } from './raster.ts';
import { CROP_MARGIN, normalizeSvgInput, UnrenderableSvgError } from './svg-normalize.ts';
import { traceImage } from './tracer.ts';

/**
 * Runs in a tracer process: decode, crop, trace or normalize. Never touches the network.
 * `accepted` is called once a raster input has decoded, so undecodable data can still be
 * refused as a plain 400 before the stream starts; an SVG input is never announced early (its
 * normalization is the whole job, and its result or refusal comes back first).
 */
export default async function runTraceTask(task: TraceTask, accepted: () => void): Promise<TraceOutcome> {
  if (task.input.kind === 'svg') {
    try {
      return { ok: true, svg: normalizeSvgInput(task.input.markup, task) };
    } catch (error) {
      if (error instanceof UnrenderableSvgError) return { ok: false, reason: 'unrenderable', detail: error.message };
      throw error;
    }
  }
  let image;
  try {
    image = await decodeRgba(Buffer.from(task.input.bytes.buffer, task.input.bytes.byteOffset, task.input.bytes.byteLength));
  } catch (error) {
    if (error instanceof UndecodableImageError) return { ok: false, reason: 'undecodable', detail: error.message };
    throw error;
  }
  accepted();
  if (task.autoCrop) {
    const subject = subjectBox(image);
    if (subject) image = cropRgba(image, withMargin(subject, CROP_MARGIN, image));
  }
  const svg = task.clearBackground ? await traceCutout(image, task.effort) : (await traceImage(image, { effort: task.effort, targetSize: task.targetSize })).svg;
  return { ok: true, svg: task.fit ? fitIntoViewBox(svg, task.fit) : svg };
}
