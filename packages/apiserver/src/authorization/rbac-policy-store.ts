import type { KubeObject } from '@listwatch/api';
import { Reflector } from '../controllers/reflector.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { LoopbackParts } from '../registry/rest/loopback-context.js';
import type { RbacPolicy } from './rbac-authorizer.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** The four RBAC resources. */
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
 * The RBAC objects in memory, kept current by a reflector on each resource's Store as the loopback
 * client (kube's RBAC authorizer reads the loopback client's shared informers,
 * plugin/pkg/auth/authorizer/rbac): a policy change applies from the next request.
 */
export class RbacPolicyStore implements RbacPolicy {
  private readonly objects = new Map<RbacResource, Objects>(RESOURCES.map((r) => [r, new Map()]));
  private readonly reflectors: Reflector[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(private readonly registry: ResourceRegistry) {}

  /** Loads every RBAC object, then follows their changes until stop(). */
  async start(loopback: LoopbackParts): Promise<void> {
    await Promise.all(
      RESOURCES.map((resource) => {
        const store = this.registry.lookup(RBAC_GROUP, 'v1', resource)?.store;
        if (!store) return Promise.resolve();
        const reflector = new Reflector(
          store,
          loopback,
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
          `RBAC policy ${resource}`,
        );
        this.reflectors.push(reflector);
        return reflector.start();
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
    for (const reflector of this.reflectors) reflector.stop();
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
