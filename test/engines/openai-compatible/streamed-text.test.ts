import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamedText } from '../../../src/engines/openai-compatible/streamed-text.ts';

/** Tokens of one to five characters, as a model streams them, with characters outside ASCII. */
function tokens(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `<é${i}>`.slice(0, 1 + (i % 5)));
}

function kept(pieces: string[]): StreamedText {
  const text = new StreamedText();
  for (const piece of pieces) text.push(piece);
  return text;
}

describe('text kept a token at a time', () => {
  it('gives back every piece, in order, however many came', () => {
    for (const count of [0, 1, 63, 64, 65, 1_000, 10_000, 100_000]) {
      const pieces = tokens(count);
      assert.equal(kept(pieces).text(), pieces.join(''), `${count} pieces`);
    }
  });

  it('gives back nothing before the first piece, and nothing for empty pieces', () => {
    assert.equal(new StreamedText().text(), '');
    assert.equal(kept(['', '<svg', '', '>']).text(), '<svg>');
  });

  it('keeps characters of two, three and four bytes, and a pair of surrogates split between two tokens', () => {
    const pieces = ['<text>', 'Grüße, ', '日本', '語 ', '\ud83c', '\udfa8', ' and 🖌️', '</text>'];
    assert.equal(kept(pieces).text(), pieces.join(''));
    // Read while the second half of a pair has not come yet: the first is there, as it came.
    assert.equal(kept(['a', 'b\ud83c']).text(), 'ab\ud83c');
    // A surrogate with no partner is not Unicode: kept as the replacement character.
    assert.equal(kept(['a\udfa8', 'b']).text(), 'a\ufffdb');
  });

  it('keeps pieces larger than a block, and many characters outside ASCII, whole', () => {
    const pieces = ['x'.repeat(70_000), 'é'.repeat(40_000), '語'.repeat(30_000), 'tail'];
    assert.equal(kept(pieces).text(), pieces.join(''));
  });

  it('sets aside a bounded multiple of what the text needs, outside the heap', () => {
    for (const count of [1, 500, 5_000, 200_000]) {
      const pieces = tokens(count);
      const text = kept(pieces);
      const bytes = Buffer.byteLength(pieces.join(''));
      assert.ok(text.capacity <= Math.max(512, 2 * bytes + 64 * 1024), `${count} pieces: ${text.capacity} bytes for ${bytes}`);
      assert.ok(text.capacity >= bytes);
    }
  });
});
