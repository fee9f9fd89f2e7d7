/**
 * Pathological answers a model (or a hostile upstream) can send, each built to a given size
 * (up to the service's 800 KB SVG input limit), with what svgFromModelText must make of them.
 * The large-answer tests check the outcome; bench/model-output times the same shapes at several
 * sizes, to show the work is linear in the answer.
 */
import assert from 'node:assert/strict';

const NS = 'xmlns="http://www.w3.org/2000/svg"';
const OPEN = `<svg ${NS} viewBox="0 0 512 512">`;

/**
 * `unit(i)` repeated after `head` until the text, `tail` included, reaches `bytes` (as `size`
 * measures it: escaped in a JSON string, a text grows).
 */
function fill(bytes: number, head: string, unit: (i: number) => string, tail = '', size = (text: string) => text.length): string {
  const parts: string[] = [head];
  let total = size(head) + size(tail);
  for (let i = 0; total < bytes; i++) {
    const part = unit(i);
    parts.push(part);
    total += size(part);
  }
  parts.push(tail);
  return parts.join('');
}

const count = (text: string, what: string) => text.split(what).length - 1;
const escaped = (text: string) => JSON.stringify(text).length - 2;

/** The value of the last `width="…"` in the text (quotes escaped or not). */
function lastWidth(text: string): string {
  const at = text.lastIndexOf('width=');
  return /^width=\\?"(\d+)/.exec(text.slice(at))![1]!;
}

export interface LargeAnswer {
  name: string;
  /** The answer ended with finish_reason "length". */
  truncated: boolean;
  build(bytes: number): string;
  /** Checks the delivered SVG against the answer, or names the refusal expected. */
  expect: { delivered: (svg: string, answer: string) => void } | { refused: RegExp };
}

