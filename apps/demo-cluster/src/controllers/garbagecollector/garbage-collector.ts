import {
  isApiError,
  qualifiedResource,
  type KubeObject,
  type OwnerReference,
} from '@listwatch/api';
import {
  Controller,
  deletedObject,
  SharedInformerFactory,
  silentLogger,
  type HandlerRegistration,
  type Logger,
  type ResourceClient,
  type RestClient,
} from '@listwatch/client';
import {
  apiVersionOf,
  RestMapper,
  serverPreferredResources,
  withVerbs,
  type ApiResource,
} from '../discovery.js';
import {
  DependencyGraph,
  FOREGROUND_FINALIZER,
  ORPHAN_FINALIZER,
  type GraphNode,
  type ObjectIdentity,
} from './graph.js';

// Follows kubernetes pkg/controller/garbagecollector/garbagecollector.go: the graph builder's
// informers watch every deletable resource (metadata only); attemptToDelete deletes dependents
// whose owners are all gone and finishes foreground deletions; attemptToOrphan removes an
// owner's references from its dependents, then the owner's `orphan` finalizer. Sync
// rediscovers the resources periodically and whenever a CustomResourceDefinition changes, and
// starts or stops monitors to match (garbagecollector.go Sync, graph_builder.go syncMonitors).

/** Resources the collector never watches (garbagecollector.go DefaultIgnoredResources). */
const IGNORED_RESOURCES = new Set(['events', 'events.events.k8s.io']);

/** Requeue delay while a node the collector acted on is not yet seen by an informer. */
const UNOBSERVED_REQUEUE_MS = 1000;

/** How long after a CRD event discovery is asked again (its Established status comes later). */
const CRD_SETTLE_MS = 200;

/** apiextensions.k8s.io/v1 CustomResourceDefinitions: a change may change discovery. */
const CRDS = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  namespaced: false,
} as const;

/** One resource's monitor: its own informer, so it can stop when the resource goes. */
interface Monitor {
  factory: SharedInformerFactory;
  registration: HandlerRegistration;
}

const monitorKey = (r: ApiResource) => `${apiVersionOf(r)}/${r.plural}`;

export interface GarbageCollectorOptions {
  client: RestClient;
  /** Parallel attemptToDelete workers (--concurrent-gc-syncs; kube's default is 20). */
  workers?: number;
  /** How often discovery is asked again (kube-controller-manager: 30 s). */
  discoveryPeriodMs?: number;
  logger?: Logger;
}

/** Leaves a reconcile whose node turned out absent: nothing to retry (enqueuedVirtualDeleteEventErr). */
class VerifiedAbsent extends Error {}

/** Only what the collector reads: identity, owners, finalizers, deletion state. */
function metadataOnly(obj: KubeObject): KubeObject {
  const { name, namespace, uid, resourceVersion, ownerReferences, finalizers, deletionTimestamp } =
    obj.metadata;
  return {
    metadata: {
      ...(name !== undefined ? { name } : {}),
      ...(namespace !== undefined ? { namespace } : {}),
      ...(uid !== undefined ? { uid } : {}),
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      ...(ownerReferences !== undefined ? { ownerReferences } : {}),
      ...(finalizers !== undefined ? { finalizers } : {}),
      ...(deletionTimestamp !== undefined ? { deletionTimestamp } : {}),
    },
  };
}

function isNotFound(err: unknown): boolean {
  return isApiError(err) && err.code === 404;
}

export class GarbageCollector {
  private readonly client: RestClient;
  private readonly logger: Logger;
  private readonly graph: DependencyGraph;
  private readonly deleteQueue: Controller<string>;
  private readonly orphanQueue: Controller<string>;
  private readonly monitors = new Map<string, Monitor>();
  private readonly discoveryPeriodMs: number;
  private mapper = new RestMapper([]);
  private syncing: Promise<void> = Promise.resolve();

