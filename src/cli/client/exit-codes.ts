// How the API client commands end, for scripts to branch on (README, "Command line client").

export const EXIT = {
  ok: 0,
  /** Bad arguments or a local problem (unreadable input, unwritable directory): nothing was billed. */
  usage: 1,
  /** The API refused the request (a 4xx other than 408): fix the request, key, model or balance first. */
  refused: 2,
  /** The server or model failed (5xx, 408), the API was unreachable, or its answer was unreadable. */
  failed: 3,
  /** Some outputs were written and the others failed. */
  partial: 4,
} as const;

/** 408, like 504, is a deadline: the outcome is uncertain, as with any server-side failure. */
export function exitCodeForStatus(status: number): number {
  return status >= 400 && status < 500 && status !== 408 ? EXIT.refused : EXIT.failed;
}

/** A failure that ends a client command with a given exit code; its message goes to stderr. */
export class ClientExit extends Error {
  override name = 'ClientExit';

  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