export const LARGE_ANSWERS: LargeAnswer[] = [
  {
    name: '100 000 sibling elements',
    truncated: false,
    build: (n) => fill(n, OPEN, () => '<rect/>\n', '<circle r="9"/></svg>'),
    expect: {
      delivered: (svg, answer) => {
        assert.equal(count(svg, '<rect/>'), count(answer, '<rect/>'));
        assert.ok(svg.endsWith('<circle r="9"/></svg>'));
      },
    },
  },
  {
    name: '200 000 elements in one plain group',
    truncated: false,
    build: (n) => fill(n, `${OPEN}<g>`, () => '<a/>', '<circle r="9"/></g></svg>'),
    expect: { delivered: (svg, answer) => assert.equal(count(svg, '<a/>'), count(answer, '<a/>')) },
  },
  {
    name: 'one path with a huge d',
    truncated: false,
    build: (n) => fill(n, `${OPEN}<path d="M0 0`, (i) => ` L${i % 512} ${(i * 7) % 512}`, 'Z"/></svg>'),
    expect: { delivered: (svg, answer) => assert.equal(count(svg, 'L'), count(answer, 'L')) },
  },
  {
    name: 'a huge path cut short mid-command',
    truncated: true,
    build: (n) => fill(n, `\`\`\`svg\n${OPEN}<path d="M0 0`, (i) => ` L${i % 512} ${(i * 7) % 512}`, ' L1'),
    expect: { delivered: (svg, answer) => assert.equal(count(svg, 'L'), count(answer, 'L') - 1) },
  },
  {
    name: 'thousands of shapes never closed',
    truncated: false,
    build: (n) => fill(n, OPEN, (i) => `<circle cx="${i % 512}" cy="9" r="4">`, '</svg>'),
    expect: { delivered: (svg, answer) => assert.equal(count(svg, '<circle'), count(answer, '<circle')) },
  },
  {
    name: 'thousands of groups never closed, and stray end tags',
    truncated: false,
    build: (n) => fill(n, `${OPEN}<rect width="9" height="9"/>`, (i) => (i % 2 ? '</rect>' : '<g fill="red">'), '</svg>'),
    expect: { delivered: (svg) => assert.ok(svg.includes('<rect width="9" height="9"/>')) },
  },
  {
    name: 'thousands of tags never closed, cut short',
    truncated: true,
    build: (n) => fill(n, `${OPEN}<rect width="9" height="9"/>`, () => '<g><circle r="4">'),
    // The groups truly nest: what lies deeper than the depth limit is left out.
    expect: { delivered: (svg) => assert.ok(svg.includes('<rect width="9" height="9"/>') && count(svg, '<circle') > 100) },
  },
  {
    name: '<svg> openings in prose',
    truncated: false,
    build: (n) => fill(n, 'Use ', () => '<svg>'),
    expect: { refused: /draws nothing/ },
  },
  {
    name: '<svg openings inside each other\'s tags',
    truncated: false,
    build: (n) => fill(n, '', () => '<svg '),
    expect: { refused: /draws nothing|contains no SVG/ },
  },
  {
    name: 'nesting at the depth limit',
    truncated: false,
    build: (n) => fill(n, OPEN, () => `${'<g>'.repeat(254)}<rect width="9" height="9"/>${'</g>'.repeat(254)}`, '</svg>'),
    expect: { delivered: (svg, answer) => assert.equal(count(svg, '<rect'), count(answer, '<rect')) },
  },
  {
    name: 'nesting past the depth limit',
    truncated: false,
    build: (n) => fill(n, `${OPEN}<circle r="9"/>`, () => `${'<g>'.repeat(300)}<rect width="9" height="9"/>${'</g>'.repeat(300)}`, '</svg>'),
    expect: { delivered: (svg) => assert.ok(svg.includes('<circle r="9"/>')) },
  },
  {
    name: 'thousands of complete candidates',
    truncated: false,
    build: (n) => fill(n, '', (i) => `Draft ${i}:\n${OPEN}<rect width="${i}" height="9"/></svg>\n`),
    expect: { delivered: (svg, answer) => assert.ok(svg.includes(`width="${lastWidth(answer)}"`)) },
  },
  {
    name: 'thousands of drafts cut inside a value',
    truncated: false,
    build: (n) => fill(n, '', (i) => `${OPEN}<path d="M0 0 L${i % 512} 9 Sorry, let me rewrite that.\n`, `${OPEN}<rect width="7" height="9"/></svg>`),
    expect: { delivered: (svg) => assert.equal(svg, `<svg ${NS} viewBox="0 0 512 512"><rect width="7" height="9"/></svg>`) },
  },
  {
    name: 'thousands of candidates in JSON strings',
    truncated: false,
    build: (n) => fill(n, '[', (i) => `${JSON.stringify(`${OPEN}<rect width="${i}" height="9"/></svg>`)},`, '"x"]'),
    expect: { delivered: (svg, answer) => assert.ok(svg.includes(`width="${lastWidth(answer)}"`)) },
  },
  {
    name: 'a huge SVG in a JSON string',
    truncated: false,
    build: (n) => JSON.stringify({ svg: fill(n - 20, OPEN, (i) => `<circle cx="${i % 512}" cy="9" r="4"/>`, '</svg>', escaped) }),
    expect: { delivered: (svg, answer) => assert.equal(count(svg, '<circle'), count(answer, '<circle')) },
  },
  {
    name: 'a huge attribute value cut short',
    truncated: true,
    build: (n) => fill(n, `${OPEN}<rect width="9" height="9"/><rect class="`, () => 'abcdefgh'),
    expect: { delivered: (svg) => assert.equal(svg, `<svg ${NS} viewBox="0 0 512 512"><rect width="9" height="9"/></svg>`) },
  },
  {
    name: 'a run of white space in a tag cut short',
    truncated: true,
    build: (n) => fill(n, `${OPEN}<rect width="9" height="9"/><rect`, () => '        '),
    expect: { delivered: (svg) => assert.ok(svg.startsWith(`<svg ${NS} viewBox="0 0 512 512"><rect width="9" height="9"/>`)) },
  },
  {
    name: 'one id shared by thousands of elements, referenced thousands of times',
    truncated: false,
    build: (n) => `${OPEN}${'<rect id="a" width="1" height="1"/>'.repeat(Math.floor(n / 52))}${'<use href="#a"/>'.repeat(Math.floor(n / 52))}</svg>`,
    expect: { delivered: (svg, answer) => assert.equal(count(svg, '<use'), count(answer, '<use')) },
  },
  {
    name: 'a huge style sheet',
    truncated: false,
    build: (n) => fill(n, `${OPEN}<defs><linearGradient id="g"><stop offset="0"/></linearGradient></defs><style>`, (i) => `.c${i % 100} rect{fill:url(#g)}`, '</style><rect class="c1" width="9" height="9"/></svg>'),
    expect: { delivered: (svg) => assert.ok(svg.includes('<rect class="c1" width="9" height="9"/>')) },
  },
  {
    name: 'one element with a hundred thousand attributes, unquoted',
    truncated: false,
    build: (n) => fill(n, `${OPEN}<rect width=9 height=9`, (i) => ` a${i}=1`, '/></svg>'),
    expect: { delivered: (svg) => assert.equal(svg, `<svg ${NS} viewBox="0 0 512 512"><rect width="9" height="9"/></svg>`) },
  },
];
