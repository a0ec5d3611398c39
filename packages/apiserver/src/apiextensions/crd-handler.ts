import { isStorageError, type Storage } from '@listwatch/storage';
import { metaV1Now, type KubeObject, type Logger, type ResourceDefinition } from '@listwatch/api';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { StorageFollower } from '../controllers/storage-follower.js';
import type { ServedResource } from '../registry/rest/resource-strategy.js';
import { customResourceOf } from './custom-resource.js';
import { customResourceStrategy } from './custom-resource-strategy.js';
import { CLEANUP_FINALIZER } from './customresourcedefinition-strategy.js';
import { customResourceDefinitions } from './customresourcedefinition-resource.js';
import { namesAndConditions } from './naming-controller.js';
import { ConvertingStorage } from '../registry/generic/converting-storage.js';
import { nopConversion } from './nop-converter.js';
import { hasDefaults } from './schema/defaulting.js';
import { isConditionTrue, type CustomResourceDefinition } from './types.js';

// What serves custom resources: kube's crdHandler (apiextensions-apiserver
// pkg/apiserver/customresource_handler.go) with the controllers that run beside it — naming
// (status.acceptedNames, NamesAccepted), establishing (Established) and finalizing
// (pkg/controller/finalizer/crd_finalizer.go: a deleted CRD's objects go, then its finalizer).
// It follows CRDs in storage, so a CRD written through another apiserver on the same etcd is
// served here too, and registers each established CRD's served versions in the registry.

/** One served CRD: what it was registered from and the definitions it gave. */
interface Served {
  fingerprint: string;
  definitions: ResourceDefinition[];
}

export class CustomResourceDefinitionHandler {
  private readonly crds = new Map<string, CustomResourceDefinition>();
  private readonly served = new Map<string, Served>();
  private readonly follower: StorageFollower;
  /** Changes are handled one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly logger: Logger,
  ) {
    this.follower = new StorageFollower(
      registry.storage,
      this.keys().prefix,
      {
        listed: (objects) => {
          this.crds.clear();
          for (const o of objects)
            this.crds.set(o.metadata.name ?? '', o as CustomResourceDefinition);
          return this.enqueue();
        },
        changed: (type, object) => {
          const name = object.metadata.name ?? '';
          if (type === 'DELETED') this.crds.delete(name);
          else this.crds.set(name, object as CustomResourceDefinition);
          return this.enqueue();
        },
      },
      logger,
      'customresourcedefinitions',
    );
  }

  /** Serves the CRDs in storage; resolves once they are (before the server is ready). */
  async start(): Promise<void> {
    await this.follower.start();
    await this.queue;
  }

  stop(): void {
    this.stopped = true;
    this.follower.stop();
  }

  private get storage(): Storage {
    return this.registry.storage;
  }

  private keys() {
    const entry = this.registry.lookup(
      customResourceDefinitions.group,
      'v1',
      customResourceDefinitions.plural,
    );
    if (!entry) throw new Error('customresourcedefinitions are not served');
    return entry.source.keys;
  }

  private enqueue(): Promise<void> {
    this.queue = this.queue.then(
      () => this.syncAll(),
      () => this.syncAll(),
    );
    return this.queue.catch((err: unknown) =>
      this.logger.warn('customresourcedefinitions: sync failed', { error: String(err) }),
    );
  }

  private async syncAll(): Promise<void> {
    if (this.stopped) return;
    for (const name of [...this.served.keys()]) {
      if (!this.crds.has(name)) await this.unserve(name);
    }
    for (const crd of [...this.crds.values()]) {
      try {
        await this.sync(crd);
      } catch (err) {
        this.logger.warn('customresourcedefinitions: sync of one failed', {
          name: crd.metadata.name,
          error: String(err),
        });
      }
    }
  }

  private async sync(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata.name ?? '';
    if (crd.metadata.deletionTimestamp) {
      await this.unserve(name);
      await this.finalize(crd);
      return;
    }
    const desired = namesAndConditions(crd, this.crds.values(), metaV1Now());
    const conditions = crd.status?.conditions ?? [];
    const next = [
      ...conditions.filter((c) => c.type !== 'NamesAccepted' && c.type !== 'Established'),
      desired.namesAccepted,
      desired.established,
    ];
    const same =
      JSON.stringify(crd.status?.acceptedNames ?? {}) === JSON.stringify(desired.acceptedNames) &&
      JSON.stringify(sortedConditions(conditions)) === JSON.stringify(sortedConditions(next));
    if (!same) {
      // The change comes back through the watch and is served then.
      await this.writeStatus(crd, (stored) => ({
        ...stored,
        status: { ...stored.status, acceptedNames: desired.acceptedNames, conditions: next },
      }));
      return;
    }
    if (isConditionTrue(crd, 'Established')) await this.serve(crd);
    else await this.unserve(name);
  }

