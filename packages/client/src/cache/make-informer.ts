import { ApiError, findBuiltinKind, objectKey, type KubeObject, type Logger } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import type { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { isDeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { splitMetaNamespaceKey } from './key-func.js';
import type { ListerWatcher } from './lister-watcher.js';
import { SharedIndexInformer } from './shared-informer.js';
import type { KubeConfig } from '../clientcmd/kubeconfig.js';
import type { ListParams } from '../rest/list-params.js';
import { RestClient } from '../rest/client.js';
import type { RestClientOptions, RestConfig } from '../rest/config.js';
import type { ResourceRef } from '../rest/resource-client.js';

export const ADD = 'add';
export const UPDATE = 'update';
export const CHANGE = 'change';
export const DELETE = 'delete';
export const ERROR = 'error';
export const CONNECT = 'connect';

export type InformerEvent =
  typeof ADD | typeof UPDATE | typeof CHANGE | typeof DELETE | typeof ERROR | typeof CONNECT;

export type ObjectCallback<T> = (obj: T) => void;
export type UpdateCallback<T> = (obj: T, oldObj: T) => void;
export type ErrorCallback = (err: ApiError) => void;
export type ConnectCallback = () => void;

/** The surface of @kubernetes/client-node's Informer, backed by a SharedIndexInformer. */
export interface Informer<T extends KubernetesObject = KubeObject> {
  on(event: typeof ADD | typeof CHANGE | typeof DELETE, cb: ObjectCallback<T>): void;
  on(event: typeof UPDATE, cb: UpdateCallback<T>): void;
  on(event: typeof ERROR, cb: ErrorCallback): void;
  on(event: typeof CONNECT, cb: ConnectCallback): void;
  off(event: InformerEvent, cb: (...args: never[]) => void): void;
  /**
   * Starts listing and watching; resolves once the initial list is in the cache. After stop()
   * it starts again as client-node's does: it relists at the last resourceVersion and the
   * handlers hear what changed while it was stopped, then it watches on.
   */
  start(): Promise<void>;
  /** Stops and closes its connections; start() restarts it. */
  stop(): Promise<void>;
  /** Cached objects, of one namespace if given. */
  list(namespace?: string): T[];
  get(name: string, namespace?: string): T | undefined;
  /**
   * The shared informer underneath, for indexers, listers and metrics: the same object for the
   * informer's whole life, as stop() and start() stop and restart it.
   */
  readonly informer: SharedIndexInformer<T>;
}

export interface MakeInformerOptions {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  resyncPeriodMs?: number | undefined;
  logger?: Logger | undefined;
  /** Transport options for the informer's own RestClient. */
  client?: Omit<RestClientOptions, keyof RestConfig> | undefined;
}

/**
 * `/api/v1/namespaces/default/pods` → the resource and namespace it names. Built-in resources
 * are looked up for their scope; anything else under a `namespaces/<ns>` segment is namespaced.
 */
export function parseCollectionPath(path: string): { resource: ResourceRef; namespace: string } {
  const clean = path.split('?')[0]!.replace(/\/+$/, '');
  const parts = clean.split('/').filter((p) => p !== '');
  let group = '';
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    rest = parts.slice(1);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1]!;
    rest = parts.slice(2);
  } else {
    throw ApiError.badRequest(`not a collection path: ${JSON.stringify(path)}`);
  }
  const version = rest[0]!;
  let namespace = '';
  let plural: string | undefined;
  if (rest[1] === 'namespaces' && rest.length === 4) {
    namespace = decodeURIComponent(rest[2]!);
    plural = rest[3];
  } else if (rest.length === 2) {
    plural = rest[1];
  }
  if (!plural) throw ApiError.badRequest(`not a collection path: ${JSON.stringify(path)}`);
  const builtin = findBuiltinKind(plural, group);
  const namespaced = builtin?.plural === plural ? builtin.namespaced : namespace !== '';
  return { resource: { group, version, plural, namespaced }, namespace };
}

/**
 * A familiar entry point for @kubernetes/client-node users — `makeInformer(kc, path)` with
 * `.on('add' | 'update' | 'delete' | 'error' | 'connect')` — on the shared informer: paginated
 * lists, bookmarks, backoff with jitter, and it never stops on errors (client-node's informer
 * stops on anything but 410 and has to be restarted from the error callback). `error` reports
 * each failure; the informer keeps retrying by itself.
 */
export function makeInformer<T extends KubernetesObject = KubeObject>(
  kubeConfig: KubeConfig,
  path: string,
  options?: MakeInformerOptions,
): Informer<T>;
/**
 * client-node's own signature, so its callers port unchanged. `listFn` is not called: the
 * informer lists `path` itself, in pages, at the resourceVersion its watch then resumes from.
 */
