import type { KubeObject, Status } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { serverForFile } from '../testing/test-server.js';
import {
  collectionOf,
  invalidCauses as causes,
  KIND_CASES,
  type KindCase,
} from './kinds.test-helper.js';

// The defaults (pkg/apis/<group>/v1/defaults.go), server-set fields (pkg/registry/<group>/
// <resource>/strategy.go) and validation rules (pkg/apis/<group>/validation) of the kinds added
// with their strategies, each rule named as kube states it.

const env = serverForFile('rules');

function caseOf(plural: string): KindCase {
  const found = KIND_CASES.find((c) => c.plural === plural);
  if (!found) throw new Error(plural);
  return found;
}

type Body = Record<string, unknown>;

/** Creates `plural`'s sample with `change` merged over it (spec merged one level down). */
async function create(plural: string, change: Body = {}, name?: string) {
  const c = caseOf(plural);
  const ns = await env.namespace();
  const { spec, ...rest } = change;
  const object = {
    ...c.object,
    metadata: { name: name ?? (c.namespaced ? 'web' : `${ns}-web`) },
    ...rest,
    ...(spec !== undefined
      ? { spec: { ...((c.object['spec'] as Body | undefined) ?? {}), ...(spec as Body) } }
      : {}),
  };
  const base = collectionOf(c, ns);
  const res = await env.api.post<KubeObject & Body>(base, object);
  return { ...res, path: `${base}/${object.metadata.name}` };
}

const spec = (o: unknown) => (o as { spec: Body }).spec;
const template = (o: unknown) => spec(o)['template'] as { metadata: Body; spec: Body };

