/**
 * What a controller is still waiting to see in its informer after its own writes (kube
 * pkg/controller/controller_utils.go UIDTrackingControllerExpectations). Informers lag behind
 * the apiserver: without this, a sync right after creating three pods would still count the old
 * pods and create three more. Creations are counted; deletions are tracked by pod key, so a
 * pod someone else deleted does not count as one of ours. Expectations expire after five
 * minutes, in case a watch event is never seen.
 */
export class ControllerExpectations {
  private readonly records = new Map<
    string,
    { adds: number; deletes: Set<string>; timestamp: number }
  >();

  constructor(
    private readonly ttlMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when the controller may act on `key`: nothing pending, expired or never set. */
  satisfied(key: string): boolean {
    const record = this.records.get(key);
    if (!record) return true;
    if (record.adds <= 0 && record.deletes.size === 0) return true;
    return this.now() - record.timestamp > this.ttlMs;
  }

  expectCreations(key: string, count: number): void {
    this.records.set(key, { adds: count, deletes: new Set(), timestamp: this.now() });
  }

  expectDeletions(key: string, podKeys: readonly string[]): void {
    this.records.set(key, { adds: 0, deletes: new Set(podKeys), timestamp: this.now() });
  }

  /** A pod of `key` was seen created, or a creation failed and will never be seen. */
  creationObserved(key: string): void {
    const record = this.records.get(key);
    if (record) record.adds--;
  }

  /** The pod `podKey` of `key` was seen deleted, or its deletion failed. */
  deletionObserved(key: string, podKey: string): void {
    this.records.get(key)?.deletes.delete(podKey);
  }

  /** The owner is gone: forget it. */
  delete(key: string): void {
    this.records.delete(key);
  }
}
