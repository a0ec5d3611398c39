import type { KubeObject } from '@listwatch/api';
import { ApiError } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { FieldManager, managerOrUserAgent } from './field-manager.js';
import type { ManagedFieldsEntry } from './managed-fields.js';

// The field manager chain of k8s.io/apimachinery pkg/util/managedfields/internal
// (fieldmanager.go, managedfieldsupdater.go, skipnonapplied.go, stripmeta.go,
// buildmanagerinfo.go, conflict.go) on built-in kinds.

const configMaps = new FieldManager({
  gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
  hasStatusSubresource: false,
});
const deployments = new FieldManager({
  gvk: { group: 'apps', version: 'v1', kind: 'Deployment' },
  hasStatusSubresource: true,
});
const deploymentStatus = new FieldManager({
  gvk: { group: 'apps', version: 'v1', kind: 'Deployment' },
  subresource: 'status',
  hasStatusSubresource: true,
});

const cm = (data: Record<string, string>, extra: Partial<KubeObject['metadata']> = {}) =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'default', ...extra },
    data,
  }) as KubeObject;

const entries = (o: KubeObject) =>
  (o.metadata.managedFields ?? []) as unknown as ManagedFieldsEntry[];
const stored = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, uid: 'u1' } });

describe('managedFields of updates (managedfieldsupdater.go, stripmeta.go)', () => {
  it('a create records one Update entry of the fields it set, metadata.name and uid excluded', () => {
    const created = configMaps.update(
      undefined,
      cm({ a: '1' }, { labels: { x: 'y' } }),
      'kubectl-create',
    );
    const [entry, ...rest] = entries(created);
    expect(rest).toEqual([]);
    expect(entry).toEqual({
      manager: 'kubectl-create',
      operation: 'Update',
      apiVersion: 'v1',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) as string,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:data': { '.': {}, 'f:a': {} },
        'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } },
      },
    });
  });

  it('updates by one manager merge into its entry; another manager takes what it changes', () => {
    const created = stored(configMaps.update(undefined, cm({ a: '1' }), 'one'));
    const second = stored(
      configMaps.update(created, { ...cm({ a: '1', b: '2' }), metadata: created.metadata }, 'one'),
    );
    expect(entries(second).map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['one', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } }],
    ]);
    const third = configMaps.update(
      second,
      { ...cm({ a: 'changed', b: '2' }), metadata: second.metadata },
      'two',
    );
    expect(Object.fromEntries(entries(third).map((e) => [e.manager, e.fieldsV1]))).toEqual({
      one: { 'f:data': { '.': {}, 'f:b': {} } },
      two: { 'f:data': { 'f:a': {} } },
    });
  });

  it('an update that sends an empty managedFields list resets them (isResetManagedFields)', () => {
    const created = stored(configMaps.update(undefined, cm({ a: '1' }), 'one'));
    const reset = configMaps.update(
      created,
      { ...cm({ a: '2' }), metadata: { ...created.metadata, managedFields: [] } },
      'two',
    );
    expect(reset.metadata.managedFields).toBeUndefined();
  });

  it('an existing object nobody tracks stays untracked on update (skipnonapplied.go)', () => {
    const untracked = stored(cm({ a: '1' }));
    expect(
      configMaps.update(untracked, cm({ a: '2' }), 'one').metadata.managedFields,
    ).toBeUndefined();
  });

  it('a status write is an entry with subresource status that owns only status', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', uid: 'u' },
      spec: { replicas: 1 },
    } as KubeObject;
    const created = deployments.update(
      undefined,
      { ...deployment, status: { replicas: 5 } },
      'kubectl',
    );
    // The main resource does not own status (the strategies' reset fields).
    expect(entries(created).map((e) => e.fieldsV1)).toEqual([
      { 'f:spec': { '.': {}, 'f:replicas': {} } },
    ]);
    // The create strategy drops what a create says of status.
    const { status: _dropped, ...live } = stored(created);
    const written = deploymentStatus.update(
      live,
      { ...live, status: { replicas: 1 } },
      'controller',
    );
    expect(entries(written).find((e) => e.manager === 'controller')).toMatchObject({
      operation: 'Update',
      subresource: 'status',
      fieldsV1: { 'f:status': { '.': {}, 'f:replicas': {} } },
    });
  });
});

describe('at most ten Update managers (capmanagers.go)', () => {
  it('the oldest updates merge into "ancient-changes" once there are more than ten', () => {
    let object = stored(configMaps.update(undefined, cm({ k0: 'v' }), 'm0'));
    for (let i = 1; i <= 11; i++) {
      const data = { ...(object['data'] as Record<string, string>), [`k${i}`]: 'v' };
      object = stored(configMaps.update(object, { ...object, data }, `m${i}`));
    }
    const managers = entries(object).map((e) => e.manager);
    expect(managers).toHaveLength(10);
    expect(managers).toContain('ancient-changes');
    // All in one second, so oldest means first by identifier: m0, m1, m10.
    const ancient = entries(object).find((e) => e.manager === 'ancient-changes');
    expect(ancient?.fieldsV1).toEqual({
      'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {}, 'f:k10': {} },
    });
  });
});