describe('defaults and server-set fields', () => {
  it('a StatefulSet reads back with SetDefaults_StatefulSet and its pod template defaults, generation 1 and a zero status', async () => {
    const res = await create('statefulsets');
    expect(res.status).toBe(201);
    expect(spec(res.body)).toMatchObject({
      replicas: 1,
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    });
    expect(template(res.body).spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      securityContext: {},
      containers: [
        {
          name: 'web',
          imagePullPolicy: 'IfNotPresent',
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          resources: {},
        },
      ],
    });
    expect(res.body.metadata.generation).toBe(1);
    expect(res.body['status']).toEqual({ replicas: 0, availableReplicas: 0 });
  });

  it('a StatefulSet generation follows its spec: a scale bumps it, a label change does not', async () => {
    const res = await create('statefulsets');
    const labelled = await env.api.patch(res.path, { metadata: { labels: { a: 'b' } } });
    expect(labelled.body.metadata.generation).toBe(1);
    const scaled = await env.api.patch(res.path, { spec: { replicas: 3 } });
    expect(scaled.body.metadata.generation).toBe(2);
  });

  it('a DaemonSet defaults its rolling update (maxUnavailable 1, maxSurge 0) and counts template generations in deprecated.daemonset.template.generation', async () => {
    const res = await create('daemonsets');
    expect(spec(res.body)).toMatchObject({
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
    });
    expect(res.body.metadata.annotations).toEqual({
      'deprecated.daemonset.template.generation': '1',
    });
    const changed = await env.api.patch(res.path, {
      spec: { template: { metadata: { labels: { app: 'web', v: '2' } } } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.metadata.annotations?.['deprecated.daemonset.template.generation']).toBe(
      '2',
    );
    expect(changed.body.metadata.generation).toBe(2);
  });

  it('a Job defaults completions, parallelism, backoffLimit 6 and its modes, and selects its pods by a selector the server makes from its uid', async () => {
    const res = await create('jobs');
    expect(res.status).toBe(201);
    const uid = res.body.metadata.uid;
    expect(spec(res.body)).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
    });
    expect(template(res.body).metadata['labels']).toEqual({
      app: 'web',
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': 'web',
      'controller-uid': uid,
      'job-name': 'web',
    });
    // A job without labels of its own takes its template's (as sent).
    expect(res.body.metadata.labels).toEqual({ app: 'web' });
    expect(res.body.metadata.generation).toBe(1);
  });

  it('jobs select by status.successful, their succeeded count (JobToSelectableFields)', async () => {
    const res = await create('jobs');
    const base = res.path.slice(0, res.path.lastIndexOf('/'));
    const zero = await env.api.get<{ items: KubeObject[] }>(
      `${base}?fieldSelector=status.successful%3D0`,
    );
    expect(zero.body.items.map((i) => i.metadata.name)).toEqual(['web']);
    const one = await env.api.get<{ items: KubeObject[] }>(
      `${base}?fieldSelector=status.successful%3D1`,
    );
    expect(one.body.items).toEqual([]);
  });

  it('a CronJob defaults concurrencyPolicy Allow, suspend false and keeps 3 successful and 1 failed jobs', async () => {
    const res = await create('cronjobs');
    expect(spec(res.body)).toMatchObject({
      concurrencyPolicy: 'Allow',
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    });
  });

  it('a ReplicationController without selector or labels takes its template labels for both, and replicas 1', async () => {
    const res = await create('replicationcontrollers');
    expect(spec(res.body)['selector']).toEqual({ app: 'web' });
    expect(spec(res.body)['replicas']).toBe(1);
    expect(res.body.metadata.labels).toEqual({ app: 'web' });
    expect(res.body['status']).toEqual({ replicas: 0 });
  });

  it('a PersistentVolumeClaim is Pending with volumeMode Filesystem; a PersistentVolume Pending with reclaim policy Retain and a phase transition time', async () => {
    const claim = await create('persistentvolumeclaims');
    expect(spec(claim.body)['volumeMode']).toBe('Filesystem');
    expect(claim.body['status']).toEqual({ phase: 'Pending' });
    const volume = await create('persistentvolumes');
    expect(spec(volume.body)).toMatchObject({
      persistentVolumeReclaimPolicy: 'Retain',
      volumeMode: 'Filesystem',
      hostPath: { path: '/data', type: '' },
    });
    expect(volume.body['status']).toMatchObject({ phase: 'Pending' });
    expect(
      Date.parse((volume.body['status'] as Body)['lastPhaseTransitionTime'] as string),
    ).not.toBeNaN();
  });

  it('a NetworkPolicy without policyTypes gets Ingress, and Egress when it has egress rules; ports default to TCP', async () => {
    const ingressOnly = await create('networkpolicies');
    expect(spec(ingressOnly.body)['policyTypes']).toEqual(['Ingress']);
    const both = await create('networkpolicies', {
      spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] },
    });
    expect(spec(both.body)['policyTypes']).toEqual(['Ingress', 'Egress']);
    expect(spec(both.body)['egress']).toEqual([{ ports: [{ port: 53, protocol: 'TCP' }] }]);
  });

  it('EndpointSlice ports default to name "" and TCP, Endpoints ports to TCP, and an EndpointSlice has a generation', async () => {
    const slice = await create('endpointslices');
    expect(slice.body['ports']).toEqual([{ name: '', port: 80, protocol: 'TCP' }]);
    expect(slice.body.metadata.generation).toBe(1);
    const moved = await env.api.patch(slice.path, { endpoints: [{ addresses: ['10.0.0.2'] }] });
    expect(moved.body.metadata.generation).toBe(2);
    const endpoints = await create('endpoints');
    expect((endpoints.body['subsets'] as Body[])[0]?.['ports']).toEqual([
      { port: 80, protocol: 'TCP' },
    ]);
    expect(endpoints.body.metadata.generation).toBeUndefined();
  });

  it("a LimitRange's container item takes its max as default limit and request", async () => {
    const res = await create('limitranges');
    expect(spec(res.body)['limits']).toEqual([
      { type: 'Container', max: { cpu: '1' }, default: { cpu: '1' }, defaultRequest: { cpu: '1' } },
    ]);
  });

  it('an autoscaling/v1 HorizontalPodAutoscaler defaults minReplicas to 1', async () => {
    const res = await create('horizontalpodautoscalers');
    expect(spec(res.body)['minReplicas']).toBe(1);
    expect(res.body['status']).toEqual({ currentReplicas: 0, desiredReplicas: 0 });
  });
});