  private async writeStatus(
    crd: CustomResourceDefinition,
    update: (stored: CustomResourceDefinition) => CustomResourceDefinition,
  ): Promise<void> {
    const key = this.keys().object(undefined, crd.metadata.name ?? '');
    await this.storage
      .guaranteedUpdate(key, (stored) => {
        if (stored.metadata.uid !== crd.metadata.uid) throw new Error('the CRD was replaced');
        return update(stored as CustomResourceDefinition);
      })
      .catch((err: unknown) => {
        if (!isStorageError(err, 'KeyNotFound')) throw err;
      });
  }

  private async serve(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata.name ?? '';
    const fingerprint = JSON.stringify([crd.metadata.uid, crd.spec, crd.status?.acceptedNames]);
    const current = this.served.get(name);
    if (current?.fingerprint === fingerprint) return;
    const definitions: ResourceDefinition[] = [];
    const views = new Map<ResourceDefinition, ConvertingStorage>();
    const resources: ServedResource[] = [];
    const stored = crd.spec.versions.find((v) => v.storage)?.name ?? '';
    for (const version of crd.spec.versions) {
      if (!version.served) continue;
      const definition = customResourceOf(crd, version);
      const strategy = customResourceStrategy(crd, version);
      resources.push({ definition, strategy });
      definitions.push(definition);
      views.set(
        definition,
        new ConvertingStorage(
          this.storage,
          nopConversion(
            `${crd.spec.group}/${version.name}`,
            `${crd.spec.group}/${stored}`,
            hasDefaults(version.schema?.openAPIV3Schema)
              ? (object: KubeObject) => strategy.decode?.(object)
              : undefined,
          ),
        ),
      );
    }
    // A built-in resource is never replaced (kube serves built-ins before the CRD handler).
    const own = new Set((current?.definitions ?? []).map((d) => `${d.version}/${d.plural}`));
    const builtin = definitions.find(
      (d) =>
        this.registry.lookup(d.group, d.version, d.plural) &&
        !own.has(`${d.version}/${d.plural}`) &&
        !this.servedByCrd(d),
    );
    if (builtin) {
      this.logger.warn('a custom resource would shadow a built-in resource: not served', {
        name,
        resource: `${builtin.plural}.${builtin.group}/${builtin.version}`,
      });
      return;
    }
    // Versions no longer served, or served under other names, go first.
    for (const old of current?.definitions ?? []) {
      if (!definitions.some((d) => d.version === old.version && d.plural === old.plural))
        await this.registry.remove(old.group, old.version, old.plural);
    }
    for (const resource of resources)
      await this.registry.add(resource, views.get(resource.definition));
    this.served.set(name, { fingerprint, definitions });
    this.logger.info('serving custom resource', {
      name,
      versions: definitions.map((d) => d.version),
    });
  }

  /** Whether another CRD serves this resource (a names conflict the naming controller settles). */
  private servedByCrd(definition: ResourceDefinition): boolean {
    for (const served of this.served.values())
      if (
        served.definitions.some(
          (d) =>
            d.group === definition.group &&
            d.version === definition.version &&
            d.plural === definition.plural,
        )
      )
        return true;
    return false;
  }

  private async unserve(name: string): Promise<void> {
    const current = this.served.get(name);
    if (!current) return;
    this.served.delete(name);
    for (const d of current.definitions) await this.registry.remove(d.group, d.version, d.plural);
    this.logger.info('stopped serving custom resource', { name });
  }

  /** crd_finalizer.go: delete every object of the CRD, then drop its finalizer. */
  private async finalize(crd: CustomResourceDefinition): Promise<void> {
    if (!(crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) return;
    const plural = crd.status?.acceptedNames?.plural ?? crd.spec.names.plural;
    if (plural) {
      const prefix = `${this.storage.prefix}/${crd.spec.group}/${plural}/`;
      for (;;) {
        const page = await this.storage.list(prefix, { limit: 500 });
        for (const key of page.keys) {
          await this.storage.delete(key).catch((err: unknown) => {
            if (!isStorageError(err, 'KeyNotFound')) throw err;
          });
        }
        if (!page.more) break;
      }
    }
    const key = this.keys().object(undefined, crd.metadata.name ?? '');
    let finalized: KubeObject | undefined;
    await this.writeStatus(crd, (stored) => {
      finalized = {
        ...stored,
        metadata: {
          ...stored.metadata,
          finalizers: (stored.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER),
        },
      };
      return finalized as CustomResourceDefinition;
    });
    // registry/generic Store: an object being deleted goes once its last finalizer does.
    if (finalized && (finalized.metadata.finalizers ?? []).length === 0) {
      await this.storage.delete(key).catch((err: unknown) => {
        if (!isStorageError(err, 'KeyNotFound')) throw err;
      });
    }
  }
}

function sortedConditions(
  conditions: NonNullable<CustomResourceDefinition['status']>['conditions'] & object,
): unknown[] {
  return [...conditions].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}
