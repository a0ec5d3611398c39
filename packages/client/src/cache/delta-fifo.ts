import { ApiError, type KubeObject } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import { Deque } from '../util/deque.js';
import { FifoState } from './fifo-state.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { newestDelta, type Delta, type DeltaType, type Deltas } from './delta.js';
import { metaNamespaceKeyFunc, type KeyFunc } from './key-func.js';
import { FIFOClosedError, type PopProcessFunc, type Queue, type TransformFunc } from './queue.js';
import type { KeyListerGetter } from './store.js';

export interface DeltaFIFOOptions<T extends KubernetesObject = KubeObject> {
  /** Defaults to metaNamespaceKeyFunc. */
  keyFunction?: KeyFunc<T>;
  /**
   * The consumer's store (the informer's indexer): lets replace detect deletions of objects
   * already popped, and resync re-deliver them. Without it only queued keys are considered.
   */
  knownObjects?: KeyListerGetter<T>;
  transformer?: TransformFunc<T>;
}

/**
 * client-go's DeltaFIFO (tools/cache/delta_fifo.go): one entry per key holding every change
 * since the key was last popped, keys popped in the order they were first queued. A consumer
 * sees the whole history of an object at once and never two entries for the same key; the
 * price is that changes to different keys are not delivered in the order they happened
 * (RealFIFO keeps that order).
 */
