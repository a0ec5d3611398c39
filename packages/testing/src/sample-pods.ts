import { metaV1Time, type KubeObject } from '@listwatch/api';

// Realistic Pods for benchmarks and tests: what `kubectl get pod -o json` shows for a Deployment's
// pod — two containers with env, ports, probes and mounts, projected service-account volume,
// status with conditions and container states, and server-side-apply managedFields. About
// 4.9 KB of JSON each. Deterministic: samplePod(i) is always the same object.

const APPS = [
  'checkout',
  'payments',
  'catalog',
  'search',
  'frontend',
  'inventory',
  'auth',
  'orders',
];
const NODES = 64;

function hex(n: number, width: number): string {
  return (n >>> 0).toString(16).padStart(width, '0').slice(-width);
}

/** A deterministic pseudo-random 32-bit value for (i, salt). */
function mix(i: number, salt: number): number {
  let x = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt, 0xc2b2ae35);
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  return x >>> 0;
}

function uid(i: number, salt: number): string {
  const a = mix(i, salt);
  const b = mix(i, salt + 1);
  const c = mix(i, salt + 2);
  return `${hex(a, 8)}-${hex(b, 4)}-4${hex(b >>> 16, 3)}-a${hex(c, 3)}-${hex(c >>> 12, 4)}${hex(a ^ c, 8)}`;
}

function timestamp(base: number, offsetSeconds: number): string {
  return metaV1Time(base + offsetSeconds * 1000);
}

