import type { ResourceDefinition } from '@listwatch/api';
import type { CacheWatcher } from './cache-watcher.js';
import type { WatchCacheEvent } from './event-window.js';

/** Where a watcher is filed: the narrowest scope that can match (kube's triggers). */
export type WatcherScope =
  | { kind: 'key'; key: string }
  | { kind: 'index'; index: string; value: string }
  | { kind: 'prefix'; prefix: string };

function addTo<K>(map: Map<K, Set<CacheWatcher>>, key: K, watcher: CacheWatcher): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(watcher);
}

function removeFrom<K>(map: Map<K, Set<CacheWatcher>>, key: K, watcher: CacheWatcher): void {
  const set = map.get(key);
  set?.delete(watcher);
  if (set?.size === 0) map.delete(key);
}

/**
 * Hands each event only to the watchers that could match it: watchers of that exact object, of
 * its namespace, of the index values it had or has (pods by node), and the cluster-wide ones.
 * With 5000 kubelets each watching its own node's pods, a pod event reaches one or two of them.
 */
export class Dispatcher {
  private readonly byKey = new Map<string, Set<CacheWatcher>>();
  private readonly byPrefix = new Map<string, Set<CacheWatcher>>();
  private readonly byIndex = new Map<string, Map<string, Set<CacheWatcher>>>();
  private readonly scopes = new Map<CacheWatcher, WatcherScope>();

  constructor(private readonly definition: ResourceDefinition) {}

  get size(): number {
    return this.scopes.size;
  }

  watchers(): IterableIterator<CacheWatcher> {
    return this.scopes.keys();
  }

  add(watcher: CacheWatcher, scope: WatcherScope): void {
    this.scopes.set(watcher, scope);
    switch (scope.kind) {
      case 'key':
        addTo(this.byKey, scope.key, watcher);
        break;
      case 'prefix':
        addTo(this.byPrefix, scope.prefix, watcher);
        break;
      case 'index': {
        let values = this.byIndex.get(scope.index);
        if (!values) this.byIndex.set(scope.index, (values = new Map<string, Set<CacheWatcher>>()));
        addTo(values, scope.value, watcher);
      }
    }
  }

  remove(watcher: CacheWatcher): void {
    const scope = this.scopes.get(watcher);
    if (!scope) return;
    this.scopes.delete(watcher);
    switch (scope.kind) {
      case 'key':
        removeFrom(this.byKey, scope.key, watcher);
        break;
      case 'prefix':
        removeFrom(this.byPrefix, scope.prefix, watcher);
        break;
      case 'index': {
        const values = this.byIndex.get(scope.index);
        if (values) removeFrom(values, scope.value, watcher);
      }
    }
  }

  /** Offers the event to every candidate; returns how many candidates there were. */
  dispatch(event: WatchCacheEvent, resourcePrefix: string): number {
    const groups: Set<CacheWatcher>[] = [];
    addGroup(groups, this.byKey.get(event.key));
    // Cluster-wide watchers are filed under the resource prefix; namespaced ones under theirs.
    addGroup(groups, this.byPrefix.get(resourcePrefix));
    const slash = event.key.indexOf('/', resourcePrefix.length);
    if (slash > 0) addGroup(groups, this.byPrefix.get(event.key.slice(0, slash + 1)));
    for (const [index, values] of this.byIndex) {
      const getter = this.definition.indexes[index];
      if (!getter) continue;
      for (const v of getter(event.object)) addGroup(groups, values.get(v));
      if (event.prevObject)
        for (const v of getter(event.prevObject)) addGroup(groups, values.get(v));
    }
    if (groups.length === 0) return 0;
    // One group (e.g. 1000 cluster-wide watchers): offered as it is, without a union to build.
    // A watcher the event ends leaves the set as it is iterated, which Set iteration allows.
    const candidates = groups.length === 1 ? groups[0]! : new Set(groups.flatMap((g) => [...g]));
    const size = candidates.size;
    for (const watcher of candidates) watcher.dispatch(event);
    return size;
  }
}

/** Adds a non-empty set of watchers (no closure per event: dispatch runs for every write). */
function addGroup(groups: Set<CacheWatcher>[], set: Set<CacheWatcher> | undefined): void {
  if (set?.size) groups.push(set);
}
