/** The first block's size in bytes; each block after is twice the one before, up to MAX_BLOCK_BYTES. */
const FIRST_BLOCK_BYTES = 512;
const MAX_BLOCK_BYTES = 64 * 1024;

/**
 * Text that arrives a token at a time, copied as it comes into blocks of UTF-8 outside V8's heap.
 * At a model's pace a token waits seconds for the rest of its answer, so a token kept as a
 * string of its own (or joined with the next few) outlives the young generation, and every
 * stream open sends its whole answer through the old one, to die there, before a full
 * collection. Copied at once, a token's string dies young; the blocks are a stream's only
 * lasting cost, about one byte a character.
 *
 * A token is never split between two blocks, so each block decodes on its own. A high surrogate
 * that ends a token waits for the next one (a character outside the BMP may arrive in two
 * tokens); a surrogate with no partner is not Unicode and is kept as U+FFFD, as UTF-8 keeps it.
 */
export class StreamedText {
  /** Blocks before the last are cut to what they hold. */
  private readonly blocks: Buffer[] = [];
  /** Bytes written in the last block. */
  private used = 0;
  /** A high surrogate that ended the last piece, written with the next. */
  private held = '';

  push(piece: string): void {
    if (this.held) {
      piece = this.held + piece;
      this.held = '';
    }
    const last = piece.charCodeAt(piece.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.held = piece.slice(-1);
      piece = piece.slice(0, -1);
    }
    let block = this.blocks[this.blocks.length - 1];
    // At most three bytes a UTF-16 code unit: a piece is measured only when that might not fit.
    if (!block || block.length - this.used < piece.length * 3) {
      const bytes = Buffer.byteLength(piece);
      if (!block || block.length - this.used < bytes) block = this.newBlock(bytes);
    }
    this.used += writeUtf8(block, piece, this.used);
  }

  /** The text so far, in one string. */
  text(): string {
    const blocks = this.blocks;
    const last = blocks.length - 1;
    let text = '';
    for (let i = 0; i < last; i++) text += blocks[i]!.toString('utf8');
    if (last >= 0) text += blocks[last]!.toString('utf8', 0, this.used);
    return text + this.held;
  }

  /** Bytes set aside for the text (the last block whole): a bounded multiple of what it needs (for tests). */
  get capacity(): number {
    let bytes = 0;
    for (const block of this.blocks) bytes += block.buffer.byteLength;
    return bytes;
  }

  private newBlock(atLeast: number): Buffer {
    const last = this.blocks.length - 1;
    const previous = this.blocks[last];
    if (previous) this.blocks[last] = previous.subarray(0, this.used);
    const size = Math.max(atLeast, previous ? Math.min(previous.length * 2, MAX_BLOCK_BYTES) : FIRST_BLOCK_BYTES);
    // Its own memory, not a slice of Node's shared pool: a pooled slice would keep its whole slab.
    const block = Buffer.allocUnsafeSlow(size);
    this.blocks.push(block);
    this.used = 0;
    return block;
  }
}

/**
 * Writes `text` at `at` in `block` (which has room) and returns the bytes written. ASCII, what
 * models mostly write, is copied here a code unit at a time: cheaper for a token of a few
 * characters than a call into Node's encoder, which takes the rest.
 */
function writeUtf8(block: Buffer, text: string, at: number): number {
  const start = at;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x80) return at - start + block.write(text.slice(i), at);
    block[at++] = unit;
  }
  return at - start;
}
