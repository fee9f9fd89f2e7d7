import { readFile } from 'node:fs/promises';

/** An image or SVG input field of the API: one of its two variants. */
export type InputReference = { url: string } | { base64: string };

/**
 * A command-line input: an http(s) URL is passed on for the server to fetch; anything else is a
 * local file, read here and sent as base64.
 */
export async function inputReference(argument: string): Promise<InputReference> {
  if (/^https?:\/\//i.test(argument)) return { url: argument };
  return { base64: (await readFile(argument)).toString('base64') };
}
