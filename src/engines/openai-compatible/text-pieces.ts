/** Pieces left apart before they are joined into one string (see TextPieces). */
export const PIECES_PER_RUN = 64;

/**
 * Text that arrives a token at a time, kept in few strings. A token of a few characters is a
 * string of its own (about 24 bytes with its header) and a pointer in an array, so an answer kept
 * as its tokens weighs six to eight times its text, for every stream open until it ends; here
 * every PIECES_PER_RUN pieces are joined into one. Each character is copied once more when its run
 * is joined, however long the text grows.
 */
export class TextPieces {
  private readonly strings: string[] = [];
  /** Pieces at the end of `strings` not yet joined into a run. */
  private unjoined = 0;

  constructor(first?: string) {
    if (first) this.push(first);
  }

  push(piece: string): void {
    this.strings.push(piece);
    if (++this.unjoined < PIECES_PER_RUN) return;
    this.strings.push(this.strings.splice(this.strings.length - PIECES_PER_RUN).join(''));
    this.unjoined = 0;
  }

  /** The text so far, in one string. */
  text(): string {
    return this.strings.length === 1 ? this.strings[0]! : this.strings.join('');
  }

  /** How many strings hold the text now (runs, then the pieces after them). */
  get stringsHeld(): number {
    return this.strings.length;
  }
}
