import type { KubeObject, WatchEvent } from '@listwatch/api';
import type { KubeConfig } from '../clientcmd/kubeconfig.js';
import { abortedError } from '../util/sleep.js';
import { RestClient } from './client.js';
import type { ListParams } from './list-params.js';
import { isWatchEventError } from './watch-stream.js';

/** client-node's watch callback: the event type, the object, and the whole event. */
export type WatchCallback = (phase: string, apiObj: any, watchObj?: any) => void; // eslint-disable-line @typescript-eslint/no-explicit-any -- client-node's signature

/**
 * @kubernetes/client-node's Watch, for people switching: `watch(path, query, callback, done)`
 * resolves with an AbortController once the watch is open; `callback` hears every event —
 * BOOKMARK and ERROR (a 410 Expired Status) included — and `done` is called once when the watch
 * ends: null when the server closed it, else the error (the abort's, after abort()). Underneath
 * it is RestClient.watch: the kubeconfig's credentials (exec plugins, rotating tokens),
 * HTTP/2 or WebSocket, protobuf or CBOR, an idle timeout that finds dead connections.
 */
export class Watch {
  /** client-node's marker for a close the server made; `done` gets null here instead. */
  static readonly SERVER_SIDE_CLOSE = { error: 'Connection closed on server' };
  private client: RestClient | undefined;

  constructor(readonly config: KubeConfig) {}

  async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: WatchCallback,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    const controller = new AbortController();
    let called = false;
    const finish = (err: unknown): void => {
      if (called) return;
      called = true;
      done(err);
    };
    try {
      this.client ??= RestClient.fromKubeConfig(this.config);
      const stream = await this.client.watch<KubeObject>(path, toListParams(queryParams), {
        signal: controller.signal,
      });
      void (async () => {
        try {
          for await (const event of stream) callback(event.type, event.object, event);
          finish(controller.signal.aborted ? abortedError(controller.signal) : null);
        } catch (err) {
          if (controller.signal.aborted) return finish(abortedError(controller.signal));
          // A watch ERROR event (410 Expired and the like) is an event for client-node.
          if (isWatchEventError(err)) {
            const event: WatchEvent = { type: 'ERROR', object: err.status };
            callback(event.type, event.object, event);
            return finish(null);
          }
          finish(err);
        }
      })();
    } catch (err) {
      finish(err);
    }
    return controller;
  }
}

function toListParams(query: Record<string, string | number | boolean | undefined>): ListParams {
  const str = (k: string): string | undefined =>
    query[k] === undefined ? undefined : String(query[k]);
  const params: ListParams = {};
  const label = str('labelSelector');
  const field = str('fieldSelector');
  const rv = str('resourceVersion');
  const rvMatch = str('resourceVersionMatch');
  if (label !== undefined) params.labelSelector = label;
  if (field !== undefined) params.fieldSelector = field;
  if (rv !== undefined) params.resourceVersion = rv;
  if (rvMatch === 'Exact' || rvMatch === 'NotOlderThan') params.resourceVersionMatch = rvMatch;
  if (query.timeoutSeconds !== undefined) params.timeoutSeconds = Number(query.timeoutSeconds);
  if (query.allowWatchBookmarks !== undefined)
    params.allowWatchBookmarks = String(query.allowWatchBookmarks) === 'true';
  if (query.sendInitialEvents !== undefined)
    params.sendInitialEvents = String(query.sendInitialEvents) === 'true';
  return params;
}
