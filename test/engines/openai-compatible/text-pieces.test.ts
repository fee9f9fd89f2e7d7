import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PIECES_PER_RUN, TextPieces } from '../../../src/engines/openai-compatible/text-pieces.ts';

/** Tokens of one to five characters, as a model streams them, with characters outside ASCII. */
function tokens(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `<é${i}>`.slice(0, 1 + (i % 5)));
}

describe('text kept a token at a time', () => {
  it('gives back every piece, in order, however many came', () => {
    for (const count of [0, 1, PIECES_PER_RUN - 1, PIECES_PER_RUN, PIECES_PER_RUN + 1, 1_000, 10_000]) {
      const pieces = tokens(count);
      const kept = new TextPieces();
      for (const piece of pieces) kept.push(piece);
      assert.equal(kept.text(), pieces.join(''), `${count} pieces`);
    }
  });

  it('starts from a first piece when given one', () => {
    const kept = new TextPieces('<svg');
    for (const piece of tokens(200)) kept.push(piece);
    assert.equal(kept.text(), `<svg${tokens(200).join('')}`);
    assert.equal(new TextPieces('').text(), '');
  });

  it('holds a run of pieces as one string: a long answer is not thousands of small strings', () => {
    const kept = new TextPieces();
    for (const piece of tokens(10_000)) kept.push(piece);
    // 156 runs of 64, then the 16 pieces after them.
    assert.equal(kept.stringsHeld, Math.floor(10_000 / PIECES_PER_RUN) + (10_000 % PIECES_PER_RUN));
  });
});
