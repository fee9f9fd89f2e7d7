import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChunkTemplate } from '../../../src/engines/upstream/chunk-template.ts';
import { COMPLETIONS } from '../../../src/engines/upstream/client.ts';

// A stream's chunks read from a template must be exactly what JSON.parse and the reader make of
// them, chunk by chunk, whatever the server writes; and the template must be used for the
// chunks that allow it (else it is only a cost).

const slotOf = COMPLETIONS.textSlot!;

/** Reads every chunk both ways and compares the parsed chunk, the delta, and any failure. */
function readBothWays(chunks: string[]): ChunkTemplate {
  const template = new ChunkTemplate(slotOf);
  chunks.forEach((data, at) => {
    let expected: unknown;
    let expectedError: unknown;
    try {
      expected = JSON.parse(data);
    } catch (error) {
      expectedError = error;
    }
    if (expectedError !== undefined) {
      assert.throws(() => template.parse(data), SyntaxError, `chunk ${at} should fail as JSON.parse does: ${data}`);
      return;
    }
    const parsed = template.parse(data);
    assert.deepStrictEqual(structuredClone(parsed), expected, `chunk ${at}: ${data}`);
    assert.deepStrictEqual(COMPLETIONS.chunk(parsed), COMPLETIONS.chunk(expected), `chunk ${at}'s delta: ${data}`);
    template.letGo(); // as the reception does once the chunk is read
  });
  return template;
}

const vllm = (content: string, extra = '') =>
  `{"id":"chatcmpl-8f2","object":"chat.completion.chunk","created":1764400000,"model":"qwen","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"logprobs":null,"finish_reason":null}]${extra}}`;

const TOKENS = ['<svg', ' xmlns', '="http', '://www.w3.org/2000/svg"', ' viewBox="0 0 10 10">', '<path d="M0 0', 'L10 10"/>', '</svg>'];

