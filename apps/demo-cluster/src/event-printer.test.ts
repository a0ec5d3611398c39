import { expect, it } from 'vitest';
import { describeEvent } from './event-printer.js';
import { webDeployment, webReplicaSet } from './web-workload.js';

it('a pod event line names the type, the pod, its node, phase, ready containers and IP', () => {
  expect(
    describeEvent('MODIFIED', 'pod', {
      metadata: { name: 'web-x7k2p' },
      spec: { nodeName: 'node-2', containers: [{ name: 'nginx' }] },
      status: { phase: 'Running', podIP: '10.244.1.2', containerStatuses: [{ ready: true }] },
    }),
  ).toBe('MODIFIED pod/web-x7k2p            node=node-2   phase=Running  ready=1/1 ip=10.244.1.2');
  expect(describeEvent('ADDED', 'pod', { metadata: { name: 'web-x7k2p' }, spec: {} })).toBe(
    'ADDED    pod/web-x7k2p            node=<none>   phase=Pending  ready=0/0',
  );
});

it('a ReplicaSet event line shows desired, current and ready replicas', () => {
  const rs = { ...webReplicaSet('demo', 'web', 5), status: { replicas: 3, readyReplicas: 2 } };
  expect(describeEvent('MODIFIED', 'replicaset', rs)).toBe(
    'MODIFIED replicaset/web           desired=5 current=3 ready=2',
  );
});

it('a Deployment event line shows desired, updated, ready and available replicas', () => {
  const d = {
    ...webDeployment('demo', 'web', 3),
    status: { updatedReplicas: 2, readyReplicas: 1, availableReplicas: 1 },
  };
  expect(describeEvent('MODIFIED', 'deployment', d)).toBe(
    'MODIFIED deployment/web           desired=3 updated=2 ready=1 available=1',
  );
});

it('a ConfigMap event line shows its resourceVersion and data', () => {
  expect(
    describeEvent('DELETED', 'configmap', {
      metadata: { name: 'config-0', resourceVersion: '42' },
      data: { step: '5' },
    }),
  ).toBe('DELETED  configmap/config-0       rv=42     {"step":"5"}');
});
