/**
 * What the model is told. Written for small local models as much as large hosted ones: one
 * complete document, no prose, the viewBox asked for, nothing that the sanitizer would strip.
 * The README's "System prompts" section quotes these.
 */

const RULES = [
  'Answer with exactly one complete SVG document and nothing else: no explanations, no Markdown code fences.',
  'The root element is <svg xmlns="http://www.w3.org/2000/svg" viewBox="{viewBox}">.',
  'Use shapes, paths, gradients, patterns, clip paths, masks, filters and text; reuse parts with <defs> and <use>.',
  'Never use <script>, <foreignObject>, event handlers, external URLs or links, <image>, or CSS @import.',
  'Keep it compact: no needless precision (two decimals at most), no comments, no metadata.',
  'Start with a short <title>. Never write an ellipsis or a placeholder: always the whole document.',
];

export const GENERATE_SYSTEM_PROMPT = [
  'You are an expert SVG illustrator. You draw what the user describes as a clean, well-composed vector graphic.',
  ...RULES,
].join('\n');

export const EDIT_SYSTEM_PROMPT = [
  'You are an expert SVG editor. You receive an SVG document and an instruction, and you change the document as the instruction says, keeping everything else as it was.',
  'Answer with the whole edited SVG document and nothing else: no explanations, no Markdown code fences.',
  'Keep the root element\'s viewBox. Never use <script>, <foreignObject>, event handlers, external URLs or links, or CSS @import.',
  'Never write an ellipsis or a placeholder: always the whole document.',
].join('\n');

export const REVIEW_SYSTEM_PROMPT = [
  'You review the result of an SVG edit. You see the instruction and a rendering of the edited drawing on white.',
  'Judge only whether the drawing now does what the instruction asked, and whether it is broken (parts missing, detached, hidden, overlapping wrongly).',
  'Answer with JSON only, exactly: {"score": <integer 0 to 10>, "done": <true if nothing needs fixing>, "faults": [<short strings, what to fix>]}',
].join('\n');

export function generateUserPrompt(prompt: string, instructions: string | undefined, references: number): string {
  const parts = [`Draw: ${prompt}`];
  if (instructions) parts.push(`Style and format guidance: ${instructions}`);
  if (references > 0) parts.push(`The ${references === 1 ? 'attached image is a reference' : `${references} attached images are references`} for the drawing.`);
  return parts.join('\n\n');
}

export function editUserPrompt(instruction: string, svg: string, references: number): string {
  const parts = [`Instruction: ${instruction}`];
  if (references > 0) parts.push(`The ${references === 1 ? 'attached image is a reference' : `${references} attached images are references`} for the edit.`);
  parts.push(`SVG document:\n${svg}`);
  return parts.join('\n\n');
}

export function redoUserPrompt(instruction: string, svg: string, faults: string[]): string {
  return [
    `Instruction: ${instruction}`,
    `A reviewer found these faults in the current result:\n${faults.map((fault) => `- ${fault}`).join('\n')}`,
    'Fix them, still following the instruction, and answer with the whole document.',
    `Current SVG document:\n${svg}`,
  ].join('\n\n');
}

export function reviewUserPrompt(instruction: string): string {
  return `Instruction: ${instruction}\n\nThe attached image is the edited drawing. Review it.`;
}

export function systemPrompt(template: string, viewBox: string): string {
  return template.replace('{viewBox}', viewBox);
}
