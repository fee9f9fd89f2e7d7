import type { onRequestAsyncHookHandler } from 'fastify';
import type { AuthRequirement } from '../contract/auth.ts';
import type { RequestRuleName } from '../limits/rules.ts';
import type { Catalog } from '../config/catalog.ts';
import type { OperationDeps } from '../operations/context.ts';
import type { Store } from '../store/index.ts';
import type { maxBodyBytes } from './body-size.ts';
import type { StreamObserver } from './sse.ts';

/** What the routes are given by buildApp. */
export interface HttpDeps {
  store: Store;
  catalog: Catalog;
  operations: OperationDeps;
  auth: (requirement: AuthRequirement) => onRequestAsyncHookHandler;
  /** The request-rate hook of a route family (runs after auth). */
  limit: (rule: RequestRuleName) => onRequestAsyncHookHandler;
  maxBodyBytes: ReturnType<typeof maxBodyBytes>;
  millicentsPerCredit: number;
  /** Told when event streams open and close (absent when metrics are off). */
  streams?: StreamObserver;
}
