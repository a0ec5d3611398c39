import { objectKey } from '@listwatch/api';
import { splitMetaNamespaceKey } from '../cache/key-func.js';

/**
 * Which object to reconcile (controller-runtime pkg/reconcile Request, a NamespacedName): the
 * name only, never the object, so a reconcile always reads the current state from a lister.
 * `namespace` is '' for a cluster-scoped object.
 */
export interface Request {
  namespace: string;
  name: string;
}

/**
 * What a reconcile asks of the queue (controller-runtime reconcile.Result). Nothing: done, its
 * failures forgotten. `requeueAfter` (ms): again after that delay, e.g. to poll an external
 * state. `requeue`: again with the rate limiter's backoff. A thrown error is a `requeue` that
 * is also counted and logged as an error.
 */
export interface Result {
  requeue?: boolean | undefined;
  requeueAfter?: number | undefined;
}

/** controller-runtime reconcile.Reconciler; `signal` aborts when the controller shuts down. */
export interface Reconciler {
  reconcile(request: Request, signal: AbortSignal): Promise<Result | void> | Result | void;
}

/** The work queue holds keys (`namespace/name`): equal requests collapse into one item. */
export function requestKey(request: Request): string {
  return objectKey(request);
}

export function requestFromKey(key: string): Request {
  return splitMetaNamespaceKey(key);
}