describe('ChunkTemplate', () => {
  it('reads a vLLM-style stream from its template after the first chunks, the same as JSON.parse', () => {
    const chunks = [
      `{"id":"chatcmpl-8f2","object":"chat.completion.chunk","created":1764400000,"model":"qwen","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
      ...TOKENS.map((token) => vllm(token)),
      `{"id":"chatcmpl-8f2","object":"chat.completion.chunk","created":1764400000,"model":"qwen","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop"}]}`,
      `{"id":"chatcmpl-8f2","object":"chat.completion.chunk","created":1764400000,"model":"qwen","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":9,"total_tokens":21}}`,
    ];
    const template = readBothWays(chunks);
    assert.equal(template.readFromTemplate, TOKENS.length - 1);
  });

  it('lets go of the text once its chunk is read: the template, kept from one token to the next, keeps no token', () => {
    const template = new ChunkTemplate(slotOf);
    let parsed: unknown;
    for (const token of TOKENS) {
      parsed = template.parse(vllm(token));
      assert.equal(COMPLETIONS.chunk(parsed).content, token);
      template.letGo();
    }
    assert.equal(template.readFromTemplate, TOKENS.length - 1);
    assert.equal(JSON.stringify(parsed).includes('</svg>'), false);
  });

  it('reads text that needs unescaping: quotes, backslashes, \\u escapes (as Go servers write <), surrogate pairs, newlines', () => {
    const goStyle = (content: string) => vllm(content).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
    const texts = ['<svg>', 'a "quoted" word', 'ends in a backslash \\', '\\', '\\\\"', '😀 emoji', '\n\t', '"content":"x"', '', 'plain'];
    const template = readBothWays([...texts.map((text) => vllm(text)), ...texts.map(goStyle)]);
    assert.ok(template.readFromTemplate >= texts.length, `read ${template.readFromTemplate} from the template`);
  });

  it('reads what only looks like the template as JSON.parse does: two strings in the place of the text, a raw control character, a number, a change before or after the text', () => {
    const base = vllm('x');
    const [before = '', after = ''] = base.split('"x"');
    const lookalikes = [
      `${before}"a","content":"b"${after}`, // the place holds `"a","content":"b"`: JSON.parse keeps b
      `${before}"raw\nnewline"${after}`, // invalid JSON: a raw newline in a string
      `${before}"tab\there"${after}`,
      `${before}"unterminated\\"${after}`,
      `${before}42${after}`,
      `${before}null${after}`,
      `${before}""${after}`,
      `${before}"x"${after.replace('"logprobs":null', '"logprobs":1234')}`, // the same length, another value after the text
      `${before.replace('"created":1764400000', '"created":1764400001')}"x"${after}`, // and before it
    ];
    // Each on a stream of its own, right after the template is learned and used, so it meets the template.
    for (const lookalike of lookalikes) assert.equal(readBothWays([vllm('first'), vllm('second'), lookalike]).readFromTemplate >= 1, true);
  });

  it('follows the text when it moves: reasoning, then content, then tool-call arguments, each from its own template', () => {
    const reasoning = (text: string) => `{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":${JSON.stringify(text)}}}]}`;
    const reasoningNew = (text: string) => `{"id":"c","choices":[{"index":0,"delta":{"reasoning":${JSON.stringify(text)}}}]}`;
    const content = (text: string) => `{"id":"c","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)},"reasoning":null}}]}`;
    const args = (text: string) => `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(text)}}}]}}]}`;
    const words = ['one', ' two', ' three', ' four'];
    const template = readBothWays([...words.map(reasoning), ...words.map(reasoningNew), ...words.map(content), ...words.map(args)]);
    assert.equal(template.readFromTemplate, 4 * (words.length - 1));
  });

  it('learns only the place the probe confirms: a duplicate key, and an error frame in the same shape', () => {
    const duplicate = (first: string, second: string) => `{"choices":[{"delta":{"content":${JSON.stringify(first)},"content":${JSON.stringify(second)}}}]}`;
    // The first `"content":` is not where the text lands (the second wins): only the second may be learned.
    readBothWays([duplicate('a', 'b'), duplicate('x', 'b'), duplicate('a', 'c'), duplicate('a', 'd'), duplicate('y', 'd')]);
    const template = new ChunkTemplate(slotOf);
    template.parse(vllm('one'));
    template.parse(vllm('two'));
    const frame = vllm('three', ',"error":{"message":"the model crashed"}');
    assert.throws(() => COMPLETIONS.chunk(template.parse(frame)), /the model crashed/);
  });

  it('keeps reading the same as JSON.parse over random mixes of shapes and texts', () => {
    const texts = ['<', 'svg', ' ', '"', '\\', 'é', '\u2028', '😀', '</svg>', '', '\\"', 'a\\nb'];
    const shapes = [
      vllm,
      (text: string) => `{"id":"x","choices":[{"index":0,"delta":{"content": ${JSON.stringify(text)}}, "finish_reason": null}]}`,
      (text: string) => `{"id":"x","choices":[{"delta":{"content":${JSON.stringify(text)}}}],"usage":null}`,
      (text: string) => `{"id":"x","choices":[{"delta":{"reasoning":${JSON.stringify(text)}}}]}`,
      (text: string) => `{"id":"x","choices":[{"delta":{"content":${JSON.stringify(text).replace(/"$/, '')}}}]}`, // broken
    ];
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const chunks: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const shape = shapes[random(10) < 8 ? 0 : random(shapes.length)]!;
      chunks.push(shape(texts[random(texts.length)]! + texts[random(texts.length)]!));
    }
    const template = readBothWays(chunks);
    assert.ok(template.readFromTemplate > 1000, `read ${template.readFromTemplate} of 2000 from the template`);
  });

  it('parses an answer sent in chunks of megabytes once each, never twice to learn from them', () => {
    const big = '<svg>' + '<rect width="1" height="1"/>'.repeat(80_000) + '</svg>'; // 2.2 MB
    const chunks = [vllm(big), vllm(big.replace('rect', 'circle')), vllm(big)];
    const parse = JSON.parse;
    let parses = 0;
    JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => (parses++, parse(text, reviver))) as typeof JSON.parse;
    let template: ChunkTemplate;
    try {
      template = readBothWays(chunks);
    } finally {
      JSON.parse = parse;
    }
    // readBothWays parses each chunk once itself, to compare: the template once more, no probe.
    assert.equal(parses, 2 * chunks.length);
    assert.equal(template.readFromTemplate, 0);
  });

  it('costs at most a few extra parses on a server whose every chunk differs elsewhere (a random padding field)', () => {
    const padded = (text: string, at: number) => vllm(text, `,"obfuscation":"${'x'.repeat(at % 7)}${at}"`);
    const chunks = Array.from({ length: 1000 }, (_, at) => padded(TOKENS[at % TOKENS.length]!, at));
    const parse = JSON.parse;
    let parses = 0;
    JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => (parses++, parse(text, reviver))) as typeof JSON.parse;
    let template: ChunkTemplate;
    try {
      template = new ChunkTemplate(slotOf);
      for (const data of chunks) template.parse(data);
    } finally {
      JSON.parse = parse;
    }
    assert.equal(template.readFromTemplate, 0);
    assert.ok(parses <= 1050, `${parses} parses for 1000 chunks`);
  });
});
