import { ApiError, builtinResources } from '@listwatch/api';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { decodeObject } from './rest/decode.js';
import { prepareForCreate } from './rest/create.js';
import { prepareForUpdate } from './rest/update.js';
import { withBuiltinStrategy } from './served-resources.js';

// The decode, defaulting and validation of every served kind is total: whatever JSON a client
// sends, it is accepted or refused with a 400 or 422 ApiError, never another exception (which
// the write path would turn into a logged 400 as a last resort).

/** JSON shaped like objects of the kinds: known field names, often with the wrong values. */
const key = fc.constantFrom(
  'metadata',
  'spec',
  'status',
  'data',
  'binaryData',
  'type',
  'template',
  'selector',
  'matchLabels',
  'matchExpressions',
  'containers',
  'initContainers',
  'name',
  'image',
  'ports',
  'port',
  'containerPort',
  'targetPort',
  'nodePort',
  'protocol',
  'env',
  'value',
  'resources',
  'limits',
  'requests',
  'replicas',
  'labels',
  'clusterIP',
  'clusterIPs',
  'strategy',
  'rollingUpdate',
  'maxSurge',
  'volumes',
  'volumeMounts',
  'rules',
  'verbs',
  'roleRef',
  'subjects',
  'kind',
  'apiVersion',
  'immutable',
  'restartPolicy',
  'livenessProbe',
  'httpGet',
  'creationTimestamp',
  'firstTimestamp',
  'eventTime',
  'capacity',
  // HorizontalPodAutoscalers (v2 and the v1 view) and pod scheduling.
  'metrics',
  'currentMetrics',
  'behavior',
  'scaleUp',
  'policies',
  'target',
  'averageUtilization',
  'averageValue',
  'minReplicas',
  'maxReplicas',
  'scaleTargetRef',
  'targetCPUUtilizationPercentage',
  'annotations',
  'affinity',
  'nodeAffinity',
  'podAntiAffinity',
  'requiredDuringSchedulingIgnoredDuringExecution',
  'nodeSelectorTerms',
  'topologyKey',
  'reportingComponent',
);
const leaf = fc.oneof(
  fc.constantFrom(
    '',
    'a',
    'web',
    '1Gi',
    '25%',
    'None',
    'NodePort',
    'Always',
    'YQ==',
    '2024-01-01T00:00:00Z',
    '10.96.0.10',
    'Resource',
    'Utilization',
    '[{"type":"Pods","pods":{"metricName":"qps"}}]',
    '{"ScaleUp":{"Policies":null}}',
  ),
  fc.integer({ min: -5, max: 70000 }),
  fc.boolean(),
  fc.constant(null),
  fc.double(),
);
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(key, tie('json'), { maxKeys: 4 }),
  ),
}));

function expectTotal(step: () => unknown): void {
  try {
    step();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect([400, 422]).toContain((err as ApiError).status.code);
  }
}

it('decode, defaults and validation of every kind accept or refuse any JSON with a 400 or 422', () => {
  fc.assert(
    fc.property(fc.constantFrom(...builtinResources), json, json, (definition, body, old) => {
      const resource = withBuiltinStrategy(definition);
      expectTotal(() => {
        const object = decodeObject(resource, body, 'body');
        prepareForCreate(resource, object, definition.namespaced ? 'ns' : undefined);
      });
      expectTotal(() => {
        const object = decodeObject(resource, body, 'patch');
        const current = decodeObject(resource, old, 'body');
        current.metadata.name = 'x';
        prepareForUpdate(resource, object, current, undefined);
      });
    }),
    { numRuns: 3000 },
  );
});
