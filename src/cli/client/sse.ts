import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { SvgStreamEvent } from '../../contract/svgs.ts';
import { ClientExit, EXIT } from './exit-codes.ts';
import { printable } from './printable.ts';

/** One message of an SVG event stream: an event, or the `data: [DONE]` that closes the transport. */
export type StreamMessage = { done: false; event: SvgStreamEvent } | { done: true };

/**
 * The messages of a `text/event-stream` body, parsed by eventsource-parser (comments such as
 * keep-alives are dropped there). `[DONE]` ends the transport only; the caller decides the outcome
 * from the events before it.
 */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamMessage> {
  const messages = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  try {
    for await (const message of messages) {
      if (message.data === '[DONE]') {
        yield { done: true };
        return;
      }
      yield { done: false, event: parseEvent(message.data) };
    }
  } catch (error) {
    if (error instanceof StreamBroken) throw error;
    // fetch reports a connection lost mid-body as a TypeError ("terminated") with the reason in `cause`.
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new StreamBroken(`the event stream was cut: ${cause}`);
  }
}

/** The stream broke off or carried something unreadable: outputs already received still count. */
export class StreamBroken extends ClientExit {
  override name = 'StreamBroken';

  constructor(message: string) {
    super(message, EXIT.failed);
  }
}

function parseEvent(data: string): SvgStreamEvent {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    throw new StreamBroken(`the event stream carried data that is not JSON: ${printable(data.slice(0, 80))}`);
  }
  if (typeof event !== 'object' || event === null || typeof (event as { type?: unknown }).type !== 'string') {
    throw new StreamBroken(`the event stream carried an event without a type: ${printable(data.slice(0, 80))}`);
  }
  return event as SvgStreamEvent;
}