  constructor(options: GarbageCollectorOptions) {
    this.client = options.client;
    this.discoveryPeriodMs = options.discoveryPeriodMs ?? 30_000;
    this.logger = options.logger ?? silentLogger;
    this.graph = new DependencyGraph({
      attemptToDelete: (node) => this.deleteQueue.enqueue(node.identity.uid),
      attemptToOrphan: (node) => this.orphanQueue.enqueue(node.identity.uid),
    });
    const synced = {
      hasSynced: () => [...this.monitors.values()].every((m) => m.registration.hasSynced()),
    };
    this.deleteQueue = new Controller<string>({
      name: 'garbagecollector-attempt-to-delete',
      workers: options.workers ?? 4,
      logger: this.logger,
      reconcile: (uid) => this.attemptToDeleteWorker(uid),
      cacheSyncs: [synced],
    });
    this.orphanQueue = new Controller<string>({
      name: 'garbagecollector-attempt-to-orphan',
      workers: 1,
      logger: this.logger,
      reconcile: (uid) => this.attemptToOrphanWorker(uid),
      cacheSyncs: [synced],
    });
  }

  /** Discovers the deletable resources, watches them, and collects until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    await this.resync();
    const period = setInterval(() => void this.sync(), this.discoveryPeriodMs);
    // A CRD created, established or deleted changes discovery: look again soon after.
    const crds = new SharedInformerFactory({
      client: this.client,
      logger: this.logger,
      transform: metadataOnly,
    });
    let settle: NodeJS.Timeout | undefined;
    const soon = () => {
      clearTimeout(settle);
      settle = setTimeout(() => void this.sync(), CRD_SETTLE_MS);
    };
    crds.informerFor(CRDS).addEventHandler({ onAdd: soon, onUpdate: soon, onDelete: soon });
    crds.start();
    try {
      await Promise.all([this.deleteQueue.run(signal), this.orphanQueue.run(signal)]);
    } finally {
      clearInterval(period);
      clearTimeout(settle);
      await this.syncing;
      await crds.shutdown();
      await Promise.all([...this.monitors.values()].map((m) => m.factory.shutdown()));
      this.monitors.clear();
    }
  }

  /** One Sync at a time; a failed discovery keeps the monitors as they are until the next. */
  private sync(): Promise<void> {
    this.syncing = this.syncing
      .then(() => this.resync())
      .catch((err: unknown) => {
        this.logger.error('garbage collector: discovery failed', {
          error: err instanceof Error ? err.message : String(err),
        });
      });
    return this.syncing;
  }

  /**
   * garbagecollector.go Sync: the deletable resources now served, a RESTMapper of them, and a
   * monitor for each — new ones started, those of resources gone stopped (syncMonitors).
   */
  private async resync(): Promise<void> {
    const all = await serverPreferredResources(this.client);
    this.mapper = new RestMapper(all);
    const wanted = new Map<string, ApiResource>();
    for (const resource of withVerbs(all, ['list', 'watch', 'delete'])) {
      const qualified = qualifiedResource(resource);
      if (!IGNORED_RESOURCES.has(qualified)) wanted.set(monitorKey(resource), resource);
    }
    for (const [key, monitor] of this.monitors) {
      if (wanted.has(key)) continue;
      this.monitors.delete(key);
      await monitor.factory.shutdown();
    }
    for (const [key, resource] of wanted) {
      if (this.monitors.has(key)) continue;
      this.monitors.set(key, this.monitor(resource));
    }
  }

  /** The graph builder's monitor of one resource, started: its events change the graph. */
  private monitor(resource: ApiResource): Monitor {
    const factory = new SharedInformerFactory({
      client: this.client,
      logger: this.logger,
      transform: metadataOnly,
    });
    const apiVersion = apiVersionOf(resource);
    const identity = (obj: KubeObject): ObjectIdentity => ({
      apiVersion,
      kind: resource.kind,
      name: obj.metadata.name ?? '',
      uid: obj.metadata.uid ?? '',
      namespace: obj.metadata.namespace ?? '',
    });
    const registration = factory.informerFor(resource).addEventHandler({
      onAdd: (obj) => this.graph.observe(identity(obj), obj),
      onUpdate: (oldObj, newObj) => this.graph.observe(identity(newObj), newObj, oldObj),
      onDelete: (obj) => {
        const object = deletedObject(obj);
        if (object) this.graph.observeDeletion(identity(object));
      },
    });
    factory.start();
    return { factory, registration };
  }

  /** The resources monitored now, as `<apiVersion>/<plural>` (tests watch Sync catch up). */
  monitoredResources(): string[] {
    return [...this.monitors.keys()];
  }

  /** Whether the graph holds `uid` (tests watch the collector catch up). */
  hasNode(uid: string): boolean {
    return this.graph.node(uid) !== undefined;
  }

