import { builtinResources, type KubeObject, type ResourceDefinition } from '@listwatch/api';
import { goldenDir } from '@listwatch/testing';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { imageTag } from './core/v1-defaults.js';
import { decodeObject } from './rest/decode.js';
import { withBuiltinStrategy } from './served-resources.js';

// Defaulting as kube's decode applies it (pkg/apis/core/v1/defaults.go, pkg/apis/apps/v1/
// defaults.go and zz_generated.defaults.go). Cases follow upstream's defaults_test.go, named.

// kubernetes/api's testdata fixtures (every field set).
const GOLDEN = goldenDir;

function definition(kind: string): ResourceDefinition {
  const found = builtinResources.find((r) => r.kind === kind);
  if (!found) throw new Error(`no resource of kind ${kind}`);
  return found;
}

/** What kube's decode leaves of `object`: typed, then defaulted. */
function roundTrip(kind: string, object: Record<string, unknown>): KubeObject {
  return decodeObject(withBuiltinStrategy(definition(kind)), structuredClone(object), 'body');
}

/** Every value `subset` has, `of` has too (defaulting only fills what is missing). */
function expectSubset(of: unknown, subset: unknown, path = ''): void {
  if (typeof subset !== 'object' || subset === null) {
    expect(of, path).toEqual(subset);
    return;
  }
  expect(typeof of, path).toBe('object');
  for (const [key, value] of Object.entries(subset))
    expectSubset((of as Record<string, unknown>)[key], value, `${path}.${key}`);
}

const goldenFile = (r: ResourceDefinition) =>
  `${GOLDEN}/${r.group || 'core'}.${r.version}.${r.kind}.json`;
const withGolden = builtinResources.filter((r) => existsSync(goldenFile(r))).map((r) => r.kind);

describe('defaulting never overrides what is set', () => {
  it.each(withGolden)(
    'the golden %s (every field set) decodes and defaults to itself plus only missing fields',
    (kind) => {
      const golden = JSON.parse(readFileSync(goldenFile(definition(kind)), 'utf8')) as Record<
        string,
        unknown
      >;
      const decoded = roundTrip(kind, golden);
      // Secret conversion (Convert_v1_Secret_To_core_Secret): stringData is merged into data.
      if (kind === 'Secret') delete golden['stringData'];
      // Node conversion (Convert_core_NodeSpec_To_v1_NodeSpec): podCIDR is podCIDRs[0].
      if (kind === 'Node') {
        const spec = golden['spec'] as { podCIDR?: string; podCIDRs?: string[] };
        const [first] = spec.podCIDRs ?? [];
        if (first !== undefined) spec.podCIDR = first;
      }
      expectSubset(decoded, golden);
    },
  );
});

const pod = (spec: Record<string, unknown>): KubeObject => roundTrip('Pod', { metadata: {}, spec });
const specOf = (object: KubeObject) => object['spec'] as Record<string, unknown>;

