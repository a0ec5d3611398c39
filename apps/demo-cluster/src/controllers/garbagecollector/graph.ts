import type { KubeObject, OwnerReference } from '@listwatch/api';

// The dependency graph of kubernetes pkg/controller/garbagecollector (graph.go, and
// graph_builder.go processGraphChanges): one node per uid, owners as their references say,
// dependents as the reverse edges; an owner referenced before it is observed is a "virtual"
// node until an informer shows it or the collector finds it absent.

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** Where an object is and which one it is (graph.go objectReference). */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** '' for a cluster-scoped object. */
  namespace: string;
}

export function identityKey(identity: ObjectIdentity): string {
  return `${identity.apiVersion}/${identity.kind}, namespace: ${identity.namespace}, name: ${identity.name}, uid: ${identity.uid}`;
}

function sameIdentity(a: ObjectIdentity, b: ObjectIdentity): boolean {
  return identityKey(a) === identityKey(b);
}

export class GraphNode {
  readonly dependents = new Set<GraphNode>();
  owners: OwnerReference[];
  /** Seen through an informer; a virtual node is only referenced. */
  observed: boolean;
  beingDeleted = false;
  /** Being deleted with the foregroundDeletion finalizer: waits for its blocking dependents. */
  deletingDependents = false;

  constructor(
    public identity: ObjectIdentity,
    owners: OwnerReference[],
    observed: boolean,
  ) {
    this.owners = owners;
    this.observed = observed;
  }

  /** Dependents whose reference to this node has blockOwnerDeletion (node.blockingDependents). */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((dep) =>
      dep.owners.some((ref) => ref.uid === this.identity.uid && ref.blockOwnerDeletion === true),
    );
  }
}

/** What a change to the graph asks of the collector's two queues. */
export interface GraphQueues {
  attemptToDelete(node: GraphNode): void;
  attemptToOrphan(node: GraphNode): void;
}

function hasFinalizer(obj: KubeObject | undefined, finalizer: string): boolean {
  return obj?.metadata.finalizers?.includes(finalizer) ?? false;
}

function beingDeleted(obj: KubeObject | undefined): boolean {
  return obj?.metadata.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null;
}

/** The new object is being deleted with `finalizer`; the old one was not (deletionStartsWithFinalizer). */
function deletionStartsWithFinalizer(
  oldObj: KubeObject | undefined,
  newObj: KubeObject,
  finalizer: string,
): boolean {
  if (!beingDeleted(newObj) || !hasFinalizer(newObj, finalizer)) return false;
  return oldObj === undefined || !beingDeleted(oldObj) || !hasFinalizer(oldObj, finalizer);
}

/** References added, removed, or changed (same uid, other fields) between two lists (referencesDiffs). */
function referencesDiffs(
  old: readonly OwnerReference[],
  next: readonly OwnerReference[],
): {
  added: OwnerReference[];
  removed: OwnerReference[];
  changed: { old: OwnerReference; next: OwnerReference }[];
} {
  const oldByUid = new Map(old.map((ref) => [ref.uid, ref]));
  const added: OwnerReference[] = [];
  const changed: { old: OwnerReference; next: OwnerReference }[] = [];
  for (const ref of next) {
    const before = oldByUid.get(ref.uid);
    if (!before) added.push(ref);
    else {
      if (JSON.stringify(before) !== JSON.stringify(ref)) changed.push({ old: before, next: ref });
      oldByUid.delete(ref.uid);
    }
  }
  return { added, removed: [...oldByUid.values()], changed };
}

/** A small LRU of owners known to be absent (graph_builder.go absentOwnerCache). */
export class AbsentOwnerCache {
  private readonly keys = new Map<string, true>();
  constructor(private readonly size = 500) {}

  add(identity: ObjectIdentity): void {
    const key = identityKey(identity);
    this.keys.delete(key);
    this.keys.set(key, true);
    if (this.keys.size > this.size) {
      const oldest = this.keys.keys().next();
      if (!oldest.done) this.keys.delete(oldest.value);
    }
  }

  has(identity: ObjectIdentity): boolean {
    return this.keys.has(identityKey(identity));
  }
}

/**
 * The graph and the rules that keep it (graph_builder.go processGraphChanges). Informer events
 * arrive one at a time; JavaScript runs each to completion, as the builder's single goroutine.
 */
export class DependencyGraph {
  private readonly nodes = new Map<string, GraphNode>();
  readonly absentOwners = new AbsentOwnerCache();

  constructor(private readonly queues: GraphQueues) {}

