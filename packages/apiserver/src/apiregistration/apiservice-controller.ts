import { ApiError, metaV1Now, type KubeObject, type Logger } from '@listwatch/api';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { Reflector } from '../controllers/reflector.js';
import type { Store } from '../registry/generic/store.js';
import { loopbackContext, type LoopbackParts } from '../registry/rest/loopback-context.js';
import type { RequestContext } from '../registry/rest/rest.js';
import { apiServices } from './apiservice-resource.js';
import {
  apiServiceName,
  AUTO_MANAGED_LABEL,
  availableCondition,
  type APIService,
  type APIServiceCondition,
} from './types.js';

// What kube-aggregator runs beside the APIService storage, without the proxy:
// - autoregister (pkg/controllers/autoregister/autoregister_controller.go) with the priorities
//   kube-apiserver gives its groups (cmd/kube-apiserver/app/aggregator.go apiVersionPriorities,
//   pkg/controlplane/apiserver/aggregator.go) and crdRegistrationController's for CRD groups
//   (pkg/controllers/crdregistration): a local APIService (no service) per served group version;
// - the availability controller (pkg/controllers/status/remote/remote_available_controller.go,
//   local/local_available_controller.go): local ones are Available, one that names a Service is
//   not, with the reason kube would give first, since this server does not proxy to it.
// It follows APIServices, Services and Endpoints in storage, so every apiserver on one etcd
// answers alike, and writes through the APIServices' Store as the loopback client.

interface Priority {
  group: number;
  version: number;
}

