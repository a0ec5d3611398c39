import {
  ApiError,
  apiVersionOf,
  builtinResources,
  parseListOptions,
  type KubeObject,
  type ResourceDefinition,
} from '@listwatch/api';
import { MemoryStorage, type Storage } from '@listwatch/storage';
import { silentLogger } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiServices } from '../../apiregistration/apiservice-resource.js';
import { customResourceDefinitions } from '../../apiextensions/customresourcedefinition-resource.js';
import { alwaysAllow } from '../../authorization/authorizer.js';
import { RequestAuthorizer } from '../../authorization/request-authorizer.js';
import { KIND_CASES } from '../kinds.test-helper.js';
import { ensureSystemNamespaces } from '../../admission/namespace-lifecycle.js';
import { ResourceRegistry } from '../resource-registry.js';
import { loopbackContext } from '../rest/loopback-context.js';
import type { RequestContext } from '../rest/rest.js';
import { decodeObject } from '../rest/decode.js';
import { storesNothing } from '../rest/resource-strategy.js';
import { withBuiltinStrategies, withBuiltinStrategy } from '../served-resources.js';

// The generic Store (registry/generic/registry/store.go): every verb of every served kind goes
// through it down to a real storage backend (memory), wrapped to record what reaches it.

/** The storage methods that write, as the recording names them. */
const WRITES = new Set(['create', 'update', 'guaranteedUpdate', 'delete']);

/** A MemoryStorage whose writes are recorded (method and key): the real backend, not a mock. */
function recordingStorage(storage: MemoryStorage, calls: string[]): Storage {
  return new Proxy(storage, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (typeof prop === 'string' && (WRITES.has(prop) || prop === 'get'))
        return (...args: unknown[]) => {
          calls.push(`${prop} ${String(args[0])}`);
          return method.apply(target, args);
        };
      return method.bind(target);
    },
  });
}

const labels = { app: 'web' };
const template = {
  metadata: { labels },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
};
const now = '2026-01-01T00:00:00.000000Z';

/** A minimal valid object of each kind KIND_CASES lacks, by plural (and group). */
const MORE: Readonly<Record<string, Record<string, unknown>>> = {
  namespaces: {},
  pods: { spec: template.spec },
  configmaps: { data: { a: 'b' } },
  secrets: { stringData: { a: 'b' } },
  serviceaccounts: {},
  nodes: {},
  services: { spec: { selector: labels, ports: [{ port: 80 }] } },
  events: {
    involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' },
    reason: 'Started',
    message: 'started',
    type: 'Normal',
    source: { component: 'kubelet' },
  },
  'replicasets.apps': { spec: { selector: { matchLabels: labels }, template } },
  'deployments.apps': { spec: { selector: { matchLabels: labels }, template } },
  'events.events.k8s.io': {
    eventTime: now,
    reportingController: 'example.com/c',
    reportingInstance: 'c-1',
    action: 'Start',
    reason: 'Started',
    type: 'Normal',
    regarding: { kind: 'Pod', name: 'web', namespace: 'default' },
  },
  'horizontalpodautoscalers.autoscaling/v1': {
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      maxReplicas: 3,
    },
  },
  'horizontalpodautoscalers.autoscaling/v2': {
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      maxReplicas: 3,
    },
  },
  'roles.rbac.authorization.k8s.io': { rules: [] },
  'clusterroles.rbac.authorization.k8s.io': { rules: [] },
  'rolebindings.rbac.authorization.k8s.io': {
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'web' },
  },
  'clusterrolebindings.rbac.authorization.k8s.io': {
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'web' },
  },
  'leases.coordination.k8s.io': { spec: {} },
  'customresourcedefinitions.apiextensions.k8s.io': {
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object' } },
        },
      ],
    },
  },
  'apiservices.apiregistration.k8s.io': {
    spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 },
  },
};

function keyOf(definition: ResourceDefinition): string {
  return definition.group ? `${definition.plural}.${definition.group}` : definition.plural;
}