  node(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  get size(): number {
    return this.nodes.size;
  }

  /** An object added or updated, as an informer of `identity`'s resource saw it. */
  observe(identity: ObjectIdentity, obj: KubeObject, oldObj?: KubeObject): void {
    const existing = this.nodes.get(identity.uid);
    if (existing && !existing.observed) {
      // A virtual node turns out to exist; dependents that named it otherwise are rechecked.
      if (!sameIdentity(existing.identity, identity)) {
        for (const dep of existing.dependents) {
          const ref = dep.owners.find((r) => r.uid === identity.uid);
          if (
            ref &&
            (ref.apiVersion !== identity.apiVersion ||
              ref.kind !== identity.kind ||
              ref.name !== identity.name)
          )
            this.queues.attemptToDelete(dep);
        }
        existing.identity = identity;
      }
      existing.observed = true;
    }
    const owners = [...(obj.metadata.ownerReferences ?? [])];
    if (!existing) {
      const node = new GraphNode(identity, owners, true);
      node.beingDeleted = beingDeleted(obj);
      node.deletingDependents = node.beingDeleted && hasFinalizer(obj, FOREGROUND_FINALIZER);
      this.nodes.set(identity.uid, node);
      this.addDependentToOwners(node, owners);
      this.processTransitions(oldObj, obj, node);
      return;
    }
    const { added, removed, changed } = referencesDiffs(existing.owners, owners);
    if (added.length + removed.length + changed.length > 0) {
      // A dependent that stops blocking may unblock an owner deleting in the foreground.
      this.addUnblockedOwnersToDeleteQueue(removed, changed);
      existing.owners = owners;
      this.addDependentToOwners(existing, added);
      this.removeDependentFromOwners(existing, removed);
    }
    if (beingDeleted(obj)) existing.beingDeleted = true;
    this.processTransitions(oldObj, obj, existing);
  }

  /** An object deleted, as an informer saw it. */
  observeDeletion(identity: ObjectIdentity): void {
    const existing = this.nodes.get(identity.uid);
    if (!existing) return;
    this.removeNode(existing);
  }

  /**
   * The collector found `identity` absent from the apiserver (a virtual delete event). Only a
   * virtual node goes; an observed one is the informers' to remove.
   */
  verifiedAbsent(identity: ObjectIdentity): void {
    const existing = this.nodes.get(identity.uid);
    if (!existing) return;
    if (existing.observed) {
      // The observed object is another identity: its dependents naming this one are rechecked.
      if (!sameIdentity(existing.identity, identity)) {
        this.absentOwners.add(identity);
        for (const dep of existing.dependents) this.queues.attemptToDelete(dep);
      }
      return;
    }
    this.absentOwners.add(identity);
    this.removeNode(existing);
  }

  private removeNode(node: GraphNode): void {
    this.nodes.delete(node.identity.uid);
    this.removeDependentFromOwners(node, node.owners);
    if (node.dependents.size > 0) this.absentOwners.add(node.identity);
    for (const dep of node.dependents) this.queues.attemptToDelete(dep);
    for (const owner of node.owners) {
      const ownerNode = this.nodes.get(owner.uid);
      // The owner may be waiting for this one to go.
      if (ownerNode?.deletingDependents) this.queues.attemptToDelete(ownerNode);
    }
  }

  private addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const ref of owners) {
      let ownerNode = this.nodes.get(ref.uid);
      if (!ownerNode) {
        // Not seen yet: a virtual node the collector checks against the apiserver.
        ownerNode = new GraphNode(
          {
            apiVersion: ref.apiVersion,
            kind: ref.kind,
            name: ref.name,
            uid: ref.uid,
            namespace: node.identity.namespace,
          },
          [],
          false,
        );
        this.nodes.set(ref.uid, ownerNode);
        this.queues.attemptToDelete(ownerNode);
      }
      ownerNode.dependents.add(node);
    }
  }

  private removeDependentFromOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const ref of owners) this.nodes.get(ref.uid)?.dependents.delete(node);
  }

  private addUnblockedOwnersToDeleteQueue(
    removed: readonly OwnerReference[],
    changed: readonly { old: OwnerReference; next: OwnerReference }[],
  ): void {
    const unblocked = [
      ...removed.filter((ref) => ref.blockOwnerDeletion === true),
      ...changed
        .filter(
          ({ old, next }) => old.blockOwnerDeletion === true && next.blockOwnerDeletion !== true,
        )
        .map(({ next }) => next),
    ];
    for (const ref of unblocked) {
      const owner = this.nodes.get(ref.uid);
      if (owner?.deletingDependents) this.queues.attemptToDelete(owner);
    }
  }

  /** A deletion that starts with a GC finalizer sets the collector to work (processTransitions). */
  private processTransitions(
    oldObj: KubeObject | undefined,
    obj: KubeObject,
    node: GraphNode,
  ): void {
    if (deletionStartsWithFinalizer(oldObj, obj, ORPHAN_FINALIZER)) {
      this.queues.attemptToOrphan(node);
      return;
    }
    if (deletionStartsWithFinalizer(oldObj, obj, FOREGROUND_FINALIZER)) {
      node.deletingDependents = true;
      for (const dep of node.dependents) this.queues.attemptToDelete(dep);
      this.queues.attemptToDelete(node);
    }
  }
}