/** apiVersionPriorities for the group versions this server has. */
const PRIORITIES: Readonly<Record<string, Priority>> = {
  '/v1': { group: 18000, version: 1 },
  'apps/v1': { group: 17800, version: 15 },
  'events.k8s.io/v1': { group: 17750, version: 15 },
  'authentication.k8s.io/v1': { group: 17700, version: 15 },
  'authorization.k8s.io/v1': { group: 17600, version: 15 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'autoscaling/v2': { group: 17500, version: 30 },
  'batch/v1': { group: 17400, version: 15 },
  'networking.k8s.io/v1': { group: 17200, version: 15 },
  'policy/v1': { group: 17100, version: 15 },
  'rbac.authorization.k8s.io/v1': { group: 17000, version: 15 },
  'apiextensions.k8s.io/v1': { group: 16700, version: 15 },
  'coordination.k8s.io/v1': { group: 16500, version: 15 },
  'discovery.k8s.io/v1': { group: 16200, version: 15 },
  // The aggregator's own group, as kube-aggregator registers it.
  'apiregistration.k8s.io/v1': { group: 18000, version: 15 },
};

/** crdregistration_controller.go: CRD group versions sort after the built-ins. */
const CRD_PRIORITY: Priority = { group: 1000, version: 100 };

type Availability = Omit<APIServiceCondition, 'type' | 'lastTransitionTime'>;

/** A 404, or a 409 (the object changed or was replaced meanwhile: its watch event syncs again). */
function goneOrChanged(err: unknown): undefined {
  if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return undefined;
  throw err;
}

const LOCAL: Availability = {
  status: 'True',
  reason: 'Local',
  message: 'Local APIServices are always available',
};

interface Port {
  name?: string;
  port?: number;
}

export class APIServiceController {
  private readonly known = new Map<string, APIService>();
  private readonly reflectors: Reflector[];
  private queue: Promise<void> = Promise.resolve();
  private pending = false;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;

  private readonly logger: Logger;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly loopback: LoopbackParts,
  ) {
    this.logger = loopback.logger;
    this.reflectors = [
      new Reflector(
        this.entry().store,
        loopback,
        {
          listed: (objects) => {
            this.known.clear();
            for (const o of objects) this.known.set(o.metadata.name ?? '', o);
            return this.enqueue();
          },
          changed: (type, object) => {
            const name = object.metadata.name ?? '';
            if (type === 'DELETED') this.known.delete(name);
            else this.known.set(name, object);
            return this.enqueue();
          },
        },
        'apiservices',
      ),
      // A Service or its Endpoints changing changes what an APIService naming it is.
      ...['services', 'endpoints'].flatMap((resource) =>
        registry.lookup('', 'v1', resource) ? [this.servicesReflector(resource)] : [],
      ),
    ];
  }

  /** Registers the local APIServices; resolves once they are written and their status set. */
  async start(): Promise<void> {
    for (const reflector of this.reflectors) await reflector.start();
    this.unsubscribe = this.registry.onChange(() => void this.enqueue());
    await this.enqueue();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    for (const reflector of this.reflectors) reflector.stop();
  }

  /**
   * The APIService that sends a group version to a Service, if one does: requests there are the
   * proxy's (handler_proxy.go), which this server answers 503 as kube does an unavailable one.
   */
  serviceFor(group: string, version: string): APIService | undefined {
    const service = this.known.get(apiServiceName(group, version));
    return service?.spec?.service ? service : undefined;
  }

  private servicesReflector(resource: string): Reflector {
    const entry = this.registry.lookup('', 'v1', resource);
    if (!entry) throw new Error(`${resource} are not served`);
    const changed = () => (this.hasServiceBacked() ? this.enqueue() : undefined);
    return new Reflector(
      entry.store,
      this.loopback,
      { listed: changed, changed },
      `apiservices: ${resource}`,
    );
  }

  private hasServiceBacked(): boolean {
    for (const service of this.known.values()) if (service.spec?.service) return true;
    return false;
  }

  private store(): Store {
    const entry = this.registry.lookup(apiServices.group, apiServices.version, apiServices.plural);
    if (!entry) throw new Error('apiservices are not served');
    return entry.store;
  }

  private entry() {
    const entry = this.registry.lookup(apiServices.group, apiServices.version, apiServices.plural);
    if (!entry) throw new Error('apiservices are not served');
    return entry;
  }

  private context(verb: string, apiGroup = apiServices.group, resource = apiServices.plural) {
    return loopbackContext(this.loopback, { verb, apiGroup, resource });
  }

  /** One sync at a time; changes during one are taken by the next, only one more. */
  private enqueue(): Promise<void> {
    if (this.pending) return this.queue;
    this.pending = true;
    const run = () => {
      this.pending = false;
      return this.sync();
    };
    this.queue = this.queue
      .then(run, run)
      .catch((err: unknown) =>
        this.logger.warn('apiservices: sync failed', { error: String(err) }),
      );
    return this.queue;
  }

  private async sync(): Promise<void> {
    if (this.stopped) return;
    const wanted = this.wantedLocal();
    await Promise.all([...wanted].map(([name, want]) => this.register(name, want)));
    // autoregister removes what it manages once its group version is no longer served.
    for (const [name, service] of this.known)
      if (service.metadata.labels?.[AUTO_MANAGED_LABEL] && !wanted.has(name))
        await this.store().delete(this.context('delete'), name, {}).catch(goneOrChanged);
    for (const service of [...this.known.values()]) {
      const available = service.spec?.service ? await this.probe(service) : LOCAL;
      await this.setAvailable(service, available);
    }
  }

  /** Every group version served here, as autoregister would write its APIService. */
  private wantedLocal(): Map<string, APIService> {
    const wanted = new Map<string, APIService>();
    for (const { group, version } of this.registry.definitions) {
      const name = apiServiceName(group, version);
      if (wanted.has(name)) continue;
      const builtIn = PRIORITIES[`${group}/${version}`];
      const priority = builtIn ?? CRD_PRIORITY;
      wanted.set(name, {
        apiVersion: `${apiServices.group}/${apiServices.version}`,
        kind: apiServices.kind,
        // onstart: synced when this server starts; true: while its CRD is there.
        metadata: { name, labels: { [AUTO_MANAGED_LABEL]: builtIn ? 'onstart' : 'true' } },
        spec: {
          group,
          version,
          groupPriorityMinimum: priority.group,
          versionPriority: priority.version,
        },
      });
    }
    return wanted;
  }

  /** Creates a local APIService, or puts back the spec of one someone changed. */
  private async register(name: string, want: APIService): Promise<void> {
    const current = this.known.get(name);
    if (!current) {
      const created = await this.store()
        .create(this.context('create'), undefined, structuredClone(want), { dryRun: false })
        .catch((err: unknown) => {
          if (!(err instanceof ApiError && err.reason === 'AlreadyExists')) throw err;
        });
      // Available at once, before start resolves (the watch brings it to `known` later).
      if (created) await this.setAvailable(created, LOCAL);
      return;
    }
    // An APIService a user made for a served group version stays theirs (autoregister only
    // touches what it labelled).
    if (!current.metadata.labels?.[AUTO_MANAGED_LABEL]) return;
    if (JSON.stringify(current.spec) === JSON.stringify(want.spec)) return;
    await this.store()
      .update(
        this.context('update'),
        name,
        { updatedObject: (stored) => ({ ...stored!, spec: structuredClone(want.spec) }) },
        { dryRun: false },
      )
      .catch(goneOrChanged);
  }

  /**
   * What the remote availability controller finds before it would call the service, in its
   * order: the Service, its port, its Endpoints and their addresses; past them, the discovery
   * check fails, as nothing here proxies.
   */
  private async probe(apiService: APIService): Promise<Availability> {
    const ref = apiService.spec?.service ?? {};
    const namespace = ref.namespace ?? '';
    const name = ref.name ?? '';
    const service = await this.read('services', namespace, name);
    if (!service)
      return {
        status: 'False',
        reason: 'ServiceNotFound',
        message: `service/${name} in "${namespace}" is not present`,
      };
    const spec = (service['spec'] ?? {}) as { type?: string; ports?: Port[] };
    if (spec.type !== 'ExternalName') {
      const port = (spec.ports ?? []).find((p) => p.port === ref.port);
      if (!port)
        return {
          status: 'False',
          reason: 'ServicePortError',
          message: `service/${name} in "${namespace}" is not listening on port ${ref.port ?? 443}`,
        };
      const endpoints = await this.read('endpoints', namespace, name);
      if (!endpoints)
        return {
          status: 'False',
          reason: 'EndpointsNotFound',
          message: `cannot find endpoints for service/${name} in "${namespace}"`,
        };
      const subsets = (endpoints['subsets'] ?? []) as { addresses?: unknown[]; ports?: Port[] }[];
      const ready = subsets.some(
        (s) =>
          (s.addresses ?? []).length > 0 &&
          (s.ports ?? []).some((p) => (p.name ?? '') === (port.name ?? '')),
      );
      if (!ready)
        return {
          status: 'False',
          reason: 'MissingEndpoints',
          message: `endpoints for service/${name} in "${namespace}" have no addresses with port name "${port.name ?? ''}"`,
        };
    }
    const { group = '', version = '' } = apiService.spec ?? {};
    return {
      status: 'False',
      reason: 'FailedDiscoveryCheck',
      message: `failing or missing response from https://${name}.${namespace}.svc:${ref.port ?? 443}/apis/${group}/${version}: this apiserver does not proxy to aggregated API servers`,
    };
  }

  private async read(
    resource: string,
    namespace: string,
    name: string,
  ): Promise<KubeObject | undefined> {
    const entry = this.registry.lookup('', 'v1', resource);
    if (!entry || !namespace || !name) return undefined;
    const ctx: RequestContext = { ...this.context('get', '', resource), namespace };
    return entry.store.get(ctx, name, {}).catch(goneOrChanged);
  }

  /** Writes the Available condition when it differs; its transition time moves with status. */
  private async setAvailable(service: APIService, available: Availability): Promise<void> {
    const current = availableCondition(service);
    if (
      current?.status === available.status &&
      current.reason === available.reason &&
      current.message === available.message
    )
      return;
    const status = this.store().restStorage('status');
    await status
      ?.update?.(
        this.context('update'),
        service.metadata.name ?? '',
        {
          updatedObject: (latest) => {
            const stored = latest as APIService;
            if (stored.metadata.uid !== service.metadata.uid)
              throw ApiError.conflict(
                { resource: apiServices.plural },
                service.metadata.name ?? '',
              );
            const conditions = stored.status?.conditions ?? [];
            const old = conditions.find((c) => c.type === 'Available');
            const condition: APIServiceCondition = {
              type: 'Available',
              ...available,
              lastTransitionTime:
                old?.status === available.status && old.lastTransitionTime
                  ? old.lastTransitionTime
                  : metaV1Now(),
            };
            return {
              ...stored,
              status: {
                ...stored.status,
                conditions: [...conditions.filter((c) => c.type !== 'Available'), condition],
              },
            };
          },
        },
        { dryRun: false },
      )
      .catch(goneOrChanged);
  }
}
