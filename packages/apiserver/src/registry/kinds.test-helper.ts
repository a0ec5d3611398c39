import type { KubeObject, Status } from '@listwatch/api';
import { expect } from 'vitest';

// A minimal valid object of each kind added with its strategy (statefulsets … HPAs), as a user
// would write it: what the table-driven CRUD/list/watch tests and the kubectl e2e tests create.

const labels = { app: 'web' };
const podTemplate = (restartPolicy?: string) => ({
  metadata: { labels },
  spec: {
    ...(restartPolicy ? { restartPolicy } : {}),
    containers: [{ name: 'web', image: 'nginx:1.27' }],
  },
});

export interface KindCase {
  /** The URL segment: `apis/apps/v1` or `api/v1`. */
  prefix: string;
  plural: string;
  namespaced: boolean;
  /** Has a status subresource (the main resource then never writes status). */
  status: boolean;
  /** A status a controller could write (for the kinds with a status subresource). */
  sampleStatus: Record<string, unknown>;
  object: KubeObject;
}

function kind(
  apiVersion: string,
  kindName: string,
  plural: string,
  body: Record<string, unknown>,
  options: { namespaced?: boolean; status?: boolean; sampleStatus?: Record<string, unknown> } = {},
): KindCase {
  return {
    sampleStatus: options.sampleStatus ?? { observedGeneration: 7 },
    prefix: apiVersion.includes('/') ? `apis/${apiVersion}` : `api/${apiVersion}`,
    plural,
    namespaced: options.namespaced ?? true,
    status: options.status ?? false,
    object: { apiVersion, kind: kindName, metadata: { name: 'web' }, ...body },
  };
}

export const KIND_CASES: readonly KindCase[] = [
  kind(
    'apps/v1',
    'StatefulSet',
    'statefulsets',
    { spec: { serviceName: 'web', selector: { matchLabels: labels }, template: podTemplate() } },
    { status: true },
  ),
  kind(
    'apps/v1',
    'DaemonSet',
    'daemonsets',
    { spec: { selector: { matchLabels: labels }, template: podTemplate() } },
    { status: true },
  ),
  kind('apps/v1', 'ControllerRevision', 'controllerrevisions', {
    data: { spec: { template: {} } },
    revision: 1,
  }),
  kind(
    'batch/v1',
    'Job',
    'jobs',
    { spec: { template: podTemplate('Never') } },
    { status: true, sampleStatus: { active: 1 } },
  ),
  kind(
    'batch/v1',
    'CronJob',
    'cronjobs',
    {
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: { spec: { template: podTemplate('OnFailure') } },
      },
    },
    { status: true, sampleStatus: { lastScheduleTime: '2026-01-01T00:00:00Z' } },
  ),
  kind('v1', 'Endpoints', 'endpoints', {
    subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }],
  }),
  kind(
    'v1',
    'PersistentVolumeClaim',
    'persistentvolumeclaims',
    { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    { status: true, sampleStatus: { phase: 'Bound' } },
  ),
  kind(
    'v1',
    'PersistentVolume',
    'persistentvolumes',
    {
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: '/data' },
      },
    },
    { namespaced: false, status: true, sampleStatus: { phase: 'Available' } },
  ),
  kind(
    'v1',
    'ResourceQuota',
    'resourcequotas',
    { spec: { hard: { pods: '10' } } },
    { status: true, sampleStatus: { used: { pods: '1' } } },
  ),
  kind('v1', 'LimitRange', 'limitranges', {
    spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] },
  }),
  kind('v1', 'PodTemplate', 'podtemplates', { template: podTemplate() }),
  kind(
    'v1',
    'ReplicationController',
    'replicationcontrollers',
    { spec: { template: podTemplate() } },
    { status: true },
  ),
  kind('discovery.k8s.io/v1', 'EndpointSlice', 'endpointslices', {
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.0.1'] }],
    ports: [{ port: 80 }],
  }),
  kind(
    'networking.k8s.io/v1',
    'Ingress',
    'ingresses',
    { spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } },
    { status: true, sampleStatus: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } } },
  ),
  kind('networking.k8s.io/v1', 'NetworkPolicy', 'networkpolicies', {
    spec: { podSelector: { matchLabels: labels } },
  }),
  kind(
    'policy/v1',
    'PodDisruptionBudget',
    'poddisruptionbudgets',
    { spec: { minAvailable: 1, selector: { matchLabels: labels } } },
    { status: true },
  ),
  kind(
    'autoscaling/v1',
    'HorizontalPodAutoscaler',
    'horizontalpodautoscalers',
    {
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 3,
      },
    },
    { status: true },
  ),
];

/** The collection URL of a case in a namespace. */
export function collectionOf(c: KindCase, namespace: string): string {
  return c.namespaced
    ? `/${c.prefix}/namespaces/${namespace}/${c.plural}`
    : `/${c.prefix}/${c.plural}`;
}

/** The (field, reason) pairs of a 422 Invalid Status, after asserting it is one. */
export function invalidCauses(res: {
  status: number;
  body: unknown;
}): [string | undefined, string | undefined][] {
  const status = res.body as Status;
  expect(res.status, JSON.stringify(status)).toBe(422);
  expect(status).toMatchObject({ kind: 'Status', code: 422, reason: 'Invalid' });
  return (status.details?.causes ?? []).map((c) => [c.field, c.reason]);
}
