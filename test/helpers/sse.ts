import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface ParsedStream {
  status: number;
  headers: Headers;
  events: { event?: string; data: string }[];
  /** Raw bytes as received, to check framing. */
  raw: string;
}

/** Feeds bytes to a real SSE parser, split at the given points, and returns the messages. */
export function parseSse(raw: string, splits: number[] = []): { event?: string; data: string }[] {
  const events: { event?: string; data: string }[] = [];
  const parser = createParser({ onEvent: (message: EventSourceMessage) => events.push({ event: message.event, data: message.data }) });
  const bytes = Buffer.from(raw);
  const decoder = new TextDecoder();
  let last = 0;
  for (const split of [...splits].sort((a, b) => a - b)) {
    // Split on byte boundaries, possibly inside a UTF-8 sequence: decode with a streaming decoder.
    parser.feed(decoder.decode(bytes.subarray(last, split), { stream: true }));
    last = split;
  }
  parser.feed(decoder.decode(bytes.subarray(last), { stream: true }));
  return events;
}

export async function readStream(url: string, init: RequestInit): Promise<ParsedStream> {
  const response = await fetch(url, init);
  const raw = await response.text();
  return { status: response.status, headers: response.headers, raw, events: parseSse(raw) };
}
