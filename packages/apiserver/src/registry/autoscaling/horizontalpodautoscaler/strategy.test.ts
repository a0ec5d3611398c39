import type { KubeObject } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invalidCauses, serverForFile } from '../../../testing/test-server.js';
import { hpaFromV1, hpaToV1, type HorizontalPodAutoscaler } from './conversion.js';

// HorizontalPodAutoscalers: autoscaling/v2 stored, autoscaling/v1 a view
// (pkg/apis/autoscaling/v1/conversion.go), SetDefaults_HorizontalPodAutoscaler
// (pkg/apis/autoscaling/v2/defaults.go, defaults_test.go) and ValidateHorizontalPodAutoscaler
// (pkg/apis/autoscaling/validation/validation_test.go).

const env = serverForFile('hpa');

type Body = Record<string, unknown>;

const v2 = (name: string, spec: Body = {}): KubeObject => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    maxReplicas: 5,
    ...spec,
  },
});

const base = (ns: string, version: 'v1' | 'v2') =>
  `/apis/autoscaling/${version}/namespaces/${ns}/horizontalpodautoscalers`;

const causes = invalidCauses;

describe('SetDefaults_HorizontalPodAutoscaler (autoscaling/v2)', () => {
  it('an HPA without minReplicas or metrics reads back with minReplicas 1 and an 80% CPU utilization metric, and a zero status', async () => {
    const ns = await env.namespace();
    const res = await env.api.post<KubeObject & Body>(base(ns, 'v2'), v2('web'));
    expect(res.status).toBe(201);
    expect(res.body['spec']).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
        },
      ],
    });
    expect(res.body['status']).toEqual({ desiredReplicas: 0 });
  });

  it('a behavior gets every unset scaling rule field from the scale-up and scale-down defaults (TestHorizontalPodAutoscalerAnnotations: behavior)', async () => {
    const ns = await env.namespace();
    const res = await env.api.post<KubeObject & { spec: Body }>(
      base(ns, 'v2'),
      v2('web', { behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } }),
    );
    expect(res.status).toBe(201);
    expect(res.body.spec['behavior']).toEqual({
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: {
        stabilizationWindowSeconds: 60,
        selectPolicy: 'Max',
        policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
      },
    });
  });
});

