import { readFile } from 'node:fs/promises';
import { fileFailure } from '../output.ts';
import { ClientExit, EXIT } from './exit-codes.ts';

/** An image or SVG input field of the API: one of its two variants. */
export type InputReference = { url: string } | { base64: string };

/**
 * A command-line input: an http(s) URL is passed on for the server to fetch; anything else is a
 * local file, read here and sent as base64. A file that cannot be read ends the command with
 * `inkwell: cannot read PATH: why` and the usage exit code (nothing was sent or billed).
 */
export async function inputReference(argument: string): Promise<InputReference> {
  if (/^https?:\/\//i.test(argument)) return { url: argument };
  try {
    return { base64: (await readFile(argument)).toString('base64') };
  } catch (error) {
    throw new ClientExit(fileFailure('read', argument, error), EXIT.usage);
  }
}