describe('core/v1 defaults', () => {
  it('SetDefaults_PodSpec and SetDefaults_Container: a bare pod reads back as kube returns it', () => {
    const spec = specOf(pod({ containers: [{ name: 'web', image: 'nginx' }] }));
    expect(spec).toEqual({
      containers: [
        {
          name: 'web',
          image: 'nginx',
          imagePullPolicy: 'Always',
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
        },
      ],
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
    });
  });

  it.each([
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['docker.io/library/nginx', 'Always'],
    ['localhost:5000/app', 'Always'],
    ['nginx:1.27', 'IfNotPresent'],
    ['localhost:5000/app:v2', 'IfNotPresent'],
    [
      'nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
      'IfNotPresent',
    ],
    ['', 'IfNotPresent'],
  ])('SetDefaults_Container: image %j pulls %s (parsers.ParseImageName tag)', (image, policy) => {
    const container = (
      specOf(pod({ containers: [{ name: 'c', image }] }))['containers'] as Record<string, unknown>[]
    )[0];
    expect(container?.['imagePullPolicy']).toBe(policy);
    expect(imageTag(image) === 'latest').toBe(policy === 'Always' && image !== '');
  });

  it('TestSetDefaultRequestsPod: requests default to limits, per resource, on pods only', () => {
    const spec = specOf(
      pod({
        containers: [
          {
            name: 'c',
            image: 'i',
            resources: { limits: { cpu: '100m', memory: '1Gi' }, requests: { cpu: '50m' } },
          },
        ],
      }),
    );
    const [container] = spec['containers'] as { resources: unknown }[];
    expect(container?.resources).toEqual({
      limits: { cpu: '100m', memory: '1Gi' },
      requests: { cpu: '50m', memory: '1Gi' },
    });
    const deployment = roundTrip('Deployment', {
      metadata: {},
      spec: {
        template: {
          spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '1' } } }] },
        },
      },
    });
    const template = specOf(deployment)['template'] as {
      spec: { containers: { resources: unknown }[]; enableServiceLinks?: boolean };
    };
    expect(template.spec.containers[0]?.resources).toEqual({ limits: { cpu: '1' } });
    // TestSetDefaultEnableServiceLinks: SetDefaults_Pod's, not the template's.
    expect(template.spec.enableServiceLinks).toBeUndefined();
  });

  it('TestSetDefaultPodSpecHostNetwork: with the host network every container port is a host port', () => {
    const spec = specOf(
      pod({
        hostNetwork: true,
        containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 8080 }] }],
      }),
    );
    const [container] = spec['containers'] as { ports: unknown[] }[];
    expect(container?.ports).toEqual([{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }]);
  });

  it('TestSetDefaultProbe, TestSetDefaultHTTPGetAction, volume sources, ObjectFieldSelector apiVersion', () => {
    const spec = specOf(
      pod({
        volumes: [
          { name: 'scratch' },
          { name: 's', secret: { secretName: 'x' } },
          { name: 'c', configMap: { name: 'x' } },
          { name: 'h', hostPath: { path: '/tmp' } },
        ],
        containers: [
          {
            name: 'c',
            image: 'i:1',
            livenessProbe: { httpGet: { port: 80 } },
            env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
          },
        ],
      }),
    );
    expect(spec['volumes']).toEqual([
      { name: 'scratch', emptyDir: {} },
      { name: 's', secret: { secretName: 'x', defaultMode: 420 } },
      { name: 'c', configMap: { name: 'x', defaultMode: 420 } },
      { name: 'h', hostPath: { path: '/tmp', type: '' } },
    ]);
    const [container] = spec['containers'] as Record<string, unknown>[];
    expect(container?.['livenessProbe']).toEqual({
      httpGet: { port: 80, path: '/', scheme: 'HTTP' },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(container?.['env']).toEqual([
      { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName', apiVersion: 'v1' } } },
    ]);
  });

  it('TestSetDefaultService and TestSetDefaultServicePort: type, affinity, protocol, targetPort, traffic policy', () => {
    const service = roundTrip('Service', {
      metadata: {},
      spec: { ports: [{ port: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }] },
    });
    expect(specOf(service)).toEqual({
      ports: [
        { port: 80, protocol: 'TCP', targetPort: 80 },
        { port: 53, protocol: 'UDP', targetPort: 'dns' },
      ],
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
    });
    const lb = specOf(
      roundTrip('Service', {
        metadata: {},
        spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP' },
      }),
    );
    expect(lb).toMatchObject({
      externalTrafficPolicy: 'Cluster',
      allocateLoadBalancerNodePorts: true,
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
    });
  });

  it('SetDefaults_Secret: type Opaque; SetDefaults_NodeStatus: allocatable is capacity', () => {
    expect(roundTrip('Secret', { metadata: {} })['type']).toBe('Opaque');
    const node = roundTrip('Node', { metadata: {}, status: { capacity: { cpu: '4' } } });
    expect(node['status']).toEqual({ capacity: { cpu: '4' }, allocatable: { cpu: '4' } });
  });
});

describe('apps/v1 defaults', () => {
  it('TestSetDefaultDeployment: replicas 1, RollingUpdate 25%/25%, revisionHistoryLimit 10, progressDeadlineSeconds 600, template defaults', () => {
    const deployment = roundTrip('Deployment', {
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1' }] },
        },
      },
    });
    expect(specOf(deployment)).toEqual({
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' }, creationTimestamp: null },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1',
              imagePullPolicy: 'IfNotPresent',
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
            },
          ],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
          schedulerName: 'default-scheduler',
        },
      },
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
      },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    });
    const recreate = roundTrip('Deployment', {
      metadata: {},
      spec: { replicas: 0, strategy: { type: 'Recreate' } },
    });
    expect(specOf(recreate)['replicas']).toBe(0);
    expect(specOf(recreate)['strategy']).toEqual({ type: 'Recreate' });
  });

  it('TestSetDefaultReplicaSet: replicas 1 unless set, 0 included', () => {
    expect(specOf(roundTrip('ReplicaSet', { metadata: {} }))['replicas']).toBe(1);
    expect(
      specOf(roundTrip('ReplicaSet', { metadata: {}, spec: { replicas: 0 } }))['replicas'],
    ).toBe(0);
  });
});
