import * as k8s from '@kubernetes/client-node';
import { isRecord, type KubeObject } from '@listwatch/api';
import { PYTHON } from '@listwatch/testing';
import fc from 'fast-check';
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { e2eForFile } from './e2e.test-helper.js';

// One bad write must not break every typed client (issue 22): after a fuzzer of creates, updates
// and every patch type over every served kind — valid objects with fields swapped for values of
// the wrong type, out of range, or missing — the Python client (python3-kubernetes) and
// @kubernetes/client-node list every kind and decode every object. Each write is answered with a
// success or a 4xx Status, and nothing the server refused was logged as an unexpected failure.

const logged: string[] = [];
const record = (message: string, fields?: Record<string, unknown>) =>
  logged.push(`${message} ${JSON.stringify(fields)}`);
const e2e = e2eForFile({ logger: { debug() {}, info() {}, warn: record, error: record } });
const NS = 'typed';

const template = {
  metadata: { labels: { app: 'web' } },
  spec: {
    containers: [
      {
        name: 'web',
        image: 'nginx:1.27',
        ports: [{ containerPort: 80, name: 'http' }],
        env: [{ name: 'MODE', value: 'fast' }],
        resources: { limits: { cpu: '500m', memory: '128Mi' } },
        livenessProbe: { httpGet: { port: 'http' } },
      },
    ],
  },
};

/** A valid object of each served kind, and where it is written. */
const SEEDS: readonly { path: string; object: KubeObject }[] = [
  { path: '/api/v1/namespaces', object: { metadata: { name: 'typed-ns' } } },
  {
    path: `/api/v1/namespaces/${NS}/pods`,
    object: { metadata: { name: 'seed', labels: { app: 'web' } }, spec: template.spec },
  },
  {
    path: `/api/v1/namespaces/${NS}/configmaps`,
    object: { metadata: { name: 'seed' }, data: { a: 'b' }, binaryData: { c: 'ZA==' } },
  },
  {
    path: `/api/v1/namespaces/${NS}/secrets`,
    object: { metadata: { name: 'seed' }, data: { a: 'Yg==' }, type: 'Opaque' },
  },
  {
    path: `/api/v1/namespaces/${NS}/serviceaccounts`,
    object: { metadata: { name: 'seed' }, automountServiceAccountToken: false },
  },
  {
    path: '/api/v1/nodes',
    object: {
      metadata: { name: 'seed' },
      spec: { podCIDR: '10.244.0.0/24', taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: {
        capacity: { cpu: '4', pods: '110' },
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
        conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2024-01-01T00:00:00Z' }],
        nodeInfo: { kubeletVersion: 'v1.32.0', architecture: 'amd64' },
      },
    },
  },
  {
    path: `/api/v1/namespaces/${NS}/services`,
    object: {
      metadata: { name: 'seed' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] },
    },
  },
  {
    path: `/api/v1/namespaces/${NS}/events`,
    object: {
      metadata: { name: 'seed' },
      involvedObject: { kind: 'Pod', name: 'seed', namespace: NS },
      reason: 'Started',
      message: 'started',
      type: 'Normal',
      count: 1,
      firstTimestamp: '2024-01-01T00:00:00Z',
      eventTime: '2024-01-01T00:00:00.000000Z',
      // A new-style event (with an eventTime) names its reporter (legacyValidateEvent).
      reportingComponent: 'kubelet',
      reportingInstance: 'node-1',
      action: 'Started',
      source: { component: 'kubelet' },
    },
  },
  {
    // Stored as autoscaling/v2; the Python client (no v2 API) reads it through autoscaling/v1.
    path: `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`,
    object: {
      metadata: { name: 'seed' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'seed' },
        maxReplicas: 4,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } },
          },
        ],
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
    },
  },
  {
    path: `/apis/apps/v1/namespaces/${NS}/deployments`,
    object: {
      metadata: { name: 'seed' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template },
    },
  },
  {
    path: `/apis/apps/v1/namespaces/${NS}/replicasets`,
    object: {
      metadata: { name: 'seed' },
      spec: { selector: { matchLabels: { app: 'web' } }, template },
    },
  },
  {
    path: `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`,
    object: {
      metadata: { name: 'seed' },
      spec: {
        holderIdentity: 'a',
        leaseDurationSeconds: 15,
        renewTime: '2024-01-01T00:00:00.000000Z',
      },
    },
  },
  {
    path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`,
    object: {
      metadata: { name: 'seed' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    },
  },
  {
    path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    object: {
      metadata: { name: 'typed-seed' },
      rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }],
    },
  },
  {
    path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`,
    object: {
      metadata: { name: 'seed' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'seed' },
      subjects: [{ kind: 'User', name: 'alice' }],
    },
  },
  {
    path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    object: {
      metadata: { name: 'typed-seed' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'typed-seed' },
      subjects: [{ kind: 'ServiceAccount', name: 'seed', namespace: NS }],
    },
  },
];

/** Every path to a value inside `value` (object keys and list indices). */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  if (Array.isArray(value))
    value.forEach((v, i) => out.push([...prefix, i], ...paths(v, [...prefix, i])));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value))
      out.push([...prefix, k], ...paths(v, [...prefix, k]));
  return out;
}

function setAt(root: unknown, path: (string | number)[], value: unknown): void {
  let at = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (value === undefined) {
    if (Array.isArray(at)) at.splice(Number(last), 1);
    else delete at[last];
  } else at[last] = value;
}

