import { parseSvg } from '../../svg/parse.ts';
import type { MediaInputs } from '../../media/inputs.ts';
import type { SvgJob } from '../engine.ts';
import type { ChatMessage } from './completion.ts';

/**
 * Animations on the openai-compatible engine: the model receives the source SVG and the prompt
 * (or is asked to choose a suitable animation) and answers with the whole document, animated
 * with CSS keyframes or SMIL. Its answer goes through the same model-output pipeline and
 * sanitizer as every answer; the runner then measures the timing from the delivered document,
 * renders sampled frames and refuses an answer that does not move (502 model_error, not charged).
 * The README's "System prompts" section quotes this prompt.
 */
export const ANIMATE_SYSTEM_PROMPT = [
  'You are an expert SVG animator. You receive an SVG document and, optionally, what to animate, and you answer with the same drawing, animated.',
  'Animate only with CSS @keyframes in a <style> element inside the SVG, or with SMIL elements (<animate>, <animateTransform>, <animateMotion>, <set>). Never use <script>, event handlers, JavaScript, <foreignObject>, external URLs or links, or CSS @import.',
  'Keep the drawing exactly as it looks at rest: do not remove, redraw or restyle its parts. You may add ids and classes, wrap parts in <g> elements, and add a <style> and animation elements.',
  'Animations start by themselves: no begin="click" or other events, no begin="indefinite". Loop gently (animation-iteration-count: infinite, or repeatCount="indefinite") unless the request asks for something that plays once, such as an entrance.',
  'Honour reduced motion: put CSS animations inside @media (prefers-reduced-motion: no-preference) { … }.',
  'Never flash: nothing may change brightness sharply more than three times a second. Keep each loop at one second or longer, and colour and opacity changes smooth.',
  'Keep every part inside the viewBox while it moves: scale, rotate and translate parts about their own centre (transform-box: fill-box; transform-origin: center) with modest amplitudes.',
  "Keep the root element's viewBox. Answer with the whole animated SVG document and nothing else: no explanations, no Markdown code fences. Never write an ellipsis or a placeholder: always the whole document.",
].join('\n');

/** What the model is asked when the request has no prompt. */
export const CHOOSE_ANIMATION =
  'Choose a suitable, tasteful animation for this drawing: for example draw line art on stroke by stroke, pop in a few solid shapes and then let them float or pulse gently, spin what is round like a wheel.';

export function animateUserPrompt(prompt: string | undefined, svg: string): string {
  const request = prompt?.trim() ? `Animation: ${prompt.trim()}` : CHOOSE_ANIMATION;
  return `${request}\n\nSVG document:\n${svg}`;
}

/** The messages of an animation call, and the viewBox the answer keeps (the source's, else the one asked for). */
export async function prepareAnimation(
  job: Extract<SvgJob, { operation: 'svg_animate' }>,
  media: MediaInputs,
  fallbackViewBox: string,
  signal: AbortSignal,
): Promise<{ messages: ChatMessage[]; viewBox: string }> {
  const source = await media.loadSvg(job.source, signal);
  const viewBox = parseSvg(source).attributes.get('viewBox') ?? fallbackViewBox;
  return {
    viewBox,
    messages: [
      { role: 'system', content: ANIMATE_SYSTEM_PROMPT },
      { role: 'user', content: animateUserPrompt(job.prompt, source) },
    ],
  };
}
