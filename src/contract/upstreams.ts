// What the service reports of the model servers its engines call: counted by state at /readyz,
// listed by the metrics listener's GET /upstreams (and `inkwell models upstreams`).

/** An upstream in service, out after failing (until `returnsAt`), or ready for one trial call. */
export type UpstreamState = 'healthy' | 'out' | 'trial';

/** What the metrics, /readyz and the CLI see of one model server. */
export interface UpstreamStatus {
  /** The catalog entry. */
  model: string;
  /** The server's name within the entry. */
  upstream: string;
  state: UpstreamState;
  inFlight: number;
  /** While out: when it takes a trial call (Unix ms). */
  returnsAt?: number;
}