export function makeInformer<T extends KubernetesObject = KubeObject>(
  kubeConfig: KubeConfig,
  path: string,
  listFn: () => Promise<unknown>,
  labelSelector?: string,
  fieldSelector?: string,
): Informer<T>;
export function makeInformer<T extends KubernetesObject = KubeObject>(
  kubeConfig: KubeConfig,
  path: string,
  optionsOrListFn: MakeInformerOptions | (() => Promise<unknown>) = {},
  labelSelector?: string,
  fieldSelector?: string,
): Informer<T> {
  const options: MakeInformerOptions =
    typeof optionsOrListFn === 'function'
      ? {
          ...(labelSelector ? { labelSelector } : {}),
          ...(fieldSelector ? { fieldSelector } : {}),
        }
      : optionsOrListFn;
  const { resource, namespace } = parseCollectionPath(path);
  const clientOptions = {
    ...options.client,
    ...(options.logger ? { logger: options.logger } : {}),
  };
  // Read once: every run's client shares the credentials (an exec plugin's token included).
  const restConfig = kubeConfig.restConfig({
    ...(clientOptions.clock ? { clock: clientOptions.clock } : {}),
    ...(clientOptions.logger ? { logger: clientOptions.logger } : {}),
  });
  // stop() closes the connections, and a closed RestClient stays closed: one per run.
  const newClient = (): RestClient => new RestClient({ ...restConfig, ...clientOptions });
  let client: RestClient | undefined = newClient();
  const tweak = (params: ListParams): ListParams => ({
    ...params,
    ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}),
    ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
  });
  const current = (): ListerWatcher<T> => {
    if (!client) throw ApiError.serviceUnavailable(`informer ${path} is stopped`);
    return client.resource<T>(resource).namespace(namespace).listerWatcher(tweak);
  };
  const informer = new SharedIndexInformer<T>({
    listerWatcher: {
      list: async (params, signal) => await current().list(params, signal),
      watch: async (params, signal) => await current().watch(params, signal),
    },
    resource: { group: resource.group, resource: resource.plural },
    ...(options.resyncPeriodMs !== undefined ? { resyncPeriodMs: options.resyncPeriodMs } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });

  const callbacks = new Map<InformerEvent, Set<(...args: never[]) => void>>();
  const emit = (event: InformerEvent, ...args: unknown[]): void => {
    for (const cb of callbacks.get(event) ?? []) {
      try {
        (cb as (...a: unknown[]) => void)(...args);
      } catch (err) {
        options.logger?.error('informer callback failed', {
          event,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
  };
  informer.setWatchErrorHandler((err) => emit(ERROR, err));
  informer.setWatchStartHandler(() => emit(CONNECT));
  informer.addEventHandler(
    {
      onAdd: (obj) => {
        emit(ADD, obj);
        emit(CHANGE, obj);
      },
      onUpdate: (oldObj, newObj) => {
        // A resync is not a change a client-node user expects to hear about.
        if (oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion) return;
        emit(UPDATE, newObj, oldObj);
        emit(CHANGE, newObj);
      },
      onDelete: (obj) => {
        const last = lastKnown(obj);
        emit(DELETE, last);
        emit(CHANGE, last);
      },
    },
    { name: `makeInformer ${path}` },
  );

  return {
    informer,
    on(event: InformerEvent, cb: (...args: never[]) => void): void {
      let set = callbacks.get(event);
      if (!set) callbacks.set(event, (set = new Set()));
      set.add(cb);
    },
    off(event: InformerEvent, cb: (...args: never[]) => void): void {
      callbacks.get(event)?.delete(cb);
    },
    async start(): Promise<void> {
      client ??= newClient();
      informer.start();
      await informer.waitForCacheSync();
    },
    async stop(): Promise<void> {
      // Taken before waiting, so a start() meanwhile makes its own client and this one closes.
      const closing = client;
      client = undefined;
      await informer.stop();
      await closing?.close();
    },
    list(ns?: string): T[] {
      const all = informer.getIndexer().list();
      return ns === undefined ? all : all.filter((o) => (o.metadata?.namespace ?? '') === ns);
    },
    get(name: string, ns?: string): T | undefined {
      return informer.getIndexer().getByKey(objectKey({ name, ...(ns ? { namespace: ns } : {}) }));
    },
  };
}

/** client-node hands deletes the last known object; a tombstone without one gets a stub. */
function lastKnown<T extends KubernetesObject>(obj: T | DeletedFinalStateUnknown<T>): T {
  if (!isDeletedFinalStateUnknown(obj)) return obj;
  const tombstone = obj;
  if (tombstone.obj) return tombstone.obj;
  const { namespace, name } = splitMetaNamespaceKey(tombstone.key);
  return { metadata: { name, ...(namespace ? { namespace } : {}) } } as T;
}
