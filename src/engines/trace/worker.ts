import type { TraceOutcome, TraceTask } from './job.ts';
import { cropRgba, decodeRgba, subjectBox, UndecodableImageError, withMargin } from './raster.ts';
import { CROP_MARGIN, normalizeSvgInput } from './svg-input.ts';
import { traceImage } from './tracer.ts';

/** Runs in a tracer thread: decode, crop, trace or normalize. Never touches the network. */
export default async function runTraceTask(task: TraceTask): Promise<TraceOutcome> {
  if (task.input.kind === 'svg') {
    return { ok: true, svg: normalizeSvgInput(task.input.markup, task) };
  }
  let image;
  try {
    image = await decodeRgba(Buffer.from(task.input.bytes.buffer, task.input.bytes.byteOffset, task.input.bytes.byteLength));
  } catch (error) {
    if (error instanceof UndecodableImageError) return { ok: false, reason: 'undecodable', detail: error.message };
    throw error;
  }
  if (task.autoCrop) {
    const subject = subjectBox(image);
    if (subject) image = cropRgba(image, withMargin(subject, CROP_MARGIN, image));
  }
  const { svg } = await traceImage(image, { effort: task.effort, targetSize: task.targetSize });
  return { ok: true, svg };
}