/** Pod number `i`: namespace `ns-<i % 16>`, name `<app>-<hash>-<suffix>`, resourceVersion `1000 + i`. */
export function samplePod(i: number): KubeObject {
  const app = APPS[i % APPS.length]!;
  const hash = hex(mix(i >> 3, 7), 10).replace(/[0-9]/g, (d) => 'bcdfghjklm'[Number(d)]!);
  const suffix = hex(mix(i, 11), 5).replace(/[0-9]/g, (d) => 'npqrstvwxz'[Number(d)]!);
  const name = `${app}-${hash}-${suffix}`;
  const namespace = `ns-${i % 16}`;
  const created = Date.UTC(2025, 0, 1) + (i % 86_400) * 1000;
  const node = `node-${String(mix(i, 3) % NODES).padStart(3, '0')}.cluster.internal`;
  const podIP = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const image = `registry.example.com/shop/${app}:1.${mix(i, 5) % 40}.${mix(i, 6) % 10}`;
  const restarts = mix(i, 9) % 4;
  const replicaSetUid = uid(i >> 3, 21);
  const started = timestamp(created, 3);
  const ready = timestamp(created, 9);

  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      generateName: `${app}-${hash}-`,
      namespace,
      uid: uid(i, 1),
      resourceVersion: String(1000 + i),
      creationTimestamp: timestamp(created, 0),
      labels: {
        app,
        'app.kubernetes.io/name': app,
        'pod-template-hash': hash,
        tier: i % 3 === 0 ? 'backend' : 'frontend',
      },
      annotations: {
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9090',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${app}-${hash}`,
          uid: replicaSetUid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: timestamp(created, 0),
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': {
              'f:generateName': {},
              'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {}, 'f:tier': {} },
              'f:ownerReferences': { '.': {}, [`k:{"uid":"${replicaSetUid}"}`]: {} },
            },
            'f:spec': {
              'f:containers': {
                [`k:{"name":"${app}"}`]: { '.': {}, 'f:env': {}, 'f:image': {}, 'f:ports': {} },
              },
              'f:dnsPolicy': {},
              'f:restartPolicy': {},
              'f:terminationGracePeriodSeconds': {},
            },
          },
        },
        {
          manager: 'kubelet',
          operation: 'Update',
          apiVersion: 'v1',
          time: ready,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:status': {
              'f:conditions': {
                'k:{"type":"Ready"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:status': {} },
              },
              'f:containerStatuses': {},
              'f:hostIP': {},
              'f:phase': {},
              'f:podIP': {},
              'f:startTime': {},
            },
          },
          subresource: 'status',
        },
      ],
    },
    spec: {
      volumes: [
        { name: 'config', configMap: { name: `${app}-config`, defaultMode: 420 } },
        {
          name: `kube-api-access-${suffix}`,
          projected: {
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              {
                configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
              },
            ],
            defaultMode: 420,
          },
        },
      ],
      containers: [
        {
          name: app,
          image,
          args: ['--port=8080', '--metrics-port=9090', `--service=${app}`],
          ports: [
            { name: 'http', containerPort: 8080, protocol: 'TCP' },
            { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
          ],
          env: [
            { name: 'SERVICE_NAME', value: app },
            { name: 'LOG_LEVEL', value: i % 5 === 0 ? 'debug' : 'info' },
            { name: 'DATABASE_URL', value: `postgres://${app}@db.${namespace}.svc:5432/${app}` },
            {
              name: 'POD_NAME',
              valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } },
            },
            {
              name: 'API_KEY',
              valueFrom: { secretKeyRef: { name: `${app}-secrets`, key: 'api-key' } },
            },
          ],
          resources: {
            limits: { cpu: '1', memory: '512Mi' },
            requests: { cpu: `${100 + (mix(i, 4) % 4) * 50}m`, memory: '256Mi' },
          },
          volumeMounts: [
            { name: 'config', readOnly: true, mountPath: '/etc/config' },
            {
              name: `kube-api-access-${suffix}`,
              readOnly: true,
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
            },
          ],
          livenessProbe: {
            httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' },
            initialDelaySeconds: 10,
            timeoutSeconds: 1,
            periodSeconds: 10,
            successThreshold: 1,
            failureThreshold: 3,
          },
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
        {
          name: 'envoy',
          image: 'envoyproxy/envoy:v1.31.2',
          args: ['-c', '/etc/envoy/envoy.yaml'],
          ports: [{ name: 'proxy', containerPort: 15001, protocol: 'TCP' }],
          resources: { limits: { memory: '128Mi' }, requests: { cpu: '50m', memory: '64Mi' } },
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: app,
      serviceAccount: app,
      nodeName: node,
      schedulerName: 'default-scheduler',
    },
    status: {
      phase: 'Running',
      conditions: [
        {
          type: 'Initialized',
          status: 'True',
          lastProbeTime: null,
          lastTransitionTime: timestamp(created, 1),
        },
        { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: ready },
        { type: 'ContainersReady', status: 'True', lastProbeTime: null, lastTransitionTime: ready },
        {
          type: 'PodScheduled',
          status: 'True',
          lastProbeTime: null,
          lastTransitionTime: timestamp(created, 0),
        },
      ],
      hostIP: `192.168.${mix(i, 3) % NODES}.10`,
      podIP,
      podIPs: [{ ip: podIP }],
      startTime: timestamp(created, 1),
      containerStatuses: [
        {
          name: app,
          state: { running: { startedAt: started } },
          lastState: {},
          ready: true,
          restartCount: restarts,
          image,
          imageID: `registry.example.com/shop/${app}@sha256:${hex(mix(i, 31), 8).repeat(8)}`,
          containerID: `containerd://${hex(mix(i, 41), 8).repeat(8)}`,
          started: true,
        },
        {
          name: 'envoy',
          state: { running: { startedAt: started } },
          lastState: {},
          ready: true,
          restartCount: 0,
          image: 'docker.io/envoyproxy/envoy:v1.31.2',
          imageID: `docker.io/envoyproxy/envoy@sha256:${hex(mix(7, 31), 8).repeat(8)}`,
          containerID: `containerd://${hex(mix(i, 43), 8).repeat(8)}`,
          started: true,
        },
      ],
      qosClass: 'Burstable',
    },
  };
}

/** `count` pods, samplePod(0) … samplePod(count - 1). */
export function samplePods(count: number): KubeObject[] {
  return Array.from({ length: count }, (_, i) => samplePod(i));
}
