import { ApiError, type KubeObject, type Logger } from '@listwatch/api';
import { isStorageError, type Storage } from '@listwatch/storage';
import type { ResourceRegistry } from './resource-registry.js';

/** The namespaces a fresh Kubernetes cluster has. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function namespaceKey(storage: Storage, name: string): string {
  return `${storage.prefix}/namespaces/${name}`;
}

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

/** Creates the system namespaces that are missing (kube's bootstrap controller). */
export async function ensureSystemNamespaces(storage: Storage): Promise<void> {
  for (const name of SYSTEM_NAMESPACES) {
    const namespace: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name,
        uid: crypto.randomUUID(),
        creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        labels: { 'kubernetes.io/metadata.name': name },
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    };
    await storage.create(namespaceKey(storage, name), namespace).catch((err: unknown) => {
      if (!isStorageError(err, 'KeyExists')) throw err;
    });
  }
}

/**
 * The NamespaceLifecycle admission check: content may only be created in a namespace that exists
 * and is not being deleted.
 */
export async function admitNamespace(storage: Storage, namespace: string): Promise<void> {
  const object = await storage.get(namespaceKey(storage, namespace));
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

/**
 * Deleting a namespace marks it Terminating, then (as the namespace controller does) deletes
 * everything in it, then the namespace itself. Returns the Terminating namespace.
 */
export async function beginNamespaceDeletion(
  registry: ResourceRegistry,
  name: string,
  logger: Logger,
): Promise<KubeObject> {
  const { storage } = registry;
  const key = namespaceKey(storage, name);
  const terminating = await storage.guaranteedUpdate(key, (current) => {
    if (current.metadata.deletionTimestamp) return current;
    return {
      ...current,
      metadata: {
        ...current.metadata,
        deletionTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
      status: { phase: 'Terminating' },
    };
  });
  void finalizeNamespace(registry, name).catch((err: unknown) =>
    logger.error('namespace finalization failed', { namespace: name, error: String(err) }),
  );
  return terminating;
}

async function finalizeNamespace(registry: ResourceRegistry, name: string): Promise<void> {
  const { storage } = registry;
  for (const { definition, source } of registry.all) {
    if (!definition.namespaced) continue;
    for (;;) {
      const page = await storage.list(source.keys.scope(name), { limit: 500 });
      for (const key of page.keys) {
        await storage.delete(key).catch((err: unknown) => {
          if (!isStorageError(err, 'KeyNotFound')) throw err;
        });
      }
      if (!page.more) break;
    }
  }
  await storage.delete(namespaceKey(storage, name)).catch((err: unknown) => {
    if (!isStorageError(err, 'KeyNotFound')) throw err;
  });
}