/** Values that are often of the wrong type, out of range or malformed where they land. */
const replacement = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    'three',
    '',
    '1Gi',
    '2024-01-01T00:00:00Z',
    'not-a-time',
    '25%',
    'YQ==',
    '%%%',
    -1,
    0,
    70000,
    1.5,
    2 ** 40,
    true,
    {},
    [],
    ['x'],
    { a: 1 },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);

const mutation = fc.record({
  seed: fc.nat({ max: SEEDS.length - 1 }),
  at: fc.nat(),
  value: replacement,
  verb: fc.constantFrom('POST', 'PUT', 'merge', 'strategic', 'json'),
});

async function send(method: string, path: string, type: string, body: unknown) {
  const res = await fetch(`${e2e.server.url}${path}`, {
    method,
    headers: { 'Content-Type': type },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, text: await res.text() };
}

const PYTHON_LISTS = `
import sys, json
from kubernetes import client
c = client.Configuration(); c.host = sys.argv[1]
api = client.ApiClient(c)
core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
coord, rbac = client.CoordinationV1Api(api), client.RbacAuthorizationV1Api(api)
autoscaling = client.AutoscalingV1Api(api)
calls = [autoscaling.list_horizontal_pod_autoscaler_for_all_namespaces, core.list_namespace, core.list_pod_for_all_namespaces, core.list_config_map_for_all_namespaces,
  core.list_secret_for_all_namespaces, core.list_service_account_for_all_namespaces, core.list_node,
  core.list_service_for_all_namespaces, core.list_event_for_all_namespaces,
  apps.list_deployment_for_all_namespaces, apps.list_replica_set_for_all_namespaces,
  coord.list_lease_for_all_namespaces, rbac.list_role_for_all_namespaces, rbac.list_cluster_role,
  rbac.list_role_binding_for_all_namespaces, rbac.list_cluster_role_binding]
print(json.dumps({call.__name__: len(call().items) for call in calls}))
`;

function python(script: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(PYTHON, ['-c', script, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

describe('typed clients after a fuzzer of writes over every kind', () => {
  it('every write is a success or a 4xx; then Python and client-node list and decode every kind', async () => {
    expect((await e2e.api.post('/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
    for (const { path, object } of SEEDS) {
      const res = await e2e.api.post(path, object);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
    }
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(mutation, async ({ seed, at, value, verb }) => {
        const { path, object } = SEEDS[seed]!;
        const body = structuredClone(object);
        const all = paths(body);
        const target = all[at % all.length]!;
        setAt(body, target, value);
        const name = object.metadata.name!;
        let res;
        if (verb === 'POST') {
          const { name: _name, ...meta } = isRecord(body.metadata) ? body.metadata : {};
          body.metadata = { ...meta, generateName: 'f-' };
          res = await send('POST', path, 'application/json', body);
        } else if (verb === 'PUT') {
          res = await send('PUT', `${path}/${name}`, 'application/json', body);
        } else if (verb === 'json') {
          const pointer = `/${target.map((k) => String(k).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
          const op =
            value === undefined
              ? { op: 'remove', path: pointer }
              : { op: 'add', path: pointer, value };
          res = await send('PATCH', `${path}/${name}`, 'application/json-patch+json', [op]);
        } else {
          const type =
            verb === 'merge'
              ? 'application/merge-patch+json'
              : 'application/strategic-merge-patch+json';
          res = await send('PATCH', `${path}/${name}`, type, body);
        }
        expect(
          res.status,
          `${verb} ${path} ${JSON.stringify(target)}=${JSON.stringify(value)}: ${res.text}`,
        ).toBeLessThan(500);
        if (res.status < 300) accepted++;
      }),
      { numRuns: 400, endOnFailure: true },
    );
    // The fuzzer got through to storage, not only to refusals.
    expect(accepted).toBeGreaterThan(40);
    expect(logged).toEqual([]);

    const counts = JSON.parse(await python(PYTHON_LISTS, e2e.server.url)) as Record<string, number>;
    for (const [call, count] of Object.entries(counts)) expect(count, call).toBeGreaterThan(0);

    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'listwatch', server: e2e.server.url, skipTLSVerify: true }],
      users: [{ name: 'developer' }],
      contexts: [{ name: 'listwatch', cluster: 'listwatch', user: 'developer' }],
      currentContext: 'listwatch',
    });
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    const coordination = kc.makeApiClient(k8s.CoordinationV1Api);
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    const autoscaling = kc.makeApiClient(k8s.AutoscalingV2Api);
    const lists = await Promise.all([
      core.listNamespace(),
      core.listPodForAllNamespaces(),
      core.listConfigMapForAllNamespaces(),
      core.listSecretForAllNamespaces(),
      core.listServiceAccountForAllNamespaces(),
      core.listNode(),
      core.listServiceForAllNamespaces(),
      core.listEventForAllNamespaces(),
      apps.listDeploymentForAllNamespaces(),
      apps.listReplicaSetForAllNamespaces(),
      coordination.listLeaseForAllNamespaces(),
      rbac.listRoleForAllNamespaces(),
      rbac.listClusterRole(),
      rbac.listRoleBindingForAllNamespaces(),
      rbac.listClusterRoleBinding(),
      autoscaling.listHorizontalPodAutoscalerForAllNamespaces(),
    ]);
    for (const list of lists) expect(list.items.length).toBeGreaterThan(0);
    // client-node turns times into Dates: every one it read is a valid date.
    const deployments = lists[8];
    for (const d of deployments.items)
      expect(Number.isNaN(d.metadata?.creationTimestamp?.getTime())).toBe(false);
  });
});