  private resourceClient(
    identity: Pick<ObjectIdentity, 'apiVersion' | 'kind' | 'namespace'>,
  ): ResourceClient {
    const resource = this.mapper.resourceFor(identity.apiVersion, identity.kind);
    if (!resource)
      throw new Error(`unable to get REST mapping for ${identity.apiVersion}/${identity.kind}`);
    const client = this.client.resource(resource);
    return resource.namespaced ? client.namespace(identity.namespace) : client;
  }

  private getObject(identity: ObjectIdentity): Promise<KubeObject> {
    return this.resourceClient(identity).get(identity.name);
  }

  /** garbagecollector.go attemptToDeleteWorker. */
  private async attemptToDeleteWorker(uid: string): Promise<void> {
    const node = this.graph.node(uid);
    if (!node) return;
    try {
      await this.attemptToDeleteItem(node);
    } catch (err) {
      if (err instanceof VerifiedAbsent) return;
      throw err;
    }
    // A node acted on before any informer saw it is looked at again (kubernetes issue 56121).
    if (!node.observed && this.graph.node(uid) === node)
      this.deleteQueue.queue.addAfter(uid, UNOBSERVED_REQUEUE_MS);
  }

  /** garbagecollector.go attemptToDeleteItem. */
  private async attemptToDeleteItem(item: GraphNode): Promise<void> {
    // Someone else deletes it; a foreground deletion is finished here.
    if (item.beingDeleted && !item.deletingDependents) return;
    let latest: KubeObject;
    try {
      latest = await this.getObject(item.identity);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.graph.verifiedAbsent(item.identity);
      throw new VerifiedAbsent();
    }
    if (latest.metadata.uid !== item.identity.uid) {
      this.graph.verifiedAbsent(item.identity);
      throw new VerifiedAbsent();
    }
    if (item.deletingDependents) return this.processDeletingDependentsItem(item);
    const references = latest.metadata.ownerReferences ?? [];
    if (references.length === 0) return;
    const { solid, dangling, waiting } = await this.classifyReferences(item, references);
    if (solid.length > 0) {
      // Kept by a live owner: only the references to gone or foreground-deleting owners go.
      if (dangling.length === 0 && waiting.length === 0) return;
      await this.removeOwnerReferences(
        item,
        [...dangling, ...waiting].map((r) => r.uid),
      );
      return;
    }
    if (waiting.length > 0 && item.dependents.size > 0) {
      // An owner waits in the foreground: this one goes the same way, its dependents first.
      if ([...item.dependents].some((dep) => dep.deletingDependents)) {
        // A cycle: stop blocking, or neither could finish (unblockOwnerReferences).
        await this.unblockOwnerReferences(item, latest);
      }
      await this.deleteObject(item.identity, 'Foreground');
      return;
    }
    // No live owner and none waiting: collected, the way the item's own finalizers ask.
    const finalizers = latest.metadata.finalizers ?? [];
    const policy = finalizers.includes(ORPHAN_FINALIZER)
      ? 'Orphan'
      : finalizers.includes(FOREGROUND_FINALIZER)
        ? 'Foreground'
        : 'Background';
    await this.deleteObject(item.identity, policy);
  }

