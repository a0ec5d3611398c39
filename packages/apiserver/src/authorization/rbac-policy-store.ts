import type { KubeObject, Logger } from '@listwatch/api';
import type { Storage } from '@listwatch/storage';
import { StorageFollower } from '../controllers/storage-follower.js';
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

/**
 * The RBAC objects in memory, kept current by a list and a watch of each resource in storage (as
 * the RBAC authorizer reads informer caches): a policy change applies from the next request.
 */
export class RbacPolicyStore implements RbacPolicy {
  private readonly objects = new Map<RbacResource, Objects>(RESOURCES.map((r) => [r, new Map()]));
  private readonly followers: StorageFollower[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly storage: Storage,
    private readonly logger: Logger,
  ) {}

  private prefix(resource: RbacResource): string {
    return `${this.storage.prefix}/${resource}/`;
  }

  /** Loads every RBAC object, then follows their changes until stop(). */
  async start(): Promise<void> {
    await Promise.all(
      RESOURCES.map((resource) => {
        const follower = new StorageFollower(
          this.storage,
          `${this.storage.prefix}/${resource}/`,
          {
            listed: (items) => {
              const objects: Objects = new Map();
              for (const object of items) this.put(objects, object);
              this.objects.set(resource, objects);
              this.changed();
            },
            changed: (type, object) => {
              const objects = this.objects.get(resource)!;
              if (type === 'DELETED') {
                const { namespace = '', name = '' } = object.metadata;
                objects.get(namespace)?.delete(name);
              } else this.put(objects, object);
              this.changed();
            },
          },
          this.logger,
          `RBAC policy ${resource}`,
        );
        this.followers.push(follower);
        return follower.start();
      }),
    );
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
    for (const follower of this.followers) follower.stop();
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
