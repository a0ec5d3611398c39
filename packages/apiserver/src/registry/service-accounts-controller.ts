import type { KubeObject } from '@listwatch/api';
import { isStorageError, type Logger, type StorageWatch } from '@listwatch/storage';
import type { ResourceEntry, ResourceRegistry } from './resource-registry.js';
import { prepareForCreate } from './strategy.js';

// kube-controller-manager's serviceaccounts controller
// (pkg/controller/serviceaccount/serviceaccounts_controller.go), run in the apiserver: every
// active namespace has a `default` ServiceAccount, made when the namespace appears and again if
// it is deleted.

/** The accounts every namespace gets (DefaultServiceAccountsControllerOptions). */
const MANAGED = ['default'];

const RETRY_MS = 1000;

export class ServiceAccountsController {
  private readonly watches = new Set<StorageWatch>();
  private stopped = false;

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
    this.stopped = true;
    for (const watch of this.watches) watch.close();
    this.watches.clear();
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

  /**
   * Lists a resource, handing each object to `handle` as ADDED, then watches it from there; when
   * the watch ends (compaction, a lost backend) lists again after a pause, until stopped.
   */
  private async follow(
    entry: ResourceEntry,
    handle: (
      type: 'ADDED' | 'MODIFIED' | 'DELETED',
      object: KubeObject,
    ) => Promise<void> | undefined,
  ): Promise<void> {
    const { storage } = this.registry;
    const prefix = entry.source.keys.prefix;
    const run = (work: Promise<void> | undefined) =>
      void work?.catch((err: unknown) =>
        this.logger.warn('serviceaccounts controller: sync failed', { error: String(err) }),
      );
    let revision = 0;
    for (let from: string | undefined; ;) {
      const page = await storage.list(prefix, {
        limit: 500,
        ...(from !== undefined ? { continueFrom: from, revision } : {}),
      });
      revision = page.revision;
      await Promise.all(page.items.map((object) => handle('ADDED', object) ?? Promise.resolve()));
      if (!page.more) break;
      from = `${page.keys[page.keys.length - 1]}\0`;
    }
    if (this.stopped) return;
    const watch = storage.watch(prefix, { fromRevision: revision });
    this.watches.add(watch);
    void (async () => {
      try {
        for await (const event of watch) {
          if (event.type !== 'PROGRESS') run(handle(event.type, event.object));
        }
      } catch (err) {
        this.logger.warn('serviceaccounts controller: watch ended; relisting', {
          resource: entry.definition.plural,
          error: String(err),
        });
      } finally {
        this.watches.delete(watch);
      }
      while (!this.stopped) {
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
        if (this.stopped) return;
        try {
          await this.follow(entry, handle);
          return;
        } catch (err) {
          this.logger.warn('serviceaccounts controller: relist failed', { error: String(err) });
        }
      }
    })();
  }
}
