import type { KubeObject } from '@listwatch/api';
import { isStorageError, type Logger, type StorageEventType } from '@listwatch/storage';
import { StorageFollower } from './storage-follower.js';
import type { ResourceEntry, ResourceRegistry } from './resource-registry.js';
import { prepareForCreate } from './strategy.js';

// kube-controller-manager's serviceaccounts controller
// (pkg/controller/serviceaccount/serviceaccounts_controller.go), run in the apiserver: every
// active namespace has a `default` ServiceAccount, made when the namespace appears and again if
// it is deleted.

/** The accounts every namespace gets (DefaultServiceAccountsControllerOptions). */
const MANAGED = ['default'];

export class ServiceAccountsController {
  private readonly followers: StorageFollower[] = [];

  private constructor(
    private readonly registry: ResourceRegistry,
    private readonly namespaces: ResourceEntry,
    private readonly serviceAccounts: ResourceEntry,
    private readonly logger: Logger,
  ) {}

  /** The controller, when the registry serves both namespaces and serviceaccounts. */
  static of(registry: ResourceRegistry, logger: Logger): ServiceAccountsController | undefined {
    const namespaces = registry.lookup('', 'v1', 'namespaces');
    const serviceAccounts = registry.lookup('', 'v1', 'serviceaccounts');
    return namespaces && serviceAccounts
      ? new ServiceAccountsController(registry, namespaces, serviceAccounts, logger)
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
    for (const follower of this.followers) follower.stop();
  }

  /** syncNamespace: the managed accounts of an active namespace, created when missing. */
  async sync(namespace: string): Promise<void> {
    const { storage } = this.registry;
    const current = await storage.get(this.namespaces.source.keys.object(undefined, namespace));
    if (!current || current.metadata.deletionTimestamp) return;
    for (const name of MANAGED) {
      const key = this.serviceAccounts.source.keys.object(namespace, name);
      if (await storage.get(key)) continue;
      const account = prepareForCreate(
        this.serviceAccounts.definition,
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } },
        namespace,
      );
      await storage.create(key, account).catch((err: unknown) => {
        if (!isStorageError(err, 'KeyExists')) throw err;
      });
    }
  }

  /** Follows a resource: each listed object handled as ADDED, then each change. */
  private follow(
    entry: ResourceEntry,
    handle: (type: StorageEventType, object: KubeObject) => Promise<void> | undefined,
  ): Promise<void> {
    const follower = new StorageFollower(
      this.registry.storage,
      entry.source.keys.prefix,
      {
        listed: async (objects) => {
          await Promise.all(objects.map((object) => handle('ADDED', object) ?? Promise.resolve()));
        },
        changed: (type, object) => handle(type, object),
      },
      this.logger,
      `serviceaccounts controller (${entry.definition.plural})`,
    );
    this.followers.push(follower);
    return follower.start();
  }
}
