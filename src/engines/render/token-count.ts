/**
 * Tokens in a text by the o200k_base encoding, for servers that report no usage. Any model's
 * own tokenizer differs somewhat; this one is bundled with the package (nothing downloads) and
 * counts real work as real tokens, never as zero. It runs in the render workers, never on the
 * event loop: its tables take half a second to load, and it reads about a megabyte a second
 * (markup is many short tokens), so one large answer would stall every other request. Loaded
 * on first use, since most servers report usage.
 */
let encoder: Promise<(text: string) => number> | undefined;

export async function countTokens(texts: string[]): Promise<number> {
  encoder ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => module.countTokens);
  const count = await encoder;
  let total = 0;
  for (const text of texts) if (text !== '') total += count(text);
  return total;
}
