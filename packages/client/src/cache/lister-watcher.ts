import type { KubeList, KubeObject } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import type { ListParams } from '../rest/list-params.js';
import type { WatchStream } from '../rest/watch-stream.js';

/**
 * Where a reflector gets its data (client-go tools/cache ListerWatcher): a LIST and a WATCH of
 * one collection. The REST client provides one per resource; tests and other transports can
 * provide their own.
 */
export interface ListerWatcher<T extends KubernetesObject = KubeObject> {
  list(params: ListParams, signal?: AbortSignal): Promise<KubeList<T>>;
  /** Opening may fail with an ApiError (429, 410, connection refused); see WatchStream. */
  watch(params: ListParams, signal?: AbortSignal): Promise<WatchStream<T>>;
}