describe('autoscaling/v1 is a view of the stored autoscaling/v2 object', () => {
  it('a v2 HPA with a memory metric reads through v1 with the CPU target as targetCPUUtilizationPercentage and the rest in autoscaling.alpha.kubernetes.io/metrics', async () => {
    const ns = await env.namespace();
    const created = await env.api.post(
      base(ns, 'v2'),
      v2('web', {
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
          },
          {
            type: 'Resource',
            resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } },
          },
        ],
      }),
    );
    expect(created.status).toBe(201);
    const read = await env.api.get<KubeObject & { spec: Body }>(`${base(ns, 'v1')}/web`);
    expect(read.status).toBe(200);
    expect(read.body.apiVersion).toBe('autoscaling/v1');
    expect(read.body.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 5,
      targetCPUUtilizationPercentage: 50,
    });
    expect(
      JSON.parse(read.body.metadata.annotations?.['autoscaling.alpha.kubernetes.io/metrics'] ?? ''),
    ).toEqual([{ type: 'Resource', resource: { name: 'memory', targetAverageValue: '100Mi' } }]);
    expect(read.body['status']).toEqual({ currentReplicas: 0, desiredReplicas: 0 });
    expect(read.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);

    // A v1 read-modify-write keeps what v1 cannot show (the annotation goes back into metrics).
    const updated = await env.api.put(`${base(ns, 'v1')}/web`, {
      ...read.body,
      spec: { ...read.body.spec, maxReplicas: 7 },
    });
    expect(updated.status).toBe(200);
    const again = await env.api.get<KubeObject & { spec: Body }>(`${base(ns, 'v2')}/web`);
    expect(again.body.spec['maxReplicas']).toBe(7);
    expect(again.body.spec['metrics']).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
      },
      {
        type: 'Resource',
        resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } },
      },
    ]);
    expect(again.body.metadata.annotations).toBeUndefined();
  });

  it('a v1 HPA without targetCPUUtilizationPercentage is stored with the 80% CPU metric and lists through v2', async () => {
    const ns = await env.namespace();
    const res = await env.api.post(base(ns, 'v1'), {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'old' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3 },
    });
    expect(res.status).toBe(201);
    expect((res.body as unknown as { spec: Body }).spec['targetCPUUtilizationPercentage']).toBe(80);
    const list = await env.api.get<{ items: (KubeObject & { spec: Body })[] }>(base(ns, 'v2'));
    expect(list.body.items.map((i) => [i.apiVersion, i.spec['metrics']])).toEqual([
      [
        'autoscaling/v2',
        [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
          },
        ],
      ],
    ]);
  });

  it('round-trip annotations sent to autoscaling/v2 are dropped (DropRoundTripHorizontalPodAutoscalerAnnotations)', async () => {
    const ns = await env.namespace();
    const hpa = v2('web');
    hpa.metadata.annotations = { 'autoscaling.alpha.kubernetes.io/metrics': '[]', keep: 'me' };
    const res = await env.api.post<KubeObject>(base(ns, 'v2'), hpa);
    expect(res.body.metadata.annotations).toEqual({ keep: 'me' });
  });

  it('the round-trip annotations are json.Marshal text: <, > and & in a metric name or a condition message are written \\u003c, \\u003e and \\u0026 (pkg/apis/autoscaling/v1/conversion.go), and read back as they were', () => {
    const name = 'queue<a&b>';
    const message = 'desired <= max && current > 0';
    const hpa: KubeObject = {
      ...v2('web', {
        metrics: [
          {
            type: 'Pods',
            pods: { metric: { name }, target: { type: 'AverageValue', averageValue: '1' } },
          },
        ],
      }),
      status: {
        desiredReplicas: 1,
        conditions: [{ type: 'AbleToScale', status: 'True', message }],
      },
    };
    const annotations = hpaToV1(hpa as HorizontalPodAutoscaler).metadata.annotations ?? {};
    const metrics = annotations['autoscaling.alpha.kubernetes.io/metrics'] ?? '';
    const conditions = annotations['autoscaling.alpha.kubernetes.io/conditions'] ?? '';
    expect(metrics).toContain('"queue\\u003ca\\u0026b\\u003e"');
    expect(conditions).toContain('"desired \\u003c= max \\u0026\\u0026 current \\u003e 0"');
    expect(metrics + conditions).not.toMatch(/[<>&]/);
    const back = hpaFromV1(hpaToV1(hpa as HorizontalPodAutoscaler)) as KubeObject & {
      spec: Body;
      status: Body;
    };
    expect(back.spec['metrics']).toEqual((hpa as KubeObject & { spec: Body }).spec['metrics']);
    expect(back.status['conditions']).toEqual([{ type: 'AbleToScale', status: 'True', message }]);
  });

  it('any v2 HPA converted to v1 and back keeps its spec and status (the conversion round-trips)', () => {
    const quantity = fc.constantFrom('1', '100Mi', '250m', '2k');
    const target = fc.oneof(
      fc.record({
        type: fc.constant('Utilization'),
        averageUtilization: fc.integer({ min: 1, max: 200 }),
      }),
      fc.record({ type: fc.constant('AverageValue'), averageValue: quantity }),
    );
    const metric = fc.oneof(
      fc.record({
        type: fc.constant('Resource'),
        resource: fc.record({ name: fc.constantFrom('cpu', 'memory'), target }),
      }),
      fc.record({
        type: fc.constant('Pods'),
        pods: fc.record({
          metric: fc.record({ name: fc.constantFrom('qps', 'rps') }),
          target: fc.record({ type: fc.constant('AverageValue'), averageValue: quantity }),
        }),
      }),
      fc.record({
        type: fc.constant('External'),
        external: fc.record({
          metric: fc.record({ name: fc.constant('queue') }),
          target: fc.record({ type: fc.constant('Value'), value: quantity }),
        }),
      }),
    );
    // Status values with what v1's structs always write (a non-pointer quantity) set.
    const current = fc.oneof(
      fc.record({
        type: fc.constant('Resource'),
        resource: fc.record({
          name: fc.constantFrom('cpu', 'memory'),
          current: fc.record(
            { averageValue: quantity, averageUtilization: fc.integer({ min: 0, max: 300 }) },
            { requiredKeys: ['averageValue'] },
          ),
        }),
      }),
      fc.record({
        type: fc.constant('Pods'),
        pods: fc.record({
          metric: fc.record({ name: fc.constant('qps') }),
          current: fc.record({ averageValue: quantity }),
        }),
      }),
      fc.record({
        type: fc.constant('External'),
        external: fc.record({
          metric: fc.record({ name: fc.constant('queue') }),
          current: fc.record(
            { value: quantity, averageValue: quantity },
            { requiredKeys: ['value'] },
          ),
        }),
      }),
    );
    fc.assert(
      fc.property(
        fc.array(metric, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 10 }),
        fc.array(current, { maxLength: 3 }),
        (metrics, desired, currentMetrics) => {
          // The v1 form carries at most one CPU utilization target, the first.
          const cpu = metrics.findIndex(
            (m) =>
              m.type === 'Resource' &&
              'resource' in m &&
              m.resource.name === 'cpu' &&
              m.resource.target.type === 'Utilization',
          );
          const ordered =
            cpu < 0 ? metrics : [metrics[cpu], ...metrics.filter((_, i) => i !== cpu)];
          fc.pre(
            metrics.filter(
              (m) =>
                m.type === 'Resource' &&
                'resource' in m &&
                m.resource.name === 'cpu' &&
                m.resource.target.type === 'Utilization',
            ).length <= 1,
          );
          const stored: KubeObject = {
            ...v2('x', { minReplicas: 2, metrics: ordered }),
            status: {
              desiredReplicas: desired,
              ...(currentMetrics.length ? { currentMetrics } : {}),
            },
          };
          const back = hpaFromV1(hpaToV1(structuredClone(stored) as HorizontalPodAutoscaler));
          expect(back['spec']).toEqual(stored['spec']);
          expect(back['status']).toEqual(stored['status']);
          expect(back.metadata.annotations).toBeUndefined();
        },
      ),
    );
  });
});