describe('managedFields of applies', () => {
  it('the first apply to an untracked object gives what it had to "before-first-apply"', () => {
    const live = stored(cm({ old: 'x' }));
    const applied = configMaps.apply(
      live,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } },
      'tool',
      false,
    );
    expect(entries(applied).map((e) => [e.manager, e.operation, e.fieldsV1])).toEqual([
      ['tool', 'Apply', { 'f:data': { 'f:a': {} } }],
      ['before-first-apply', 'Update', { 'f:data': { '.': {}, 'f:old': {} } }],
    ]);
    expect(applied['data']).toEqual({ old: 'x', a: '1' });
  });

  it('an apply of another kind is a 400 "invalid object type" (versioncheck.go)', () => {
    let err: unknown;
    try {
      configMaps.apply(
        undefined,
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'c' } },
        'tool',
        false,
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe('invalid object type: /v1, Kind=Secret');
  });

  it('an applied managedFields is refused (structuredmerge.go)', () => {
    expect(() =>
      configMaps.apply(
        undefined,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', managedFields: [] } },
        'tool',
        false,
      ),
    ).toThrow('metadata.managedFields must be nil');
  });
});

describe('managerOrUserAgent (create.go prefixFromUserAgent)', () => {
  it.each([
    ['kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9', 'kubectl'],
    ['kube-controller-manager/v1.32.0', 'kube-controller-manager'],
    ['node', 'node'],
    ['', ''],
  ])('the User-Agent %j writes as %j', (agent, manager) => {
    expect(managerOrUserAgent(undefined, agent)).toBe(manager);
  });

  it('a fieldManager wins over the User-Agent', () => {
    expect(managerOrUserAgent('mine', 'kubectl/v1.32.0')).toBe('mine');
  });
});

// k8s.io/apimachinery pkg/util/managedfields/fieldmanager_test.go, on the same kinds, with the
// live object kept as its TestFieldManager keeps it.
describe('apimachinery fieldmanager_test.go', () => {
  class TestFieldManager {
    live: KubeObject | undefined;
    constructor(private readonly fm: FieldManager) {}
    update(obj: KubeObject, manager: string): void {
      this.live = this.fm.update(this.live, structuredClone(obj), manager);
    }
    apply(obj: KubeObject, manager: string, force: boolean): void {
      this.live = this.fm.apply(this.live, structuredClone(obj) as never, manager, force);
    }
    managedFields(): ManagedFieldsEntry[] {
      return this.live ? entries(this.live) : [];
    }
  }
  const deploymentYaml = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'deployment', labels: { app: 'nginx' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'nginx' } },
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] },
      },
    },
  } as KubeObject;

  it('TestUpdateApplyConflict', () => {
    const f = new TestFieldManager(deployments);
    f.update(deploymentYaml, 'fieldmanager_test');
    const applied = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'deployment' },
      spec: { replicas: 101 },
    } as KubeObject;
    let err: unknown;
    try {
      f.apply(applied, 'fieldmanager_conflict', false);
    } catch (e) {
      err = e;
    }
    expect((err as ApiError).code).toBe(409);
    expect((err as ApiError).message).toBe(
      'Apply failed with 1 conflict: conflict with "fieldmanager_test" using apps/v1: .spec.replicas',
    );
  });

  it('TestApplyStripsFields', () => {
    const f = new TestFieldManager(deployments);
    f.update(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name: 'b',
          namespace: 'b',
          uid: 'b',
          generation: 0,
          resourceVersion: 'b',
          creationTimestamp: '2024-01-01T00:00:00Z',
          managedFields: [{ manager: 'update', operation: 'Apply', apiVersion: 'apps/v1' }],
        },
      },
      'fieldmanager_test',
    );
    expect(f.managedFields()).toHaveLength(0);
  });

  it('TestApplyDoesNotStripLabels', () => {
    const f = new TestFieldManager(
      new FieldManager({
        gvk: { group: '', version: 'v1', kind: 'Pod' },
        hasStatusSubresource: true,
      }),
    );
    f.apply(
      { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { a: 'b' } } },
      'fieldmanager_test',
      false,
    );
    expect(f.managedFields()).toHaveLength(1);
  });

  it('TestApplyNewObject', () => {
    const f = new TestFieldManager(deployments);
    f.apply(deploymentYaml, 'fieldmanager_test', false);
    expect(f.live?.['spec']).toMatchObject({ replicas: 3 });
  });

  it('TestNoOpChanges', () => {
    const f = new TestFieldManager(
      new FieldManager({
        gvk: { group: '', version: 'v1', kind: 'Pod' },
        hasStatusSubresource: true,
      }),
    );
    const obj = { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { a: 'b' } } } as KubeObject;
    f.apply(obj, 'fieldmanager_test_apply', false);
    let before = structuredClone(f.live);
    // Applying with a different field manager creates an entry.
    f.apply(obj, 'fieldmanager_test_apply_other', false);
    expect(f.live).not.toEqual(before);
    // A no-op update changes nothing, managedFields included.
    before = structuredClone(f.live);
    f.update(obj, 'fieldmanager_test_update');
    expect(f.live).toEqual(before);
    // Nor does a no-op forced re-apply.
    f.apply(obj, 'fieldmanager_test_apply', true);
    expect(f.live).toEqual(before);
  });

  it('TestResetManagedFieldsEmptyItem', () => {
    const f = new TestFieldManager(configMaps);
    f.update(cm({ a: '1' }), 'update');
    f.live = stored(f.live as KubeObject);
    f.update(
      { ...cm({ a: '1' }), metadata: { ...f.live.metadata, managedFields: [{}] } },
      'update',
    );
    expect(f.managedFields()).toHaveLength(0);
  });
});
