import { ApiError, type KubeObject } from '@listwatch/api';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import {
  loopbackContext,
  notFoundAsNothing,
  type LoopbackParts,
} from '../registry/rest/loopback-context.js';

/** The namespaces a fresh Kubernetes cluster has. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * Namespaces that may never be deleted (plugin/pkg/admission/namespace/lifecycle: its
 * immortalNamespaces).
 */
const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

/** NamespaceLifecycle admission of a namespace delete: the immortal ones are 403 Forbidden. */
export function admitNamespaceDeletion(name: string): void {
  if (IMMORTAL_NAMESPACES.has(name))
    throw ApiError.forbidden({ resource: 'namespaces' }, name, 'this namespace may not be deleted');
}

/**
 * Creates the system namespaces that are missing (kube's bootstrap controller), through the
 * namespaces' Store as the loopback client: the strategy sets what every namespace gets.
 */
export async function ensureSystemNamespaces(
  registry: ResourceRegistry,
  server: LoopbackParts,
): Promise<void> {
  const namespaces = registry.lookup('', 'v1', 'namespaces')?.store;
  if (!namespaces) return;
  const ctx = loopbackContext(server, { verb: 'create', apiGroup: '', resource: 'namespaces' });
  for (const name of SYSTEM_NAMESPACES) {
    const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
    await namespaces.create(ctx, undefined, namespace, { dryRun: false }).catch((err: unknown) => {
      if (!(err instanceof ApiError && err.reason === 'AlreadyExists')) throw err;
    });
  }
}

/** How long after a namespace delete admission reads that namespace live (forceLiveLookupTTL). */
const FORCE_LIVE_LOOKUP_MS = 30_000;

/** Per server: the namespaces it was asked to delete, until when their lookups are live. */
const liveLookups = new WeakMap<ResourceRegistry, Map<string, number>>();

/**
 * Remembers a namespace delete: for a while, creating in it is admitted on storage's state, not
 * on a watch cache that may not have seen the deletion yet (admission.go forceLiveLookupCache).
 */
export function forceLiveLookup(registry: ResourceRegistry, namespace: string): void {
  let entries = liveLookups.get(registry);
  if (!entries) liveLookups.set(registry, (entries = new Map<string, number>()));
  const now = Date.now();
  for (const [name, until] of entries) if (until <= now) entries.delete(name);
  entries.set(namespace, now + FORCE_LIVE_LOOKUP_MS);
}

function liveLookupForced(registry: ResourceRegistry, namespace: string): boolean {
  const until = liveLookups.get(registry)?.get(namespace);
  return until !== undefined && until > Date.now();
}

/**
 * The NamespaceLifecycle admission check: content may only be created in a namespace that exists
 * and is not being deleted. As plugin/pkg/admission/namespace/lifecycle/admission.go, the
 * namespace is read through the namespaces' Store as the loopback client: from the watch cache
 * (resourceVersion "0", its lister), and live (a consistent GET) only when the cache does not
 * have it or it was deleted lately.
 */
export async function admitNamespace(
  registry: ResourceRegistry,
  server: LoopbackParts,
  namespace: string,
): Promise<void> {
  const store = registry.lookup('', 'v1', 'namespaces')?.store;
  const ctx = loopbackContext(server, { verb: 'get', apiGroup: '', resource: 'namespaces' });
  const read = (resourceVersion?: string) =>
    store
      ?.get(ctx, namespace, resourceVersion !== undefined ? { resourceVersion } : {})
      .catch(notFoundAsNothing);
  const object =
    (liveLookupForced(registry, namespace) ? undefined : await read('0')) ?? (await read());
  if (!object) throw ApiError.notFound({ resource: 'namespaces' }, namespace);
  if (object.metadata.deletionTimestamp) {
    const err = ApiError.forbidden(
      { resource: 'namespaces' },
      namespace,
      `unable to create new content in namespace ${namespace} because it is being terminated`,
    );
    err.status.details = {
      ...err.status.details,
      causes: [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${namespace} is being terminated`,
          field: 'metadata.namespace',
        },
      ],
    };
    throw err;
  }
}
