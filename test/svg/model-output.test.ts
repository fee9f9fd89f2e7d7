import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import { ThinkSplitter } from '../../src/engines/openai-compatible/think-splitter.ts';
import { extractSvg } from '../../src/svg/extract.ts';
import { svgFromModelText } from '../../src/svg/model-output.ts';
import { SvgParseError } from '../../src/svg/parse.ts';
import { completePathData, closeTrailingTag, repairSvg } from '../../src/svg/repair.ts';
import { serializeSvg } from '../../src/svg/serialize.ts';
import { isElement, type SvgElement } from '../../src/svg/tree.ts';
import { MODEL_OUTPUT_CORPUS, type CorpusCase } from '../fixtures/model-outputs.ts';

const SIDE = 96;

/** RGBA pixels of an SVG rendered on transparency, SIDE px wide. */
function render(svg: string): Uint8Array {
  const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: SIDE }, font: { loadSystemFonts: false } }).render();
  return rendered.pixels;
}

/** Mean absolute difference per channel, 0..1, between two renders of the same size. */
function difference(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return 1;
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length / 255;
}

const visible = (pixels: Uint8Array) => pixels.some((value, i) => i % 4 === 3 && value > 0);

/** The engine's view of an answer: inline reasoning separated first, then the pipeline. */
function pipeline(answer: string, truncated: boolean): string {
  const splitter = new ThinkSplitter();
  const { content } = splitter.push(answer);
  const rest = splitter.flush();
  return svgFromModelText(content + rest.content, { truncated, fallbackViewBox: '0 0 512 512' }).svg;
}

/** Whether the pipeline delivers the answer, and (when known) renders what was meant. */
function outcome(sample: CorpusCase): { ok: boolean; why?: string } {
  let svg: string;
  try {
    svg = pipeline(sample.answer, sample.truncated ?? false);
  } catch (error) {
    if (error instanceof SvgParseError) return { ok: false, why: error.message };
    throw error;
  }
  const pixels = render(svg);
  if (!visible(pixels)) return { ok: false, why: 'renders nothing visible' };
  if (sample.meant === null) return { ok: true };
  const diff = difference(pixels, render(sample.meant));
  return diff <= 0.01 ? { ok: true } : { ok: false, why: `renders ${(diff * 100).toFixed(1)}% off what was meant` };
}

describe('model output corpus', () => {
  it('recovers at least 95% of broken-but-recoverable answers, in every class, and none of the hopeless ones', { timeout: 120_000 }, () => {
    const table = new Map<string, { recovered: number; total: number; hopeless: boolean; misses: string[] }>();
    for (const sample of MODEL_OUTPUT_CORPUS) {
      const row = table.get(sample.kind) ?? { recovered: 0, total: 0, hopeless: sample.meant === null, misses: [] };
      const result = outcome(sample);
      row.total++;
      if (result.ok) row.recovered++;
      else row.misses.push(`${sample.name}: ${result.why}`);
      table.set(sample.kind, row);
    }
    const lines: string[] = [];
    let recoverable = 0;
    let recovered = 0;
    for (const [kind, row] of table) {
      lines.push(`${kind.padEnd(28)} ${row.hopeless ? 'refused' : 'recovered'} ${row.hopeless ? row.total - row.recovered : row.recovered}/${row.total}`);
      if (row.hopeless) {
        assert.equal(row.recovered, 0, `a hopeless answer was delivered (${kind}): the delivered ones were not misses`);
      } else {
        recoverable += row.total;
        recovered += row.recovered;
        assert.ok(row.recovered / row.total >= 0.95, `${kind}: ${row.recovered}/${row.total}\n${row.misses.join('\n')}`);
      }
    }
    lines.push(`all recoverable: ${recovered}/${recoverable} (${((recovered / recoverable) * 100).toFixed(1)}%)`);
    console.log(lines.join('\n'));
    assert.ok(recovered / recoverable >= 0.95);
  });
});

