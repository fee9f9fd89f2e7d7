/** A JSON-RPC message as it arrives, read only as far as cancellation needs. */
interface Message {
  id?: unknown;
  method?: unknown;
  params?: { requestId?: unknown };
}

/**
 * Tool calls in flight on a stateless MCP endpoint, so a cancellation can reach them: each POST
 * is served by a server of its own, and a client cancels a call by POSTing
 * `notifications/cancelled` separately, which that call's server never sees. Calls are kept by
 * the key that made them and their JSON-RPC id, so one key can never cancel another's.
 */
export class InflightCalls {
  private readonly calls = new Map<string, AbortController>();

  /**
   * Reads one POST's messages: cancels the calls its cancellations name, and holds a controller
   * for each tool call it carries until `done`. Returns the signal of a call by its id.
   */
  admit(keyId: string, body: unknown): { signalOf(id: string | number): AbortSignal | undefined; done(): void } {
    const messages = (Array.isArray(body) ? body : [body]).filter((m): m is Message => Boolean(m) && typeof m === 'object');
    const held = new Map<string, AbortController>();
    for (const message of messages) {
      if (message.method === 'notifications/cancelled' && isId(message.params?.requestId)) {
        this.calls.get(slot(keyId, message.params.requestId))?.abort(new Error('the client cancelled the call'));
      } else if (message.method === 'tools/call' && isId(message.id)) {
        const controller = new AbortController();
        const name = slot(keyId, message.id);
        this.calls.set(name, controller);
        held.set(tag(message.id), controller);
      }
    }
    return {
      signalOf: (id) => held.get(tag(id))?.signal,
      done: () => {
        for (const [id, controller] of held) if (this.calls.get(`${keyId}\u0000${id}`) === controller) this.calls.delete(`${keyId}\u0000${id}`);
      },
    };
  }
}

const isId = (value: unknown): value is string | number => typeof value === 'string' || typeof value === 'number';
const tag = (id: string | number) => `${typeof id}:${id}`;
const slot = (keyId: string, id: string | number) => `${keyId}\u0000${tag(id)}`;
