import type { KubeObject, Logger } from '@listwatch/api';
import type { Storage, StorageWatch } from '@listwatch/storage';
import type { RbacPolicy } from './rbac-authorizer.js';

/** The four RBAC resources, as their storage prefixes name them. */
export type RbacResource = 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';
const RESOURCES: readonly RbacResource[] = [
  'roles',
  'clusterroles',
  'rolebindings',
  'clusterrolebindings',
];

/** Objects by namespace ('' for cluster-scoped) and name. */
type Objects = Map<string, Map<string, KubeObject>>;

const RETRY_MS = 1000;

/**
 * The RBAC objects in memory, kept current by a list and a watch of each resource in storage (as
 * the RBAC authorizer reads informer caches): a policy change applies from the next request.
 */
export class RbacPolicyStore implements RbacPolicy {
  private readonly objects = new Map<RbacResource, Objects>(RESOURCES.map((r) => [r, new Map()]));
  private readonly watches = new Set<StorageWatch>();
  private readonly listeners = new Set<() => void>();
  private stopped = false;

  constructor(
    private readonly storage: Storage,
    private readonly logger: Logger,
  ) {}

  private prefix(resource: RbacResource): string {
    return `${this.storage.prefix}/${resource}/`;
  }

  /** Loads every RBAC object, then follows their changes until stop(). */
  async start(): Promise<void> {
    await Promise.all(RESOURCES.map((resource) => this.sync(resource)));
  }

  private async sync(resource: RbacResource): Promise<void> {
    const prefix = this.prefix(resource);
    const objects: Objects = new Map();
    let revision = 0;
    // Pages read at the first page's revision: one consistent snapshot to watch from.
    for (let from: string | undefined; ;) {
      const page = await this.storage.list(prefix, {
        limit: 500,
        ...(from !== undefined ? { continueFrom: from, revision } : {}),
      });
      revision = page.revision;
      for (const object of page.items) this.put(objects, object);
      if (!page.more) break;
      from = `${page.keys[page.keys.length - 1]}\0`;
    }
    this.objects.set(resource, objects);
    this.changed();
    const watch = this.storage.watch(prefix, { fromRevision: revision });
    this.watches.add(watch);
    void this.follow(resource, watch);
  }

  private async follow(resource: RbacResource, watch: StorageWatch): Promise<void> {
    try {
      for await (const event of watch) {
        if (event.type === 'PROGRESS') continue;
        const objects = this.objects.get(resource)!;
        if (event.type === 'DELETED') {
          const { namespace = '', name = '' } = event.object.metadata;
          objects.get(namespace)?.delete(name);
        } else this.put(objects, event.object);
        this.changed();
      }
    } catch (err) {
      this.logger.warn('RBAC policy watch ended; relisting', { resource, error: String(err) });
    } finally {
      this.watches.delete(watch);
    }
    // Compaction or a lost backend: list again, after a pause, until stopped.
    while (!this.stopped) {
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
      if (this.stopped) return;
      try {
        await this.sync(resource);
        return;
      } catch (err) {
        this.logger.warn('RBAC policy relist failed', { resource, error: String(err) });
      }
    }
  }

  private put(objects: Objects, object: KubeObject): void {
    const { namespace = '', name = '' } = object.metadata;
    let names = objects.get(namespace);
    if (!names) objects.set(namespace, (names = new Map<string, KubeObject>()));
    names.set(name, object);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Calls `listener` after every policy change; returns how to stop. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stop(): void {
    this.stopped = true;
    for (const watch of this.watches) watch.close();
    this.watches.clear();
  }

  private in(resource: RbacResource, namespace: string): Iterable<KubeObject> {
    return this.objects.get(resource)!.get(namespace)?.values() ?? [];
  }

  roles(namespace: string): Iterable<KubeObject> {
    return this.in('roles', namespace);
  }
  role(namespace: string, name: string): KubeObject | undefined {
    return this.objects.get('roles')!.get(namespace)?.get(name);
  }
  clusterRoles(): Iterable<KubeObject> {
    return this.in('clusterroles', '');
  }
  clusterRole(name: string): KubeObject | undefined {
    return this.objects.get('clusterroles')!.get('')?.get(name);
  }
  roleBindings(namespace: string): Iterable<KubeObject> {
    return this.in('rolebindings', namespace);
  }
  clusterRoleBindings(): Iterable<KubeObject> {
    return this.in('clusterrolebindings', '');
  }
}