describe('extraction', () => {
  it('picks the last complete SVG, else the last one started', () => {
    const one = '<svg viewBox="0 0 1 1"><rect width="1" height="1"/></svg>';
    const two = '<svg viewBox="0 0 2 2"><circle r="1"/></svg>';
    assert.equal(extractSvg(`Draft: ${one}\nFinal: ${two}\nDone.`)?.markup, two);
    assert.deepEqual(extractSvg(`Final: ${one} then <svg viewBox="0 0 3 3"><rect`), { markup: one, complete: true });
    assert.deepEqual(extractSvg('Only <svg viewBox="0 0 3 3"><rect'), { markup: '<svg viewBox="0 0 3 3"><rect', complete: false });
    assert.equal(extractSvg('No drawing here.'), undefined);
  });

  it('decodes an SVG inside a JSON string, and keeps prose-quoted SVG as written', () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><rect width="4" height="4"/></svg>';
    assert.equal(extractSvg(JSON.stringify({ svg }))?.markup, svg);
    assert.equal(extractSvg(`Here: "${svg}"`)?.markup, svg);
  });

  it('scans hostile answers in linear time', { timeout: 5000 }, () => {
    for (const text of ['<svg '.repeat(60_000), '"<svg\\"'.repeat(40_000), `${'<svg>'.repeat(50_000)}${'</svg>'.repeat(10)}`]) {
      const started = performance.now();
      extractSvg(text);
      assert.ok(performance.now() - started < 500, `${text.slice(0, 12)}…: ${performance.now() - started} ms`);
    }
  });
});

describe('repair of a cut answer', () => {
  it('keeps the complete commands of a path cut mid-number', () => {
    assert.equal(completePathData('M10 10 L20 20 C1 2 3 4 5'), 'M10 10 L20 20');
    assert.equal(completePathData('M0 0h10v10z M5 5 l1'), 'M0 0h10v10z M5 5');
    assert.equal(completePathData('M1 1 2 2 3'), 'M1 1 2 2');
  });

  it('closes the last tag where it was cut', () => {
    assert.equal(closeTrailingTag('<svg><path d="M0 0 L1'), '<svg><path d="M0 0 L1"/>');
    assert.equal(closeTrailingTag('<svg><rect width="4" hei'), '<svg><rect width="4"/>');
    assert.equal(closeTrailingTag('<svg><rect width="4" height='), '<svg><rect width="4"/>');
    assert.equal(closeTrailingTag('<svg><rect width="4" height="1'), '<svg>', 'a value cut short would draw something else');
    assert.equal(closeTrailingTag('<svg><polyline points="1,1 2,2 3'), '<svg><polyline points="1,1 2,2 3"/>');
    assert.equal(closeTrailingTag('<svg><g></'), '<svg><g>');
    assert.equal(closeTrailingTag('<svg><rect/>'), '<svg><rect/>');
  });
});

describe('drafts of a document still being written', () => {
  /** Element names, attributes and nesting: what a draft draws (its trailing text may differ). */
  const shape = (element: SvgElement | undefined): string =>
    element ? `${element.name}[${[...element.attributes].map(([name, value]) => `${name}=${value}`).join(',')}](${element.children.filter(isElement).map(shape).join('')})` : '';

  it('read strictly as far as they go, hold the same elements as the lenient reading, at every cut of the corpus', { timeout: 120_000 }, () => {
    let cuts = 0;
    for (const { answer } of MODEL_OUTPUT_CORPUS) {
      const start = answer.indexOf('<svg');
      if (start < 0) continue;
      const svg = answer.slice(start);
      for (let end = 5; end < svg.length; end++) {
        const prefix = svg.slice(0, end);
        if (/<\/svg\s*>\s*$/.test(prefix)) break;
        const strict = repairSvg(prefix, { truncated: false, open: true });
        const lenient = repairSvg(prefix, { truncated: false });
        assert.equal(shape(strict), shape(lenient), `cut after ${JSON.stringify(prefix.slice(-60))}`);
        cuts++;
      }
    }
    assert.ok(cuts > 10_000, `${cuts} cuts`);
  });

  it('a bare & does not swallow what follows it', () => {
    const draft = repairSvg('<svg viewBox="0 0 4 4"><title>salt & pepper</title><rect width="4" height="4"/><circle r="1"', { truncated: false, open: true });
    assert.equal(draft && serializeSvg(draft), '<svg viewBox="0 0 4 4"><title>salt &amp; pepper</title><rect width="4" height="4"/></svg>');
  });
});
