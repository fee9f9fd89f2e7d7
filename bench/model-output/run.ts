/**
 * Times svgFromModelText on each pathological answer shape (test/svg/large-answers.ts) at 50,
 * 200 and 800 KB. Linear work shows as µs/KB figures that stay level as the size grows; figures
 * that grow with it mean super-linear work. The last column tells what the 800 KB answer ended
 * with, and whether that is what test/svg/large-answers.test.ts expects.
 *
 *   node --expose-gc --import tsx bench/model-output/run.ts [--rounds N]
 *
 * Each figure is the fastest of N runs (default 5), the least disturbed by the rest of the
 * machine. With --expose-gc, garbage is collected before every timed run, so that no run pays
 * for the garbage of the one before it.
 */
import { svgFromModelText } from '../../src/svg/model-output.ts';
import { SvgParseError } from '../../src/svg/parse.ts';
import { LARGE_ANSWERS, type LargeAnswer } from '../../test/svg/large-answers.ts';

const SIZES_KB = [50, 200, 800];
const roundsFlag = process.argv.indexOf('--rounds');
const ROUNDS = roundsFlag > 0 ? Number(process.argv[roundsFlag + 1]) : 5;

/** What the run ended with: the delivered size, the refusal, or (a bug) the exception. */
function run(shape: LargeAnswer, text: string): { summary: string; right: boolean } {
  try {
    const { svg } = svgFromModelText(text, { truncated: shape.truncated, fallbackViewBox: '0 0 512 512' });
    return { summary: `delivered ${(svg.length / 1024).toFixed(0)} KB`, right: delivers(shape, svg, text) };
  } catch (error) {
    if (!(error instanceof SvgParseError)) return { summary: `threw ${(error as Error).name}`, right: false };
    return { summary: 'refused', right: 'refused' in shape.expect && shape.expect.refused.test(error.message) };
  }
}

function delivers(shape: LargeAnswer, svg: string, text: string): boolean {
  if (!('delivered' in shape.expect)) return false;
  try {
    shape.expect.delivered(svg, text);
    return true;
  } catch {
    return false;
  }
}

function time(shape: LargeAnswer, text: string): { ms: number; summary: string; right: boolean } {
  let best = Infinity;
  let outcome = { summary: '', right: false };
  for (let round = 0; round < ROUNDS; round++) {
    globalThis.gc?.();
    const started = performance.now();
    outcome = run(shape, text);
    best = Math.min(best, performance.now() - started);
  }
  return { ms: best, ...outcome };
}

// Warm the JIT on a small answer of every shape, so the first shape is not charged for it.
for (const shape of LARGE_ANSWERS) run(shape, shape.build(20_000));

console.log(`| shape | ${SIZES_KB.map((kb) => `${kb} KB: ms (µs/KB)`).join(' | ')} | at 800 KB |`);
console.log(`|---|${SIZES_KB.map(() => '---:').join('|')}|---|`);
for (const shape of LARGE_ANSWERS) {
  const cells: string[] = [];
  let last = '';
  for (const kb of SIZES_KB) {
    const { ms, summary, right } = time(shape, shape.build(kb * 1024));
    cells.push(`${ms.toFixed(1)} (${((ms * 1000) / kb).toFixed(0)})`);
    last = `${summary}${right ? '' : ' — wrong'}`;
  }
  console.log(`| ${shape.name} | ${cells.join(' | ')} | ${last} |`);
}
