import type { Principal } from '../accounts/principal.ts';
import type { Catalog } from '../config/catalog.ts';
import type { Billing } from '../billing/billing.ts';
import type { EngineRegistry } from '../engines/registry.ts';
import type { LimitOutcome, Limits } from '../limits/limits.ts';
import type { MediaInputs } from '../media/inputs.ts';
import type { Operation } from '../contract/models.ts';

/** Everything an operation needs about the request it serves, free of HTTP types. */
export interface OperationContext {
  requestId: string;
  principal: Principal;
  /** Aborted when the client goes away; engines stop their work. */
  signal: AbortSignal;
  /** Raw Inkwell-Mock header (sandbox directives). */
  mockHeader?: string;
  /** Receives the limit counts an operation drew on, for the X-RateLimit-* headers. */
  reportLimits?: (outcomes: LimitOutcome[]) => void;
  /** Receives what the request's completion log line says about the operation, as it becomes known. */
  notes?: OperationNotes;
  /** Told which catalog entry serves the request (the model asked for, or a fallback), before its answer begins. */
  served?: (modelId: string) => void;
}

export interface OperationNotes {
  /** The catalog model and operation being run (once the model is resolved and the job built). */
  ran(model: string, operation: Operation): void;
  /**
   * A reservation is held (live keys): `closed` resolves with what settling it charged, or
   * undefined when the settlement was handed to the lease's sweep. The completion line waits
   * for it, even for a client that left.
   */
  billing(closed: Promise<number | undefined>): void;
  /** The answer began and then ended with an error (an `error` event, a partial batch). */
  failed(code: string): void;
  /** The entry `from` could not serve (503 before any output): the request goes to its next fallback. */
  fellBack(from: string): void;
}

export interface OperationDeps {
  catalog: Catalog;
  engines: EngineRegistry;
  billing: Billing;
  limits: Limits;
  media: MediaInputs;
  millicentsPerCredit: number;
}