  /** Solid, dangling and foreground-waiting owner references of an item (classifyReferences). */
  private async classifyReferences(
    item: GraphNode,
    references: readonly OwnerReference[],
  ): Promise<{ solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[] }> {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of references) {
      const owner = await this.ownerOf(item, ref);
      if (!owner) dangling.push(ref);
      else if (
        owner.metadata.deletionTimestamp &&
        owner.metadata.finalizers?.includes(FOREGROUND_FINALIZER)
      )
        waiting.push(ref);
      else solid.push(ref);
    }
    return { solid, dangling, waiting };
  }

  /** The live owner a reference names, or undefined when it is gone or another uid (isDangling). */
  private async ownerOf(item: GraphNode, ref: OwnerReference): Promise<KubeObject | undefined> {
    const coordinates = {
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      name: ref.name,
      uid: ref.uid,
    };
    if (this.graph.absentOwners.has({ ...coordinates, namespace: '' })) return undefined;
    if (this.graph.absentOwners.has({ ...coordinates, namespace: item.identity.namespace }))
      return undefined;
    const resource = this.mapper.resourceFor(ref.apiVersion, ref.kind);
    if (!resource) throw new Error(`unable to get REST mapping for ${ref.apiVersion}/${ref.kind}`);
    const identity: ObjectIdentity = {
      ...coordinates,
      namespace: resource.namespaced ? item.identity.namespace : '',
    };
    try {
      const owner = await this.getObject(identity);
      if (owner.metadata.uid === ref.uid) return owner;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    this.graph.absentOwners.add(identity);
    return undefined;
  }

  /** processDeletingDependentsItem: the foreground finalizer goes once no dependent blocks. */
  private async processDeletingDependentsItem(item: GraphNode): Promise<void> {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      await this.removeFinalizer(item, FOREGROUND_FINALIZER);
      return;
    }
    for (const dep of blocking)
      if (!dep.deletingDependents) this.deleteQueue.enqueue(dep.identity.uid);
  }

  private async deleteObject(
    identity: ObjectIdentity,
    propagationPolicy: 'Orphan' | 'Foreground' | 'Background',
  ): Promise<void> {
    this.logger.info('garbage collector deleting', {
      object: `${identity.kind} ${identity.namespace}/${identity.name}`,
      propagationPolicy,
    });
    try {
      await this.resourceClient(identity).delete(identity.name, {
        propagationPolicy,
        preconditions: { uid: identity.uid },
      });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /**
   * Patches a dependent (garbagecollector.go patch): a strategic merge patch that deletes the
   * references by uid, or, where the resource takes none (415, custom resources), a JSON merge
   * patch of the remaining references guarded by resourceVersion.
   */
  private async removeOwnerReferences(
    item: GraphNode,
    ownerUids: readonly string[],
  ): Promise<void> {
    const client = this.resourceClient(item.identity);
    try {
      await client.patch(
        item.identity.name,
        {
          metadata: {
            ownerReferences: ownerUids.map((uid) => ({ $patch: 'delete', uid })),
            uid: item.identity.uid,
          },
        },
        'strategic',
      );
    } catch (err) {
      if (isNotFound(err)) return;
      if (!isApiError(err) || err.code !== 415) throw err;
      const latest = await client.get(item.identity.name);
      if (latest.metadata.uid !== item.identity.uid) return;
      const remaining = (latest.metadata.ownerReferences ?? []).filter(
        (ref) => !ownerUids.includes(ref.uid),
      );
      await client.patch(item.identity.name, {
        metadata: {
          ownerReferences: remaining,
          uid: item.identity.uid,
          resourceVersion: latest.metadata.resourceVersion,
        },
      });
    }
  }

  /** Sets blockOwnerDeletion false on the references to owners deleting in the foreground. */
  private async unblockOwnerReferences(item: GraphNode, latest: KubeObject): Promise<void> {
    const owners = (latest.metadata.ownerReferences ?? []).map((ref) =>
      ref.blockOwnerDeletion === true ? { ...ref, blockOwnerDeletion: false } : ref,
    );
    await this.resourceClient(item.identity).patch(item.identity.name, {
      metadata: {
        ownerReferences: owners,
        uid: item.identity.uid,
        resourceVersion: latest.metadata.resourceVersion,
      },
    });
  }

  /**
   * Removes one finalizer with a JSON merge patch guarded by resourceVersion, rereading after a
   * conflict (removeFinalizer, retry.RetryOnConflict).
   */
  private async removeFinalizer(node: GraphNode, finalizer: string): Promise<void> {
    const client = this.resourceClient(node.identity);
    for (let attempt = 0; ; attempt++) {
      let current: KubeObject;
      try {
        current = await client.get(node.identity.name);
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      if (current.metadata.uid !== node.identity.uid) return;
      const finalizers = current.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return;
      const rest = finalizers.filter((f) => f !== finalizer);
      try {
        await client.patch(node.identity.name, {
          metadata: {
            resourceVersion: current.metadata.resourceVersion,
            finalizers: rest.length > 0 ? rest : null,
          },
        });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isApiError(err) || err.code !== 409 || attempt >= 4) throw err;
      }
    }
  }

  /** attemptToOrphanWorker: dependents lose their reference, then the owner its finalizer. */
  private async attemptToOrphanWorker(uid: string): Promise<void> {
    const owner = this.graph.node(uid);
    if (!owner) return;
    const results = await Promise.allSettled(
      [...owner.dependents].map((dep) => this.removeOwnerReferences(dep, [uid])),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    await this.removeFinalizer(owner, ORPHAN_FINALIZER);
  }
}
