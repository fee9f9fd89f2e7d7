// Calls to the API from the page. Streams are read with fetch() and a ReadableStream (EventSource
// cannot send a POST body or an Authorization header) and parsed by eventsource-parser.
import { createParser } from '/playground/vendor/eventsource-parser.js';
import { currentKey } from './key-holder.js';

function headersFor(withBody) {
  const headers = { Authorization: `Bearer ${currentKey() ?? ''}` };
  if (withBody) headers['Content-Type'] = 'application/json';
  return headers;
}

/** What every answer tells, whatever its body: status, request id, key environment. */
function answerInfo(response) {
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id'),
    environment: response.headers.get('x-inkwell-environment'),
  };
}

/** The error envelope of a failed answer; a body that is not one is described as plainly as possible. */
async function envelopeOf(response, info) {
  const text = await response.text();
  try {
    const body = JSON.parse(text);
    if (body && typeof body.code === 'string') return body;
  } catch {
    // Not JSON: described below.
  }
  return { status: response.status, code: `http_${response.status}`, message: text.slice(0, 300) || response.statusText, request_id: info.requestId };
}

export async function listModels() {
  const response = await fetch('/v1/models', { headers: headersFor(false), cache: 'no-store' });
  const info = answerInfo(response);
  if (!response.ok) return { ...info, error: await envelopeOf(response, info) };
  const body = await response.json();
  return { ...info, models: body.data };
}

/**
 * Runs one SVG operation. `onAnswer` hears the status and headers as soon as they arrive; a JSON
 * answer is returned whole, an event stream is passed to `onEvent` one event at a time.
 */
export async function runOperation(path, body, { onAnswer, onEvent, signal }) {
  const response = await fetch(path, {
    method: 'POST',
    headers: headersFor(true),
    body: JSON.stringify(body),
    signal,
    cache: 'no-store',
  });
  const info = answerInfo(response);
  onAnswer(info);
  if (!response.ok) return { ...info, error: await envelopeOf(response, info) };
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream')) return { ...info, result: await response.json() };
  const sawDone = await readEvents(response.body, onEvent);
  return { ...info, streamed: true, sawDone };
}

/** Feeds the body to the SSE parser as it arrives; answers whether `data: [DONE]` was seen. */
async function readEvents(stream, onEvent) {
  let sawDone = false;
  const parser = createParser({
    onEvent(message) {
      if (message.data === '[DONE]') {
        sawDone = true;
        return;
      }
      onEvent(JSON.parse(message.data));
    },
  });
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return sawDone;
    parser.feed(value);
  }
}