export class DeltaFIFO<T extends KubernetesObject = KubeObject>
  extends FifoState
  implements Queue<T>
{
  /** Invariant: a key is in `queue` exactly when it has a non-empty entry in `items`. */
  private readonly items = new Map<string, Delta<T>[]>();
  private readonly queue = new Deque<string>();
  private readonly keyFunc: KeyFunc<T>;
  private readonly knownObjects: KeyListerGetter<T> | undefined;
  private readonly transformer: TransformFunc<T> | undefined;

  constructor(options: DeltaFIFOOptions<T> = {}) {
    super();
    this.keyFunc = options.keyFunction ?? metaNamespaceKeyFunc;
    this.knownObjects = options.knownObjects;
    this.transformer = options.transformer;
  }

  /** The key of an object, a tombstone or a Deltas (its newest object). */
  keyOf(obj: T | DeletedFinalStateUnknown<T> | Deltas<T>): string {
    if (Array.isArray(obj)) {
      const newest = newestDelta(obj as Deltas<T>);
      if (!newest) throw ApiError.badRequest("0 length Deltas object; can't get key");
      return this.keyOf(newest.object);
    }
    if (obj instanceof DeletedFinalStateUnknown) return obj.key;
    return this.keyFunc(obj as T);
  }

  add(obj: T): void {
    this.populated = true;
    this.queueAction('Added', obj);
  }

  update(obj: T): void {
    this.populated = true;
    this.queueAction('Updated', obj);
  }

  /**
   * Queues a deletion, unless the key is neither queued nor known: then a relist already
   * reported it and a second report would be a duplicate.
   */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const id = this.keyOf(obj);
    this.populated = true;
    const queued = this.items.has(id);
    if (this.knownObjects === undefined) {
      if (!queued) return;
    } else if (!queued && this.knownObjects.getByKey(id) === undefined) {
      return;
    }
    this.queueAction('Deleted', obj);
  }

  replace(list: readonly T[], _resourceVersion: string): void {
    // Keys first, so an object without a key fails the call before anything is queued.
    const keyed = list.map((obj) => [this.keyOf(obj), obj] as const);
    const keys = new Set(keyed.map(([key]) => key));
    for (const [, obj] of keyed) this.queueAction('Replaced', obj);

    // Queued keys missing from the list: their delete was missed while disconnected.
    let queuedDeletions = 0;
    for (const [key, deltas] of this.items) {
      if (keys.has(key)) continue;
      let last = newestDelta(deltas)?.object;
      if (last instanceof DeletedFinalStateUnknown) last = last.obj;
      queuedDeletions++;
      this.queueAction('Deleted', new DeletedFinalStateUnknown(key, last));
    }

    // Known keys missing from the list and not queued: deleted after we last popped them.
    if (this.knownObjects) {
      for (const key of this.knownObjects.listKeys()) {
        if (keys.has(key) || (this.items.get(key)?.length ?? 0) > 0) continue;
        queuedDeletions++;
        this.queueAction(
          'Deleted',
          new DeletedFinalStateUnknown(key, this.knownObjects.getByKey(key)),
        );
      }
    }

    if (!this.populated) {
      this.initialPopulationCount = keys.size + queuedDeletions;
      this.populated = true;
    }
  }

  resync(): void {
    if (!this.knownObjects) return;
    for (const key of this.knownObjects.listKeys()) {
      // A pending change is newer than the store's copy; syncing the store's copy now would
      // deliver the older state after it.
      if ((this.items.get(key)?.length ?? 0) > 0) continue;
      const obj = this.knownObjects.getByKey(key);
      if (obj !== undefined) this.queueAction('Sync', obj);
    }
  }

  async pop(process: PopProcessFunc<T>): Promise<Deltas<T>> {
    for (;;) {
      while (this.queue.length === 0) {
        if (this.closed) throw new FIFOClosedError();
        await this.cond.wait();
      }
      const popped = this.tryPop(process);
      if (popped !== undefined) return popped;
    }
  }

  /**
   * pop without waiting: processes the next queued key at once and returns its deltas, or
   * returns undefined when nothing is queued. Throws what `process` throws.
   */
  tryPop(process: PopProcessFunc<T>): Deltas<T> | undefined {
    while (this.queue.length > 0) {
      const isInInitialList = !this.hasSynced();
      const id = this.queue.shift() as string;
      if (this.initialPopulationCount > 0) this.initialPopulationCount--;
      const deltas = this.items.get(id);
      if (deltas === undefined) {
        this.announceSync();
        continue;
      }
      this.items.delete(id);
      // A transform may change what the key function sees: then the consumer computes it.
      return this.deliver(process, deltas, isInInitialList, this.transformer ? undefined : id);
    }
    return undefined;
  }

  /** The newest object of every queued key. */
  list(): (T | DeletedFinalStateUnknown<T>)[] {
    const out: (T | DeletedFinalStateUnknown<T>)[] = [];
    for (const deltas of this.items.values()) {
      const newest = newestDelta(deltas);
      if (newest) out.push(newest.object);
    }
    return out;
  }

  /** The number of queued keys. */
  len(): number {
    return this.queue.length;
  }

  /** Queued keys, in pop order. */
  listKeys(): string[] {
    return [...this.queue];
  }

  /** A copy of the pending deltas of a key. */
  getByKey(key: string): Deltas<T> | undefined {
    const deltas = this.items.get(key);
    return deltas === undefined ? undefined : [...deltas];
  }

  private queueAction(type: DeltaType, input: T | DeletedFinalStateUnknown<T>): void {
    const id = this.keyOf(input);
    const existing = this.items.get(id);
    // A Sync after a pending Deleted would resurrect the object.
    if (type === 'Sync' && existing !== undefined && newestDelta(existing)?.type === 'Deleted') {
      return;
    }
    let obj = input;
    // Tombstones hold already-transformed objects; Sync re-delivers the store's own copy.
    if (this.transformer && type !== 'Sync' && !(obj instanceof DeletedFinalStateUnknown)) {
      obj = this.transformer(obj);
    }
    const delta = { type, object: obj } as Delta<T>;
    if (existing === undefined) {
      this.items.set(id, [delta]);
      this.queue.push(id);
    } else {
      existing.push(delta);
      dedupDeltas(existing);
    }
    this.cond.broadcast();
  }
}

/**
 * Relists and watches can report the same deletion twice; the last two deltas collapse into one
 * when both are deletions, keeping the one that carries the real object rather than a tombstone
 * (client-go dedupDeltas / isDeletionDup).
 */
function dedupDeltas<T extends KubernetesObject>(deltas: Delta<T>[]): void {
  const n = deltas.length;
  if (n < 2) return;
  const a = deltas[n - 1] as Delta<T>;
  const b = deltas[n - 2] as Delta<T>;
  if (a.type !== 'Deleted' || b.type !== 'Deleted') return;
  const keep = b.object instanceof DeletedFinalStateUnknown ? a : b;
  deltas.splice(n - 2, 2, keep);
}
