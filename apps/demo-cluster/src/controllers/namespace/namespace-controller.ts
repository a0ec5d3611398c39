import {
  isApiError,
  metaV1Now,
  objectKey,
  qualifiedResource,
  type KubeObject,
} from '@listwatch/api';
import type { Controller } from '@listwatch/client';
import {
  deletedObject,
  splitMetaNamespaceKey,
  type Lister,
  type ResourceClient,
  type RestClient,
} from '@listwatch/client';
import { serverPreferredResources, withVerbs, type ApiResource } from '../discovery.js';
import { resources, type Pod } from '../objects.js';
import { workQueueController, type ControllerOptions } from '../controller-options.js';

// Follows kubernetes pkg/controller/namespace: namespace_controller.go (a namespace being
// deleted is synced until it is gone) and deletion/namespaced_resources_deleter.go (everything
// in it deleted through the API, resource by resource as discovery lists them, finalizers and
// graceful deletion waited for; then its `kubernetes` finalizer removed through /finalize).

/** The spec finalizer this controller owns (v1.FinalizerKubernetes). */
export const KUBERNETES_FINALIZER = 'kubernetes';
/** Seconds to wait for content whose finalizers remain (finalizerEstimateSeconds). */
const FINALIZER_ESTIMATE_SECONDS = 15;
/** The field manager of the status this controller applies. */
const FIELD_MANAGER = 'namespace-controller';

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: NamespaceCondition[] };
}

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export type NamespaceControllerOptions = ControllerOptions;

/** Content still present: look again in `estimate` seconds (ResourcesRemainingError). */
class ResourcesRemaining extends Error {
  constructor(readonly estimate: number) {
    super(`some content remains in the namespace; estimate ${estimate} s`);
  }
}

interface Remaining {
  estimate: number;
  /** Remaining instances by group-resource ("configmaps", "deployments.apps"). */
  byResource: Map<string, number>;
  /** Remaining instances by finalizer. */
  byFinalizer: Map<string, number>;
  errors: string[];
}

function isGone(err: unknown): boolean {
  return isApiError(err) && (err.code === 404 || err.code === 405);
}

export class NamespaceController {
  readonly controller: Controller<string>;
  private readonly client: RestClient;
  private readonly namespaces: ResourceClient<Namespace>;
  private readonly lister: Lister<Namespace>;

