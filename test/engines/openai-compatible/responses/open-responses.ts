import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { ResponseResource, ResponsesStreamEvent } from '../../../../src/contract/responses.ts';
import { assertMatches } from '../../../helpers/schemas.ts';

/**
 * Validation against the Open Responses OpenAPI document (test/fixtures/open-responses, a copy
 * of the schema of record): the response object is checked against `ResponseResource`, each
 * stream event against the `*StreamingEvent` schema its `type` names — an event type the
 * document does not define fails. Everything is also checked against Inkwell's own published
 * schemas (src/contract/responses.ts), as strictly as a generated client would.
 *
 * The document knows function tools only. What the SVG API spec adds — `custom` tools, the
 * `custom_tool_call` item, the `response.custom_tool_call_input.*` events and the custom tool
 * choice — is validated, when a test asks for it, against the document extended with exactly
 * those shapes (CUSTOM_TOOL_EXTENSION, written like the document's function counterparts);
 * nothing else of the document is changed.
 */
const DOCUMENT = JSON.parse(readFileSync(new URL('../../../fixtures/open-responses/openapi.json', import.meta.url), 'utf8')) as {
  components: { schemas: Record<string, any> };
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const CUSTOM_TOOL_EXTENSION: Record<string, unknown> = {
  CustomToolCall: {
    type: 'object',
    required: ['type', 'id', 'call_id', 'name', 'input', 'status'],
    properties: {
      type: { type: 'string', enum: ['custom_tool_call'] },
      id: { type: 'string' },
      call_id: { type: 'string' },
      name: { type: 'string' },
      input: { type: 'string' },
      status: ref('FunctionCallStatus'),
    },
  },
  CustomTool: {
    type: 'object',
    required: ['type', 'name', 'description', 'format'],
    properties: {
      type: { type: 'string', enum: ['custom'] },
      name: { type: 'string' },
      description: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      format: { anyOf: [{ type: 'object' }, { type: 'null' }] },
    },
  },
  CustomToolChoice: {
    type: 'object',
    required: ['type'],
    properties: { type: { type: 'string', enum: ['custom'] }, name: { type: 'string' } },
  },
  ResponseCustomToolCallInputDeltaStreamingEvent: {
    type: 'object',
    required: ['type', 'sequence_number', 'item_id', 'output_index', 'delta'],
    properties: {
      type: { type: 'string', enum: ['response.custom_tool_call_input.delta'] },
      sequence_number: { type: 'integer' },
      item_id: { type: 'string' },
      output_index: { type: 'integer' },
      delta: { type: 'string' },
    },
  },
  ResponseCustomToolCallInputDoneStreamingEvent: {
    type: 'object',
    required: ['type', 'sequence_number', 'item_id', 'output_index', 'input'],
    properties: {
      type: { type: 'string', enum: ['response.custom_tool_call_input.done'] },
      sequence_number: { type: 'integer' },
      item_id: { type: 'string' },
      output_index: { type: 'integer' },
      input: { type: 'string' },
    },
  },
};

function extended(): typeof DOCUMENT {
  const doc = structuredClone(DOCUMENT);
  const schemas = doc.components.schemas;
  Object.assign(schemas, structuredClone(CUSTOM_TOOL_EXTENSION));
  schemas.ItemField.oneOf.push(ref('CustomToolCall'));
  schemas.Tool.oneOf.push(ref('CustomTool'));
  schemas.ResponseResource.properties.tool_choice.oneOf.push(ref('CustomToolChoice'));
  schemas.AllowedToolChoice.properties.tools.items.oneOf.push(ref('CustomToolChoice'));
  return doc;
}

interface Validators {
  response: ValidateFunction;
  events: Map<string, ValidateFunction>;
}

function compile(doc: typeof DOCUMENT): Validators {
  // The document's own keywords (discriminator, x-…, example) are annotations here: oneOf decides.
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(doc, 'open-responses');
  const get = (name: string) => {
    const validate = ajv.getSchema(`open-responses#/components/schemas/${name}`);
    assert.ok(validate, `the document defines ${name}`);
    return validate;
  };
  const events = new Map<string, ValidateFunction>();
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    const type = schema?.properties?.type?.enum?.[0];
    if (name.endsWith('StreamingEvent') && typeof type === 'string') events.set(type, get(name));
  }
  return { response: get('ResponseResource'), events };
}

let plain: Validators | undefined;
let withCustom: Validators | undefined;
const validators = (custom: boolean) => (custom ? (withCustom ??= compile(extended())) : (plain ??= compile(DOCUMENT)));