describe('validation', () => {
  it('a StatefulSet whose selector does not match its template labels is refused on spec.template.metadata.labels', async () => {
    const res = await create('statefulsets', {
      spec: { selector: { matchLabels: { app: 'db' } } },
    });
    expect(causes(res)).toContainEqual(['spec.template.metadata.labels', 'FieldValueInvalid']);
  });

  it("a selector's matchExpressions need label values and known operators (metav1validation.ValidateLabelSelectorRequirement)", async () => {
    const ns = await env.namespace();
    const res = await env.api.post(`/apis/apps/v1/namespaces/${ns}/deployments`, {
      metadata: { name: 'web' },
      spec: {
        selector: {
          matchLabels: { app: 'web' },
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['not a label value!'] },
            { key: 'zone', operator: 'Gt', values: ['1'] },
          ],
        },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx' }] },
        },
      },
    });
    expect(causes(res)).toEqual(
      expect.arrayContaining([
        ['spec.selector.matchExpressions[0].values[0]', 'FieldValueInvalid'],
        ['spec.selector.matchExpressions[1].operator', 'FieldValueInvalid'],
      ]),
    );
  });

  it('a StatefulSet update may change replicas, template and strategy only (ValidateStatefulSetUpdate)', async () => {
    const res = await create('statefulsets');
    const changed = await env.api.patch(res.path, { spec: { serviceName: 'other' } });
    expect(causes(changed)).toEqual([['spec', 'FieldValueForbidden']]);
  });

  it('a DaemonSet pod template must restart Always, and its selector never changes', async () => {
    const never = await create('daemonsets', {
      spec: {
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'a', image: 'x' }] },
        },
      },
    });
    expect(causes(never)).toContainEqual([
      'spec.template.spec.restartPolicy',
      'FieldValueNotSupported',
    ]);
    const res = await create('daemonsets');
    const moved = await env.api.patch(res.path, {
      spec: {
        selector: { matchLabels: { app: 'web', v: '2' } },
        template: { metadata: { labels: { app: 'web', v: '2' } } },
      },
    });
    expect(causes(moved)).toContainEqual(['spec.selector', 'FieldValueInvalid']);
  });

  it('a Job whose pod template does not say OnFailure or Never is refused: the pod default Always is not allowed', async () => {
    const res = await create('jobs', {
      spec: { template: { metadata: {}, spec: { containers: [{ name: 'a', image: 'x' }] } } },
    });
    const status = res.body as unknown as Status;
    expect(causes(res)).toEqual([['spec.template.spec.restartPolicy', 'FieldValueNotSupported']]);
    expect(status.message).toContain(
      'Unsupported value: "Always": supported values: "OnFailure", "Never"',
    );
  });

  it("a Job's template and selector are immutable", async () => {
    const res = await create('jobs');
    const changed = await env.api.patch(res.path, {
      spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } },
    });
    expect(causes(changed)).toContainEqual(['spec.template', 'FieldValueInvalid']);
  });

  it('a CronJob with an unparseable schedule or a name longer than 52 characters is refused', async () => {
    const bad = await create('cronjobs', { spec: { schedule: 'every minute' } });
    expect(causes(bad)).toContainEqual(['spec.schedule', 'FieldValueInvalid']);
    const long = await create('cronjobs', {}, 'c'.repeat(53));
    expect(causes(long)).toContainEqual(['metadata.name', 'FieldValueInvalid']);
  });

  it('a PersistentVolumeClaim needs access modes and a storage request, and its spec is frozen but for its requests', async () => {
    const bad = await create('persistentvolumeclaims', {
      spec: { accessModes: [], resources: {} },
    });
    expect(causes(bad)).toEqual([
      ['spec.accessModes', 'FieldValueRequired'],
      ['spec.resources[storage]', 'FieldValueRequired'],
    ]);
    const res = await create('persistentvolumeclaims');
    const grown = await env.api.patch(res.path, {
      spec: { resources: { requests: { storage: '2Gi' } } },
    });
    expect(grown.status).toBe(200);
    const moved = await env.api.patch(res.path, { spec: { storageClassName: 'fast' } });
    expect(causes(moved)).toEqual([['spec', 'FieldValueForbidden']]);
  });

  it('a PersistentVolume must name exactly one volume type and a capacity', async () => {
    const none = await create('persistentvolumes', {
      spec: { hostPath: undefined },
    });
    expect(causes(none)).toEqual([['spec', 'FieldValueRequired']]);
  });

  it('Endpoints need valid IPs and ports in 1-65535; EndpointSlice addresses match the address type', async () => {
    const endpoints = await create('endpoints', {
      subsets: [{ addresses: [{ ip: 'not-an-ip' }], ports: [{ port: 0 }] }],
    });
    expect(causes(endpoints)).toEqual([
      ['subsets[0].addresses[0].ip', 'FieldValueInvalid'],
      ['subsets[0].ports[0].port', 'FieldValueInvalid'],
    ]);
    const slice = await create('endpointslices', { endpoints: [{ addresses: ['2001:db8::1'] }] });
    expect(causes(slice)).toEqual([['endpoints[0].addresses[0]', 'FieldValueInvalid']]);
    const untyped = await create('endpointslices', { addressType: undefined });
    expect(causes(untyped)).toEqual([['addressType', 'FieldValueRequired']]);
  });

  it('an Ingress needs a default backend or rules, and each path a pathType', async () => {
    const empty = await create('ingresses', { spec: { defaultBackend: undefined } });
    expect(causes(empty)).toEqual([['spec', 'FieldValueInvalid']]);
    const untyped = await create('ingresses', {
      spec: {
        defaultBackend: undefined,
        rules: [
          {
            http: {
              paths: [{ path: '/', backend: { service: { name: 'web', port: { number: 80 } } } }],
            },
          },
        ],
      },
    });
    expect(causes(untyped)).toEqual([
      ['spec.rules[0].http.paths[0].pathType', 'FieldValueRequired'],
    ]);
  });

  it('a PodDisruptionBudget may not set both minAvailable and maxUnavailable, nor a percentage above 100%', async () => {
    const both = await create('poddisruptionbudgets', {
      spec: { minAvailable: 1, maxUnavailable: 1 },
    });
    expect(causes(both)).toContainEqual(['spec', 'FieldValueInvalid']);
    const over = await create('poddisruptionbudgets', { spec: { minAvailable: '150%' } });
    expect(causes(over)).toEqual([['spec.minAvailable', 'FieldValueInvalid']]);
  });

  it('a HorizontalPodAutoscaler needs maxReplicas at least minReplicas', async () => {
    const res = await create('horizontalpodautoscalers', {
      spec: { minReplicas: 5, maxReplicas: 3, scaleTargetRef: { kind: 'Deployment', name: 'web' } },
    });
    expect(causes(res)).toEqual([['spec.maxReplicas', 'FieldValueInvalid']]);
  });

  it("a ControllerRevision's data never changes", async () => {
    const res = await create('controllerrevisions');
    const changed = await env.api.patch(res.path, { data: { spec: { replicas: 2 } } });
    expect(causes(changed)).toEqual([['data', 'FieldValueInvalid']]);
  });

  it('a ResourceQuota hard limit that is not a quantity is refused by the decode, 400 (Quantity.UnmarshalJSON)', async () => {
    const res = await create('resourcequotas', { spec: { hard: { pods: 'ten' } } });
    expect(res.status).toBe(400);
    expect((res.body as { message?: string }).message).toMatch(
      /cannot be handled as a ResourceQuota: quantities must match the regular expression/,
    );
  });
});
