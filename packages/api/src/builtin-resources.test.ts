import { describe, expect, it } from 'vitest';
import { builtinResources, findBuiltinResource } from './builtin-resource-definitions.js';
import type { KubeObject } from './object-meta.js';

const now = Date.parse('2026-01-01T01:00:00Z');

function cells(plural: string, object: KubeObject, wide = false): Record<string, unknown> {
  const def = findBuiltinResource(plural);
  if (!def) throw new Error(`no resource ${plural}`);
  return Object.fromEntries(
    def.tableColumns
      .filter((c) => wide || c.priority === 0)
      .map((c) => [c.name, c.cell(object, now)]),
  );
}

describe('built-in resource definitions', () => {
  it('serves the resources a fresh Kubernetes cluster has, each with a unique plural per group', () => {
    const names = builtinResources.map((r) => (r.group ? `${r.plural}.${r.group}` : r.plural));
    expect(names).toEqual([
      'namespaces',
      'pods',
      'configmaps',
      'secrets',
      'serviceaccounts',
      'nodes',
      'services',
      'events',
      'endpoints',
      'persistentvolumeclaims',
      'persistentvolumes',
      'resourcequotas',
      'limitranges',
      'podtemplates',
      'replicationcontrollers',
      'replicasets.apps',
      'deployments.apps',
      'statefulsets.apps',
      'daemonsets.apps',
      'controllerrevisions.apps',
      'events.events.k8s.io',
      'selfsubjectreviews.authentication.k8s.io',
      'tokenreviews.authentication.k8s.io',
      'localsubjectaccessreviews.authorization.k8s.io',
      'selfsubjectaccessreviews.authorization.k8s.io',
      'selfsubjectrulesreviews.authorization.k8s.io',
      'subjectaccessreviews.authorization.k8s.io',
      'horizontalpodautoscalers.autoscaling',
      'horizontalpodautoscalers.autoscaling',
      'jobs.batch',
      'cronjobs.batch',
      'ingresses.networking.k8s.io',
      'networkpolicies.networking.k8s.io',
      'poddisruptionbudgets.policy',
      'roles.rbac.authorization.k8s.io',
      'clusterroles.rbac.authorization.k8s.io',
      'rolebindings.rbac.authorization.k8s.io',
      'clusterrolebindings.rbac.authorization.k8s.io',
      'leases.coordination.k8s.io',
      'endpointslices.discovery.k8s.io',
    ]);
  });

  it('is found by plural, singular, kind or short name as kubectl resolves them', () => {
    for (const alias of ['pods', 'pod', 'Pod', 'po'])
      expect(findBuiltinResource(alias)?.plural).toBe('pods');
    expect(findBuiltinResource('deploy')?.group).toBe('apps');
    expect(findBuiltinResource('cm', 'apps')).toBeUndefined();
  });

  it('a pod row shows READY, STATUS, RESTARTS and AGE as kubectl prints them, NODE only when wide', () => {
    const pod: KubeObject = {
      metadata: { name: 'web-1', namespace: 'default', creationTimestamp: '2026-01-01T00:55:00Z' },
      spec: { nodeName: 'node-a', containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        podIP: '10.0.0.7',
        containerStatuses: [
          { ready: true, restartCount: 2, state: { running: {} } },
          { ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    };
    expect(cells('pods', pod)).toEqual({
      Name: 'web-1',
      Ready: '1/2',
      Status: 'CrashLoopBackOff',
      Restarts: '3',
      Age: '5m',
    });
    expect(cells('pods', pod, true)).toMatchObject({
      IP: '10.0.0.7',
      Node: 'node-a',
      'Nominated Node': '<none>',
    });
  });

  it('a pod being deleted reads Terminating', () => {
    const pod: KubeObject = {
      metadata: { name: 'p', deletionTimestamp: '2026-01-01T00:59:00Z' },
      status: { phase: 'Running' },
    };
    expect(cells('pods', pod)['Status']).toBe('Terminating');
  });

  it('field selectors read pod fields as strings, booleans as "true"/"false", missing as ""', () => {
    const pods = findBuiltinResource('pods')!;
    const pod: KubeObject = {
      metadata: { name: 'p' },
      spec: { nodeName: 'n1', hostNetwork: true },
    };
    expect(pods.selectableFields['spec.nodeName']?.(pod)).toBe('n1');
    expect(pods.selectableFields['spec.hostNetwork']?.(pod)).toBe('true');
    expect(pods.selectableFields['status.phase']?.(pod)).toBe('');
    expect(pods.indexes['spec.nodeName']?.(pod)).toEqual(['n1']);
  });

  it('a configmap row counts data and binaryData keys', () => {
    const cm: KubeObject = {
      metadata: { name: 'c' },
      data: { a: '1', b: '2' },
      binaryData: { c: 'AA==' },
    };
    expect(cells('configmaps', cm)['Data']).toBe(3);
  });

  it('a serviceaccount row is NAME, SECRETS (how many it lists) and AGE, as printServiceAccount', () => {
    const sa: KubeObject = {
      metadata: { name: 'default', namespace: 'ns', creationTimestamp: '2026-01-01T00:00:00Z' },
      secrets: [{ name: 'a' }, { name: 'b' }],
    };
    expect(cells('sa', sa)).toEqual({ Name: 'default', Secrets: 2, Age: '60m' });
    expect(cells('serviceaccounts', { metadata: { name: 'x' } })['Secrets']).toBe(0);
    expect(findBuiltinResource('sa')?.subresources).toEqual(['token']);
  });

  it('a node row says Ready,SchedulingDisabled for a cordoned ready node and lists its roles', () => {
    const node: KubeObject = {
      metadata: { name: 'n', labels: { 'node-role.kubernetes.io/control-plane': '' } },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        nodeInfo: { kubeletVersion: 'v1.32.0' },
      },
    };
    expect(cells('nodes', node)).toMatchObject({
      Status: 'Ready,SchedulingDisabled',
      Roles: 'control-plane',
      Version: 'v1.32.0',
    });
  });
});

describe('the printers of the added kinds (printers.go)', () => {
  const meta = { name: 'x', namespace: 'd', creationTimestamp: '2026-01-01T00:00:00Z' };

  it('formatEndpoints shows three ip:port, then "+ N more..."', () => {
    const endpoints: KubeObject = {
      metadata: meta,
      subsets: [
        {
          addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: 'fd00::1' }],
          ports: [{ port: 80 }, { port: 443 }],
        },
      ],
    };
    expect(cells('endpoints', endpoints)['Endpoints']).toBe(
      '10.0.0.1:80,10.0.0.2:80,[fd00::1]:80 + 3 more...',
    );
    expect(cells('endpoints', { metadata: meta })['Endpoints']).toBe('<none>');
  });

  it('printJob: COMPLETIONS is succeeded/completions, or n/1 of p for a work queue; DURATION runs to completion', () => {
    const job = (spec: object, status: object = {}): KubeObject => ({
      metadata: meta,
      spec,
      status,
    });
    expect(cells('jobs', job({ completions: 3 }, { succeeded: 1 }))['Completions']).toBe('1/3');
    expect(cells('jobs', job({ parallelism: 4 }))['Completions']).toBe('0/1 of 4');
    const done = job(
      { completions: 1 },
      {
        succeeded: 1,
        startTime: '2026-01-01T00:00:00Z',
        completionTime: '2026-01-01T00:00:42Z',
        conditions: [{ type: 'Complete', status: 'True' }],
      },
    );
    expect(cells('jobs', done)).toMatchObject({ Status: 'Complete', Duration: '42s' });
  });

  it('printResourceQuota puts limits.* on the right, each used/hard, sorted', () => {
    const quota: KubeObject = {
      metadata: meta,
      spec: { hard: { pods: '10', 'limits.cpu': '2', 'requests.cpu': '1' } },
      status: { hard: { pods: '10', 'limits.cpu': '2', 'requests.cpu': '1' }, used: { pods: '3' } },
    };
    expect(cells('resourcequotas', quota)).toMatchObject({
      Request: 'pods: 3/10, requests.cpu: 0/1',
      Limit: 'limits.cpu: 0/2',
    });
  });

  it('a ControllerRevision names its controller as kind.group/name', () => {
    const revision: KubeObject = {
      metadata: {
        ...meta,
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u', controller: true },
        ],
      },
      revision: 2,
    };
    expect(cells('controllerrevisions', revision)).toMatchObject({
      Controller: 'statefulset.apps/web',
      Revision: '2',
    });
  });

  it('a PersistentVolume shows its access modes short, its claim as namespace/name', () => {
    const pv: KubeObject = {
      metadata: meta,
      spec: {
        capacity: { storage: '5Gi' },
        accessModes: ['ReadWriteMany', 'ReadWriteOnce'],
        claimRef: { namespace: 'd', name: 'data' },
        persistentVolumeReclaimPolicy: 'Delete',
      },
      status: { phase: 'Bound' },
    };
    expect(cells('pv', pv)).toMatchObject({
      Capacity: '5Gi',
      'Access Modes': 'RWO,RWX',
      'Reclaim Policy': 'Delete',
      Status: 'Bound',
      Claim: 'd/data',
      VolumeAttributesClass: '<unset>',
    });
  });
});