export interface SchemaOptions {
  /** Validate against the document plus the custom-tool shapes the SVG API spec adds. */
  customTools?: boolean;
}

const show = (value: unknown) => JSON.stringify(value).slice(0, 1500);

/** A response object, against Open Responses' ResponseResource and Inkwell's published schema. */
export function assertOpenResponse(response: unknown, options: SchemaOptions = {}): void {
  const { response: validate } = validators(options.customTools ?? false);
  assert.ok(validate(structuredClone(response)), `not an Open Responses ResponseResource: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${show(response)}`);
  const own = structuredClone(response) as Record<string, unknown>;
  delete own.output_text; // the openai SDK adds this convenience getter to what it returns
  assertMatches(ResponseResource, own, 'response (Inkwell schema)');
}

/** One stream event, against the Open Responses schema its type names (unknown types fail). */
export function assertOpenEvent(event: { type: string }, options: SchemaOptions = {}): void {
  const validate = validators(options.customTools ?? false).events.get(event.type);
  assert.ok(validate, `event type ${event.type} is not an Open Responses event`);
  assert.ok(validate(structuredClone(event)), `${event.type} does not match its Open Responses schema: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${show(event)}`);
  assertMatches(ResponsesStreamEvent, event, `${event.type} (Inkwell schema)`);
}

/**
 * A whole stream: every event valid, `sequence_number` 0, 1, 2…, `response.created` first, one
 * terminal event last; each item keeps its id from `output_item.added` through its deltas and
 * `output_item.done` to the terminal response; deltas add up to the done values.
 */
export function assertOpenStream(events: { type: string; [field: string]: any }[], options: SchemaOptions = {}): void {
  assert.ok(events.length >= 3, 'a stream has at least created, in_progress and a terminal event');
  events.forEach((event, index) => {
    assertOpenEvent(event, options);
    assert.equal(event.sequence_number, index, `sequence_number of event ${index} (${event.type})`);
  });
  assert.equal(events[0]!.type, 'response.created');
  assert.equal(events[1]!.type, 'response.in_progress');
  const terminal = events.at(-1)!;
  assert.ok(['response.completed', 'response.incomplete', 'response.failed', 'error'].includes(terminal.type), `last event ${terminal.type}`);
  const terminals = events.filter((e) => ['response.completed', 'response.incomplete', 'response.failed', 'error'].includes(e.type));
  assert.equal(terminals.length, 1, 'exactly one terminal event');
  const responseId = events[0]!.response.id;
  for (const event of events) if (event.response) assert.equal(event.response.id, responseId, 'one response id throughout');

  const ids: string[] = [];
  const text = new Map<string, string>();
  const done = new Map<number, any>();
  for (const event of events) {
    if (event.type === 'response.output_item.added') {
      assert.equal(event.output_index, ids.length, 'items are added in output order');
      ids.push(event.item.id);
    }
    if ('item_id' in event) {
      assert.equal(event.item_id, ids[event.output_index], `${event.type} names the item added at output_index ${event.output_index}`);
      const key = `${event.item_id}:${event.content_index ?? ''}`;
      if (event.type.endsWith('.delta')) text.set(key, (text.get(key) ?? '') + event.delta);
      if (event.type === 'response.output_text.done') assert.equal(event.text, text.get(key) ?? '', 'output_text deltas add up to the done text');
      if (event.type === 'response.refusal.done') assert.equal(event.refusal, text.get(key) ?? '', 'refusal deltas add up');
      if (event.type === 'response.function_call_arguments.done') assert.equal(event.arguments, text.get(key) ?? '', 'argument deltas add up');
      if (event.type === 'response.custom_tool_call_input.done') assert.equal(event.input, text.get(key) ?? '', 'input deltas add up');
    }
    if (event.type === 'response.output_item.done') {
      assert.equal(event.item.id, ids[event.output_index], 'output_item.done keeps the id of output_item.added');
      assert.ok(!done.has(event.output_index), 'each item is done once');
      done.set(event.output_index, event.item);
    }
  }
  if (terminal.response && terminal.type !== 'response.failed') {
    assert.deepEqual(terminal.response.output.map((item: { id: string }) => item.id), ids, 'the terminal response lists every item, same ids, same order');
    terminal.response.output.forEach((item: unknown, index: number) => assert.deepEqual(item, done.get(index), 'the terminal response carries each item as it was done'));
  }
}