/** A new object of the definition's kind named `name`, valid for a create. */
function sample(definition: ResourceDefinition, name: string): KubeObject {
  const body =
    MORE[`${keyOf(definition)}/${definition.version}`] ??
    MORE[keyOf(definition)] ??
    KIND_CASES.find(
      (c) =>
        c.plural === definition.plural &&
        c.prefix.endsWith(`${definition.group ? `${definition.group}/` : ''}${definition.version}`),
    )?.object;
  if (!body) throw new Error(`no sample ${keyOf(definition)}/${definition.version}`);
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = body as KubeObject;
  // CRDs and APIServices are named after what they serve.
  const fixed = { customresourcedefinitions: 'widgets.example.com', apiservices: 'v1.example.com' };
  const object = structuredClone({
    ...rest,
    apiVersion: apiVersionOf(definition),
    kind: definition.kind,
    metadata: { name: fixed[definition.plural as keyof typeof fixed] ?? name },
  });
  // What the handler gives the Store: the body decoded, defaulted.
  return decodeObject(withBuiltinStrategy(definition), object, 'body');
}

const served = [...builtinResources, customResourceDefinitions, apiServices].filter(
  (d) => !storesNothing(withBuiltinStrategy(d).strategy),
);

describe('the generic Store: every verb of every kind reaches storage through it', () => {
  const memory = new MemoryStorage({ compactionInterval: 0 });
  const calls: string[] = [];
  const storage = recordingStorage(memory, calls);
  const registry = new ResourceRegistry(storage, withBuiltinStrategies(served), {
    logger: silentLogger,
  });
  const authorizer = new RequestAuthorizer(alwaysAllow);
  const parts = {
    authorizer,
    authenticator: { reviewToken: () => Promise.reject(new Error('no tokens here')) },
    logger: silentLogger,
  };
  const context = (definition: ResourceDefinition, verb: string): RequestContext =>
    loopbackContext(parts, {
      verb,
      apiGroup: definition.group,
      resource: definition.plural,
      ...(definition.namespaced ? { namespace: 'default' } : {}),
    });
  /** The writes (and reads of storage) `step` made. */
  async function recorded(step: () => Promise<unknown>): Promise<string[]> {
    calls.length = 0;
    await step();
    return calls.map((c) => c.split(' ')[0]!);
  }

  beforeAll(async () => {
    await ensureSystemNamespaces(registry, parts);
    await registry.start();
    // What the serviceaccounts controller makes: pods run as `default`.
    const serviceAccounts = builtinResources.find((d) => d.plural === 'serviceaccounts')!;
    await registry
      .lookup('', 'v1', 'serviceaccounts')!
      .store.create(
        context(serviceAccounts, 'create'),
        undefined,
        sample(serviceAccounts, 'default'),
        {
          dryRun: false,
        },
      );
  });
  afterAll(async () => {
    await registry.stop();
    await memory.close();
  });

  it('the system namespaces are made through the namespaces Store, with what its strategy sets', async () => {
    const object = await memory.get(`${memory.prefix}/namespaces/kube-system`);
    expect(object?.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'kube-system' });
    expect(object?.['spec']).toEqual({ finalizers: ['kubernetes'] });
    expect(object?.metadata.uid).toBeTruthy();
  });

  it.each(served.map((d) => [`${keyOf(d)}/${d.version}`, d] as const))(
    '%s: create, get, list, watch, update, patch, apply, status, delete and deletecollection',
    async (_name, definition) => {
      const store = registry.lookup(definition.group, definition.version, definition.plural)!.store;
      const suffix = definition.version;
      const name = `store-${suffix}`;
      const ctx = (verb: string) => context(definition, verb);
      const watcher = await store.watch(ctx('watch'), {
        options: parseListOptions(new URLSearchParams(), { definition }),
        timeoutMs: 60_000,
      });

      let created: KubeObject | undefined;
      expect(
        await recorded(async () => {
          created = await store.create(ctx('create'), undefined, sample(definition, name), {
            dryRun: false,
          });
        }),
      ).toContain('create');
      const objectName = created!.metadata.name!;
      // The watch opened before hears of it from the watch cache.
      const batch = await watcher.nextBatch();
      expect(batch?.[0]?.encoded.event).toMatchObject({ type: 'ADDED' });
      watcher.end('closed');
      expect(await recorded(() => store.get(ctx('get'), objectName, {}))).toEqual(['get']);
      const listed = await store.list(
        ctx('list'),
        parseListOptions(new URLSearchParams(), { definition }),
      );
      expect(listed.items.map((o) => o.metadata.name)).toContain(objectName);

      // PUT and PATCH: an UpdatedObjectInfo of the stored object, through GuaranteedUpdate.
      const relabel = (value: string) => ({
        updatedObject: (current: KubeObject | undefined) => ({
          ...current!,
          metadata: { ...current!.metadata, labels: { ...current!.metadata.labels, step: value } },
        }),
      });
      expect(
        await recorded(() =>
          store.update(ctx('update'), objectName, relabel('update'), { dryRun: false }),
        ),
      ).toContain('guaranteedUpdate');
      expect(
        await recorded(() =>
          store.update(ctx('patch'), objectName, relabel('patch'), { dryRun: false }),
        ),
      ).toContain('guaranteedUpdate');

      // Apply to a missing object creates it through the Store's create (allocation,
      // conversion); to an existing one it updates.
      const applied = sample(definition, `${name}-applied`);
      let result: { created: boolean; object: KubeObject } | undefined;
      // CRDs and APIServices have one name each here: the one deleted below.
      const named = ['customresourcedefinitions', 'apiservices'].includes(definition.plural);
      if (!named) {
        expect(
          await recorded(async () => {
            result = await store.update(
              ctx('patch'),
              applied.metadata.name!,
              { updatedObject: (current) => current ?? structuredClone(applied) },
              { dryRun: false, forceAllowCreate: true },
            );
          }),
        ).toContain('create');
        expect(result?.created).toBe(true);
      }

      const status = store.restStorage('status');
      if (status?.update)
        expect(
          await recorded(() =>
            status.update!(ctx('update'), objectName, relabel('status'), { dryRun: false }),
          ),
        ).toContain('guaranteedUpdate');

      expect(
        await recorded(() => store.delete(ctx('delete'), objectName, { gracePeriodSeconds: 0 })),
      ).toEqual(expect.arrayContaining(['get']));
      if (store.restStorage()?.deleteCollection) {
        // A CRD is kept until its finalizer has run: deleting it again is what there is.
        if (named)
          await store
            .create(ctx('create'), undefined, sample(definition, name), { dryRun: false })
            .catch((err: unknown) => {
              if (!(err instanceof ApiError && err.reason === 'AlreadyExists')) throw err;
            });
        const gone = await recorded(() =>
          store.deleteCollection(
            ctx('deletecollection'),
            { gracePeriodSeconds: 0 },
            parseListOptions(new URLSearchParams(), { definition }),
          ),
        );
        expect(gone).toContain('get');
        if (definition.plural !== 'customresourcedefinitions')
          expect(gone.filter((m) => WRITES.has(m)).length).toBeGreaterThan(0);
      }
    },
  );

  it('a Service applied into existence gets its cluster IP (the allocation a create makes)', async () => {
    const services = builtinResources.find((d) => d.plural === 'services')!;
    const store = registry.lookup('', 'v1', 'services')!.store;
    const { object, created } = await store.update(
      context(services, 'patch'),
      'applied-service',
      { updatedObject: (current) => current ?? sample(services, 'applied-service') },
      { dryRun: false, forceAllowCreate: true },
    );
    expect(created).toBe(true);
    expect((object['spec'] as { clusterIP?: string }).clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  });

  it('an events.k8s.io Event applied into existence is stored as a core/v1 Event (storage version)', async () => {
    const events = builtinResources.find((d) => d.group === 'events.k8s.io')!;
    const store = registry.lookup('events.k8s.io', 'v1', 'events')!.store;
    await store.update(
      context(events, 'patch'),
      'applied-event',
      { updatedObject: (current) => current ?? sample(events, 'applied-event') },
      { dryRun: false, forceAllowCreate: true },
    );
    const stored = await memory.get(`${memory.prefix}/events/default/applied-event`);
    expect(stored?.apiVersion).toBe('v1');
  });

  it('a served resource without a strategy is refused: no Store gets an empty one', () => {
    const widget: ResourceDefinition = {
      ...builtinResources.find((d) => d.plural === 'configmaps')!,
      group: 'example.com',
      plural: 'widgets',
      kind: 'Widget',
    };
    expect(() => withBuiltinStrategies([widget])).toThrow(/no strategy/);
  });
});
