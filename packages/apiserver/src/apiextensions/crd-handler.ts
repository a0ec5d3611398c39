import {
  ApiError,
  metaV1Now,
  parseListOptions,
  qualifiedResource,
  type Logger,
  type ResourceDefinition,
} from '@listwatch/api';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { Reflector } from '../controllers/reflector.js';
import {
  customResourceStorage,
  customResourceStore,
  type CustomResourceStorage,
} from '../registry/apiextensions/customresource/storage.js';
import type { Store } from '../registry/generic/store.js';
import { loopbackContext, type LoopbackParts } from '../registry/rest/loopback-context.js';
import type { RequestContext } from '../registry/rest/rest.js';
import { CLEANUP_FINALIZER } from './customresourcedefinition-strategy.js';
import { customResourceDefinitions } from './customresourcedefinition-resource.js';
import { namesAndConditions } from './naming-controller.js';
import { isConditionTrue, type CustomResourceDefinition } from './types.js';

// What serves custom resources: kube's crdHandler (apiextensions-apiserver
// pkg/apiserver/customresource_handler.go) with the controllers that run beside it — naming
// (status.acceptedNames, NamesAccepted), establishing (Established) and finalizing
// (pkg/controller/finalizer/crd_finalizer.go: a deleted CRD's objects go, then its finalizer).
// It follows CRDs through their Store (a Reflector, its informer), so a CRD written through
// another apiserver on the same etcd is served here too, and registers each established CRD's
// served versions in the registry, until the CRD is gone (a terminating one's objects are served
// but for create, so that their finalizers can be removed). Its writes (status, finalizer, the
// custom resources a deleted CRD leaves) go through Stores as the loopback client.

/** How long a finalizer waits before looking again at custom resources that are still there. */
const FINALIZE_RETRY_MS = 1000;

/** A 404, or a 409 (the CRD changed meanwhile: its watch event syncs it again). */
function goneOrChanged(err: unknown): undefined {
  if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return undefined;
  throw err;
}

/** One served CRD: what it was registered from and the definitions it gave. */
interface Served {
  fingerprint: string;
  definitions: ResourceDefinition[];
}

export class CustomResourceDefinitionHandler {
  private readonly crds = new Map<string, CustomResourceDefinition>();
  private readonly served = new Map<string, Served>();
  private readonly reflector: Reflector;
  /** Changes are handled one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly logger: Logger;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly loopback: LoopbackParts,
  ) {
    this.logger = loopback.logger;
    this.reflector = new Reflector(
      this.entry().store,
      loopback,
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
      'customresourcedefinitions',
    );
  }

  /** Serves the CRDs in storage; resolves once they are (before the server is ready). */
  async start(): Promise<void> {
    await this.reflector.start();
    await this.queue;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    this.reflector.stop();
  }

  private entry() {
    const entry = this.registry.lookup(
      customResourceDefinitions.group,
      'v1',
      customResourceDefinitions.plural,
    );
    if (!entry) throw new Error('customresourcedefinitions are not served');
    return entry;
  }

  private context(verb: string, resource: string, apiGroup: string): RequestContext {
    return loopbackContext(this.loopback, { verb, apiGroup, resource });
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
      // customresource_handler.go serves a terminating CRD's objects (but for create) until it
      // is gone: their finalizers are removed through it.
      if (isConditionTrue(crd, 'Established')) await this.serve(crd);
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

  /**
   * Writes the CRD's status through its status storage, as the controllers' UpdateStatus: from
   * the CRD as last seen, whose resourceVersion is the write's precondition.
   */
  private async writeStatus(
    crd: CustomResourceDefinition,
    update: (stored: CustomResourceDefinition) => CustomResourceDefinition,
  ): Promise<void> {
    const { group, plural } = customResourceDefinitions;
    await this.entry()
      .store.restStorage('status')
      ?.update?.(
        this.context('update', `${plural}/status`, group),
        crd.metadata.name ?? '',
        { updatedObject: () => update(structuredClone(crd)) },
        { dryRun: false },
      )
      .catch(goneOrChanged);
  }

  private async serve(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata.name ?? '';
    const fingerprint = JSON.stringify([crd.metadata.uid, crd.spec, crd.status?.acceptedNames]);
    const current = this.served.get(name);
    if (current?.fingerprint === fingerprint) return;
    const definitions: ResourceDefinition[] = [];
    const views = new Map<ResourceDefinition, CustomResourceStorage>();
    for (const version of crd.spec.versions) {
      if (!version.served) continue;
      const served = customResourceStorage(this.registry.storage, crd, version, () => {
        const current = this.crds.get(name);
        return current !== undefined && isConditionTrue(current, 'Terminating');
      });
      definitions.push(served.definition);
      views.set(served.definition, served);
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
        resource: `${qualifiedResource(builtin)}/${builtin.version}`,
      });
      return;
    }
    // Versions no longer served, or served under other names, go first.
    for (const old of current?.definitions ?? []) {
      if (!definitions.some((d) => d.version === old.version && d.plural === old.plural))
        await this.registry.remove(old.group, old.version, old.plural);
    }
    for (const definition of definitions) {
      const served = views.get(definition);
      if (served) await this.registry.add(served, served.storage);
    }
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

  /**
   * crd_finalizer.go: every object of the CRD is deleted through its Store, namespace by
   * namespace (their own finalizers are honoured); once none is left the CRD's finalizer goes,
   * and with it the CRD (the Store deletes an object whose last finalizer an update removes).
   * Objects still there are looked at again a moment later.
   */
  private async finalize(crd: CustomResourceDefinition): Promise<void> {
    if (!(crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) return;
    const store = customResourceStore(this.registry, crd);
    if (store?.definition.plural && !(await this.deleteAll(store))) {
      clearTimeout(this.retry);
      this.retry = setTimeout(() => void this.enqueue(), FINALIZE_RETRY_MS).unref();
      return;
    }
    const { group, plural } = customResourceDefinitions;
    await this.entry()
      .store.update(
        this.context('update', plural, group),
        crd.metadata.name ?? '',
        {
          updatedObject: (stored) => {
            const current = stored ?? crd;
            const finalizers = (current.metadata.finalizers ?? []).filter(
              (f) => f !== CLEANUP_FINALIZER,
            );
            return { ...current, metadata: { ...current.metadata, finalizers } };
          },
        },
        { dryRun: false },
      )
      .catch(goneOrChanged);
  }

  /** Deletes the custom resources of `store`; whether none is left. */
  private async deleteAll(store: Store): Promise<boolean> {
    const { group, plural } = store.definition;
    const everything = parseListOptions(new URLSearchParams());
    const list = () =>
      store.list({ ...this.context('list', plural, group), namespace: undefined }, everything);
    const namespaces = new Set((await list()).items.map((o) => o.metadata.namespace));
    for (const namespace of namespaces)
      await store.deleteCollection(
        { ...this.context('deletecollection', plural, group), namespace },
        {},
        everything,
      );
    return (await list()).items.length === 0;
  }
}

function sortedConditions(
  conditions: NonNullable<CustomResourceDefinition['status']>['conditions'] & object,
): unknown[] {
  return [...conditions].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}
