import { ApiError, type KubeObject } from '@listwatch/api';
import { Reflector, type ChangeType } from './reflector.js';
import type { ResourceEntry, ResourceRegistry } from '../registry/resource-registry.js';
import {
  loopbackContext,
  notFoundAsNothing,
  type LoopbackParts,
} from '../registry/rest/loopback-context.js';

// kube-controller-manager's serviceaccounts controller
// (pkg/controller/serviceaccount/serviceaccounts_controller.go), run in the apiserver: every
// active namespace has a `default` ServiceAccount, made when the namespace appears and again if
// it is deleted.

/** The accounts every namespace gets (DefaultServiceAccountsControllerOptions). */
const MANAGED = ['default'];

export class ServiceAccountsController {
  private readonly reflectors: Reflector[] = [];

  private constructor(
    private readonly namespaces: ResourceEntry,
    private readonly serviceAccounts: ResourceEntry,
    private readonly server: LoopbackParts,
  ) {}

  /** The controller, when the registry serves both namespaces and serviceaccounts. */
  static of(
    registry: ResourceRegistry,
    server: LoopbackParts,
  ): ServiceAccountsController | undefined {
    const namespaces = registry.lookup('', 'v1', 'namespaces');
    const serviceAccounts = registry.lookup('', 'v1', 'serviceaccounts');
    return namespaces && serviceAccounts
      ? new ServiceAccountsController(namespaces, serviceAccounts, server)
      : undefined;
  }

  /** Makes what is missing in the namespaces there are, then follows namespaces and accounts. */
  async start(): Promise<void> {
    await Promise.all([
      this.follow(this.namespaces, (type, namespace) =>
        type === 'DELETED' ? undefined : this.sync(namespace.metadata.name ?? ''),
      ),
      this.follow(this.serviceAccounts, (type, account) =>
        type === 'DELETED' && MANAGED.includes(account.metadata.name ?? '')
          ? this.sync(account.metadata.namespace ?? '')
          : undefined,
      ),
    ]);
  }

  stop(): void {
    for (const reflector of this.reflectors) reflector.stop();
  }

  /**
   * syncNamespace: the managed accounts of an active namespace, created when missing through
   * the serviceaccounts' Store (strategy, NamespaceLifecycle admission) as the loopback client.
   */
  async sync(namespace: string): Promise<void> {
    const read = loopbackContext(this.server, {
      verb: 'get',
      apiGroup: '',
      resource: 'namespaces',
    });
    const current = await this.namespaces.store.get(read, namespace).catch(notFoundAsNothing);
    if (!current || current.metadata.deletionTimestamp) return;
    const { store } = this.serviceAccounts;
    for (const name of MANAGED) {
      const ctx = loopbackContext(this.server, {
        verb: 'create',
        apiGroup: '',
        resource: 'serviceaccounts',
        namespace,
      });
      if (await store.get(ctx, name).catch(notFoundAsNothing)) continue;
      const account = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } };
      await store.create(ctx, undefined, account, { dryRun: false }).catch((err: unknown) => {
        // As serviceaccounts_controller.go: one made meanwhile, or a namespace now terminating.
        if (err instanceof ApiError && (err.reason === 'AlreadyExists' || terminating(err))) return;
        throw err;
      });
    }
  }

  /**
   * Follows a resource through its Store (the controller's informer): each listed object handled
   * as ADDED, then each change.
   */
  private follow(
    entry: ResourceEntry,
    handle: (type: ChangeType, object: KubeObject) => Promise<void> | undefined,
  ): Promise<void> {
    const reflector = new Reflector(
      entry.store,
      this.server,
      {
        listed: async (objects) => {
          await Promise.all(objects.map((object) => handle('ADDED', object) ?? Promise.resolve()));
        },
        changed: (type, object) => handle(type, object),
      },
      `serviceaccounts controller (${entry.definition.plural})`,
    );
    this.reflectors.push(reflector);
    return reflector.start();
  }
}

/** The NamespaceLifecycle refusal of content in a terminating namespace. */
function terminating(err: ApiError): boolean {
  return (err.status.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}
