import type { KubeObject } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import { Deque } from '../util/deque.js';
import { FifoState } from './fifo-state.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import type { Delta, DeltaType, Deltas } from './delta.js';
import { metaNamespaceKeyFunc, type KeyFunc } from './key-func.js';
import { FIFOClosedError, type PopProcessFunc, type Queue, type TransformFunc } from './queue.js';
import type { KeyListerGetter } from './store.js';

export interface RealFIFOOptions<T extends KubernetesObject = KubeObject> {
  /** Defaults to metaNamespaceKeyFunc. */
  keyFunction?: KeyFunc<T>;
  /** The consumer's store: required, as replace and resync are defined against it. */
  knownObjects: KeyListerGetter<T>;
  transformer?: TransformFunc<T>;
}

/**
 * client-go's RealFIFO (tools/cache/the_real_fifo.go, the informer default since 1.33): every
 * notification is delivered, one per pop, in the order it arrived — nothing is coalesced, so
 * handlers see intermediate states and deletions of objects they never saw settle. In-order
 * delivery is what makes an informer's event stream reason-able; prefer it to DeltaFIFO.
 */
export class RealFIFO<T extends KubernetesObject = KubeObject>
  extends FifoState
  implements Queue<T>
{
  private readonly items = new Deque<Delta<T>>();
  /**
   * The key of each queued item, in step with `items`: computed once, when it is queued, and
   * handed to the consumer with it (undefined where a transform ran after it was computed).
   */
  private readonly keys = new Deque<string | undefined>();
  private readonly keyFunc: KeyFunc<T>;
  private readonly knownObjects: KeyListerGetter<T>;
  private readonly transformer: TransformFunc<T> | undefined;

  constructor(options: RealFIFOOptions<T>) {
    super();
    this.keyFunc = options.keyFunction ?? metaNamespaceKeyFunc;
    this.knownObjects = options.knownObjects;
    this.transformer = options.transformer;
  }

  keyOf(obj: T | DeletedFinalStateUnknown<T>): string {
    return obj instanceof DeletedFinalStateUnknown ? obj.key : this.keyFunc(obj);
  }

  add(obj: T): void {
    this.populated = true;
    this.append('Added', obj, false);
  }

  update(obj: T): void {
    this.populated = true;
    this.append('Updated', obj, false);
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.populated = true;
    this.append('Deleted', obj, false);
  }

  /**
   * Tombstones first — for queued keys missing from the list, then for known keys missing from
   * it — then `Replaced` for every listed object (client-go reconcileReplacement).
   */
  replace(list: readonly T[], _resourceVersion: string): void {
    const lastQueued = new Map<string, Delta<T>>();
    for (const item of this.items) lastQueued.set(this.keyOf(item.object), item);
    const knownKeys = this.knownObjects.listKeys();
    // Only what is queued or stored can have vanished (on the first list, nothing): the listed
    // keys are kept only then. Every key is computed before anything is queued, so a bad object
    // fails the whole replace.
    const listed = list.map((obj) => this.keyOf(obj));
    const newKeys = lastQueued.size > 0 || knownKeys.length > 0 ? new Set(listed) : undefined;

    const tombstones: DeletedFinalStateUnknown<T>[] = [];
    if (newKeys) {
      for (const [key, last] of lastQueued) {
        // A queued delete already tells the consumer; a second one would be a duplicate.
        if (newKeys.has(key) || last.type === 'Deleted') continue;
        tombstones.push(new DeletedFinalStateUnknown(key, last.object));
      }
      for (const key of knownKeys) {
        if (newKeys.has(key) || lastQueued.has(key)) continue;
        tombstones.push(new DeletedFinalStateUnknown(key, this.knownObjects.getByKey(key)));
      }
    }

    for (const tombstone of tombstones) this.append('Deleted', tombstone, true);
    for (let i = 0; i < list.length; i++) this.queue('Replaced', list[i]!, false, listed[i]!);

    if (!this.populated) {
      this.initialPopulationCount = this.items.length;
      this.populated = true;
    }
  }

  resync(): void {
    const queued = new Set<string>();
    for (const item of this.items) queued.add(this.keyOf(item.object));
    for (const key of this.knownObjects.listKeys()) {
      // A queued change is newer than the store's copy; don't deliver the older state after it.
      if (queued.has(key)) continue;
      const obj = this.knownObjects.getByKey(key);
      if (obj !== undefined) this.append('Sync', obj, true);
    }
  }

  async pop(process: PopProcessFunc<T>): Promise<Deltas<T>> {
    while (this.items.length === 0) {
      if (this.closed) throw new FIFOClosedError();
      await this.cond.wait();
    }
    return this.tryPop(process)!;
  }

  /**
   * pop without waiting: processes the next queued notification at once and returns it, or
   * returns undefined when nothing is queued. Throws what `process` throws.
   */
  tryPop(process: PopProcessFunc<T>): Deltas<T> | undefined {
    if (this.items.length === 0) return undefined;
    const isInInitialList = !this.hasSynced();
    const item = this.items.shift() as Delta<T>;
    const key = this.keys.shift();
    if (this.initialPopulationCount > 0) this.initialPopulationCount--;
    const deltas: Deltas<T> = [item];
    return this.deliver(process, deltas, isInInitialList, key);
  }

  /** The number of queued notifications. */
  len(): number {
    return this.items.length;
  }

  private append(
    type: DeltaType,
    input: T | DeletedFinalStateUnknown<T>,
    skipTransform: boolean,
  ): void {
    // The key must be computable, or replace could not reconcile this item later.
    this.queue(type, input, skipTransform, this.keyOf(input));
  }

  /** append for an object whose key is known. */
  private queue(
    type: DeltaType,
    input: T | DeletedFinalStateUnknown<T>,
    skipTransform: boolean,
    key: string,
  ): void {
    let obj = input;
    let deliveredKey: string | undefined = key;
    if (this.transformer && !skipTransform && !(obj instanceof DeletedFinalStateUnknown)) {
      obj = this.transformer(obj);
      // What the key function would make of the transformed object is the consumer's to compute.
      deliveredKey = undefined;
    }
    this.items.push({ type, object: obj } as Delta<T>);
    this.keys.push(deliveredKey);
    this.cond.broadcast();
  }
}
