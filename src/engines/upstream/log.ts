import type { Logger } from 'pino';
import type { UpstreamError } from './exchange.ts';
import type { MappedFailure } from './errors.ts';

/**
 * What an entry's upstream calls tell the log. A server that cannot be reached is said once, when
 * it goes (with its address and what failed, no stack trace: the cause is the network, not the
 * code), and once more when it answers again; the calls that fail meanwhile add nothing. Every
 * other failure is logged as it happens, a misconfiguration at error level.
 */
export class UpstreamLog {
  private unreachable = false;

  constructor(
    private readonly logger: Logger | undefined,
    /** The catalog entry. */
    readonly modelId: string,
    /** The server's base URL, for the operator (never for the client). */
    private readonly address: string,
  ) {}

  /** The server answered (whatever it answered). */
  answered(): void {
    if (!this.unreachable) return;
    this.unreachable = false;
    this.logger?.info({ model: this.modelId, upstream: this.address }, 'the model server is reachable again');
  }

  failed(error: UpstreamError, mapped: MappedFailure): void {
    const kind = error.failure.kind;
    if (kind === 'connect' || kind === 'connect-timeout') {
      if (this.unreachable) return;
      this.unreachable = true;
      this.logger?.warn({ model: this.modelId, upstream: this.address, failure: kind }, 'the model server is not reachable');
      return;
    }
    this.answered();
    if (mapped.misconfigured) this.logger?.error({ err: error, model: this.modelId }, mapped.configurationHint ?? 'the model entry is misconfigured');
    else this.logger?.warn({ err: error, model: this.modelId }, 'upstream call failed');
  }
}