describe('autoscaling/v1 round-trip annotations of any content', () => {
  it('convert to the stored form without throwing, whatever JSON (or not JSON) they hold', () => {
    const keys = fc.constantFrom(
      'autoscaling.alpha.kubernetes.io/metrics',
      'autoscaling.alpha.kubernetes.io/current-metrics',
      'autoscaling.alpha.kubernetes.io/conditions',
      'autoscaling.alpha.kubernetes.io/behavior',
    );
    fc.assert(
      fc.property(fc.dictionary(keys, fc.oneof(fc.json(), fc.string())), (annotations) => {
        const stored = hpaFromV1({
          apiVersion: 'autoscaling/v1',
          kind: 'HorizontalPodAutoscaler',
          metadata: { name: 'x', annotations },
          spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 2 },
          status: { currentReplicas: 0, desiredReplicas: 0 },
        });
        expect(stored.metadata.annotations).toBeUndefined();
        expect(Array.isArray((stored['spec'] as Body)['metrics'])).toBe(true);
        hpaToV1(stored);
      }),
    );
  });

  it('an annotation that is JSON but not of its Go type (a number for metricName) is ignored, as one that is not JSON: the v1 HPA keeps the default CPU metric', () => {
    const stored = hpaFromV1({
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: {
        name: 'x',
        annotations: {
          'autoscaling.alpha.kubernetes.io/metrics':
            '[{"type":"Pods","pods":{"metricName":5,"targetAverageValue":"1"}}]',
        },
      },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 2 },
    });
    expect((stored['spec'] as Body)['metrics']).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
      },
    ]);
  });
});

describe('ValidateHorizontalPodAutoscaler', () => {
  const invalid = async (spec: Body) => {
    const ns = await env.namespace();
    return causes(await env.api.post(base(ns, 'v2'), v2('web', spec)));
  };

  it('minReplicas below 1 is refused: must be greater than or equal to 1', async () => {
    expect(await invalid({ minReplicas: 0 })).toContainEqual([
      'spec.minReplicas',
      'FieldValueInvalid',
      'Invalid value: 0: must be greater than or equal to 1',
    ]);
  });

  it('a resource metric with both a utilization and a raw value is refused on target.averageValue', async () => {
    expect(
      await invalid({
        metrics: [
          {
            type: 'Resource',
            resource: {
              name: 'cpu',
              target: { type: 'Utilization', averageUtilization: 50, averageValue: '1' },
            },
          },
        ],
      }),
    ).toEqual([
      [
        'spec.metrics[0].resource.target.averageValue',
        'FieldValueForbidden',
        'Forbidden: may not set both a target raw value and a target utilization',
      ],
    ]);
  });

  it('a metric of type Pods with only a resource source is refused: pods required (the one source present is validated, not forbidden)', async () => {
    expect(
      await invalid({
        metrics: [
          {
            type: 'Pods',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 5 } },
          },
        ],
      }),
    ).toEqual([
      [
        'spec.metrics[0].pods',
        'FieldValueRequired',
        'Required value: must populate information for the given metric source',
      ],
    ]);
  });

  it('a metric with two sources has the other forbidden: must populate the given metric source only', async () => {
    const target = { type: 'AverageValue', averageValue: '1' };
    expect(
      await invalid({
        metrics: [
          {
            type: 'Pods',
            pods: { metric: { name: 'qps' }, target },
            resource: { name: 'cpu', target },
          },
        ],
      }),
    ).toEqual([
      [
        'spec.metrics[0].resource',
        'FieldValueForbidden',
        'Forbidden: must populate the given metric source only',
      ],
    ]);
  });

  it('a scaling policy with a period over 1800 seconds and an unknown select policy are refused', async () => {
    expect(
      await invalid({
        behavior: {
          scaleUp: {
            selectPolicy: 'Sometimes',
            policies: [{ type: 'Pods', value: 1, periodSeconds: 1801 }],
          },
        },
      }),
    ).toEqual([
      [
        'spec.behavior.scaleUp.selectPolicy',
        'FieldValueNotSupported',
        'Unsupported value: "Sometimes": supported values: "Disabled", "Max", "Min"',
      ],
      [
        'spec.behavior.scaleUp.policies[0].periodSeconds',
        'FieldValueInvalid',
        'Invalid value: 1801: must be less than or equal to 1800',
      ],
    ]);
  });

  it('a scaleTargetRef name with a slash is refused (IsValidPathSegmentName), through v1 as well', async () => {
    const ns = await env.namespace();
    const res = await env.api.post(base(ns, 'v1'), {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'a/b' }, maxReplicas: 2 },
    });
    expect(causes(res)).toEqual([
      [
        'spec.scaleTargetRef.name',
        'FieldValueInvalid',
        `Invalid value: "a/b": may not contain '/'`,
      ],
    ]);
  });
});
