/**
 * The picture's prompt: the request's prompt, its instructions, then the entry's style wording
 * (which asks for what traces well). Image models read one prompt; there is no system message.
 */
export function imagePrompt(prompt: string, instructions: string | undefined, style: string): string {
  return [prompt.trim(), instructions?.trim(), style.trim()].filter((part) => part).join('\n\n');
}