  constructor(options: NamespaceControllerOptions) {
    this.client = options.client;
    this.namespaces = options.client.resource<Namespace>(resources.namespaces);
    const informer = options.factory.informerFor<Namespace>(resources.namespaces);
    this.lister = informer.lister();
    // Only a namespace being deleted is queued (namespace_controller.go enqueueNamespace).
    const enqueue = (ns: Namespace | undefined) => {
      if (ns?.metadata.deletionTimestamp) this.controller.enqueue(objectKey(ns.metadata));
    };
    const registration = informer.addEventHandler({
      onAdd: enqueue,
      onUpdate: (_old, ns) => enqueue(ns),
      onDelete: (obj) => enqueue(deletedObject(obj)),
    });
    this.controller = workQueueController(options, 'namespace', (key) => this.sync(key), [
      registration,
    ]);
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  private async sync(key: string): Promise<void> {
    const { name } = splitMetaNamespaceKey(key);
    try {
      this.lister.get(name);
    } catch (err) {
      if (isApiError(err) && err.code === 404) return;
      throw err;
    }
    try {
      await this.delete(name);
    } catch (err) {
      if (!(err instanceof ResourcesRemaining)) throw err;
      // namespace_controller.go: look again in half the estimate, plus a second.
      this.controller.queue.addAfter(key, (Math.floor(err.estimate / 2) + 1) * 1000);
    }
  }

  /** namespacedResourcesDeleter.Delete. */
  private async delete(name: string): Promise<void> {
    let namespace: Namespace;
    try {
      namespace = await this.namespaces.get(name);
    } catch (err) {
      if (isApiError(err) && err.code === 404) return;
      throw err;
    }
    if (!namespace.metadata.deletionTimestamp) return;
    if (namespace.status?.phase !== 'Terminating') {
      namespace = await this.applyStatus(namespace, {});
    }
    if ((namespace.spec?.finalizers ?? []).length === 0) return;
    const remaining = await this.deleteAllContent(namespace);
    namespace = await this.updateConditions(namespace, remaining);
    if (remaining.errors.length > 0) throw new Error(remaining.errors.join('; '));
    if (remaining.estimate > 0) throw new ResourcesRemaining(remaining.estimate);
    try {
      await this.retryOnConflict(namespace, (ns) => this.finalize(ns));
    } catch (err) {
      if (!(isApiError(err) && err.code === 404)) throw err;
    }
  }

  /** Writes, and on a conflict rereads the namespace and writes again (retryOnConflictError). */
  private async retryOnConflict(
    namespace: Namespace,
    write: (ns: Namespace) => Promise<Namespace>,
  ): Promise<Namespace> {
    let latest = namespace;
    for (let attempt = 0; ; attempt++) {
      try {
        return await write(latest);
      } catch (err) {
        if (!isApiError(err) || err.code !== 409 || attempt >= 4) throw err;
        latest = await this.namespaces.get(namespace.metadata.name ?? '');
      }
    }
  }

  /** finalizeNamespace: PUT /finalize without our finalizer, the rest sorted. */
  private finalize(namespace: Namespace): Promise<Namespace> {
    const finalizers = [
      ...new Set((namespace.spec?.finalizers ?? []).filter((f) => f !== KUBERNETES_FINALIZER)),
    ].sort();
    return this.client.request<Namespace>({
      method: 'PUT',
      path: `${this.namespaces.objectPath(namespace.metadata.name ?? '')}/finalize`,
      body: { ...namespace, spec: { ...namespace.spec, finalizers } },
    });
  }

  /** deleteAllContent: every namespaced resource discovery lists with `delete`. */
  private async deleteAllContent(namespace: Namespace): Promise<Remaining> {
    const remaining: Remaining = {
      estimate: 0,
      byResource: new Map(),
      byFinalizer: new Map(),
      errors: [],
    };
    const deletedAt = Date.parse(namespace.metadata.deletionTimestamp ?? '');
    const all = withVerbs(await serverPreferredResources(this.client), ['delete']).filter(
      (r) => r.namespaced,
    );
    for (const resource of all) {
      try {
        await this.deleteAllContentFor(
          resource,
          namespace.metadata.name ?? '',
          deletedAt,
          remaining,
        );
      } catch (err) {
        remaining.errors.push(
          `${qualifiedResource(resource)}: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
    return remaining;
  }

  /** deleteAllContentForGroupVersionResource. */
  private async deleteAllContentFor(
    resource: ApiResource,
    namespace: string,
    deletedAt: number,
    remaining: Remaining,
  ): Promise<void> {
    const client = this.client.resource(resource).namespace(namespace);
    const isPods = resource.group === '' && resource.plural === 'pods';
    let estimate = isPods ? await this.estimateGracefulTermination(namespace, deletedAt) : 0;
    // The garbage collector must not orphan what the namespace takes with it.
    const options = { propagationPolicy: 'Background' as const };
    if (resource.verbs.includes('deletecollection')) {
      try {
        await client.deleteCollection({}, options);
      } catch (err) {
        if (!isGone(err)) throw err;
      }
    } else if (resource.verbs.includes('list')) {
      for (const item of (await client.list()).items) {
        await client.delete(item.metadata.name ?? '', options).catch((err: unknown) => {
          if (!isGone(err)) throw err;
        });
      }
    }
    if (!resource.verbs.includes('list')) return;
    let items: KubeObject[];
    try {
      items = (await client.list()).items;
    } catch (err) {
      if (isGone(err)) return;
      throw err;
    }
    // Nothing left: done with this resource, whatever was estimated.
    if (items.length === 0) return;
    remaining.byResource.set(qualifiedResource(resource), items.length);
    let finalizers = 0;
    for (const item of items)
      for (const f of item.metadata.finalizers ?? []) {
        remaining.byFinalizer.set(f, (remaining.byFinalizer.get(f) ?? 0) + 1);
        finalizers++;
      }
    // Pods still terminating gracefully, or content with finalizers, are waited for; anything
    // else left is unexpected.
    if (estimate === 0 && finalizers > 0) estimate = FINALIZER_ESTIMATE_SECONDS;
    if (estimate === 0)
      throw new Error(
        `unexpected items still remain in namespace: ${namespace} for gvr: ${qualifiedResource(resource)}`,
      );
    remaining.estimate = Math.max(remaining.estimate, estimate);
  }

  /**
   * estimateGracefulTermination: the longest grace period of the namespace's pods, less the time
   * since the namespace was marked.
   */
  private async estimateGracefulTermination(namespace: string, deletedAt: number): Promise<number> {
    const pods = (await this.client.resource<Pod>(resources.pods).namespace(namespace).list())
      .items;
    let estimate = 0;
    for (const pod of pods) {
      const phase = pod.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') continue;
      const grace =
        pod.metadata.deletionGracePeriodSeconds ??
        (pod.spec?.['terminationGracePeriodSeconds'] as number | undefined) ??
        30;
      estimate = Math.max(estimate, grace);
    }
    const elapsed = Number.isFinite(deletedAt) ? (Date.now() - deletedAt) / 1000 : 0;
    return Math.max(0, Math.floor(estimate - elapsed));
  }

  /** The deletion conditions kube reports on a Terminating namespace (namespace_condition.go). */
  private async updateConditions(namespace: Namespace, remaining: Remaining): Promise<Namespace> {
    const content = [...remaining.byResource].sort(([a], [b]) => (a < b ? -1 : 1));
    const finalizers = [...remaining.byFinalizer].sort(([a], [b]) => (a < b ? -1 : 1));
    const wanted: NamespaceCondition[] = [
      {
        type: 'NamespaceDeletionDiscoveryFailure',
        status: 'False',
        reason: 'ResourcesDiscovered',
        message: 'All resources successfully discovered',
      },
      {
        type: 'NamespaceDeletionGroupVersionParsingFailure',
        status: 'False',
        reason: 'ParsedGroupVersions',
        message: 'All legacy kube types successfully parsed',
      },
      remaining.errors.length > 0
        ? {
            type: 'NamespaceDeletionContentFailure',
            status: 'True',
            reason: 'ContentDeletionFailed',
            message: `Failed to delete all resource types, ${remaining.errors.length} remaining: ${remaining.errors.join(', ')}`,
          }
        : {
            type: 'NamespaceDeletionContentFailure',
            status: 'False',
            reason: 'ContentDeleted',
            message: 'All content successfully deleted, may be waiting on finalization',
          },
      content.length > 0
        ? {
            type: 'NamespaceContentRemaining',
            status: 'True',
            reason: 'SomeResourcesRemain',
            message: `Some resources are remaining: ${content.map(([gr, n]) => `${gr} has ${n} resource instances`).join(', ')}`,
          }
        : {
            type: 'NamespaceContentRemaining',
            status: 'False',
            reason: 'ContentRemoved',
            message: 'All content successfully removed',
          },
      finalizers.length > 0
        ? {
            type: 'NamespaceFinalizersRemaining',
            status: 'True',
            reason: 'SomeFinalizersRemain',
            message: `Some content in the namespace has finalizers remaining: ${finalizers.map(([f, n]) => `${f} in ${n} resource instances`).join(', ')}`,
          }
        : {
            type: 'NamespaceFinalizersRemaining',
            status: 'False',
            reason: 'ContentHasNoFinalizers',
            message: 'All content-preserving finalizers finished',
          },
    ];
    const current = namespace.status?.conditions ?? [];
    let changed = current.length !== wanted.length;
    const conditions = wanted.map((want) => {
      const had = current.find((c) => c.type === want.type);
      if (
        had &&
        had.status === want.status &&
        had.reason === want.reason &&
        had.message === want.message
      )
        return had;
      changed = true;
      return {
        ...want,
        lastTransitionTime:
          had && had.status === want.status ? (had.lastTransitionTime ?? metaV1Now()) : metaV1Now(),
      };
    });
    if (!changed) return namespace;
    return this.applyStatus(namespace, { conditions });
  }

  /**
   * Writes what this controller reports (the Terminating phase, the deletion conditions) by
   * server-side apply as its field manager, always both, so neither is dropped as unapplied;
   * the uid guards against a namespace recreated under the same name (409).
   */
  private applyStatus(
    namespace: Namespace,
    status: NonNullable<Namespace['status']>,
  ): Promise<Namespace> {
    return this.namespaces.applyStatus(
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: namespace.metadata.name ?? '',
          ...(namespace.metadata.uid ? { uid: namespace.metadata.uid } : {}),
        },
        status: { phase: 'Terminating', ...status },
      },
      { fieldManager: FIELD_MANAGER, force: true },
    );
  }
}
