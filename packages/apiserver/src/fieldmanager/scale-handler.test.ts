import { describe, expect, it } from 'vitest';
import { parentEntries, replicasPath, scaleEntries } from './scale-handler.js';

// Cases of k8s.io/apimachinery/pkg/util/managedfields/scalehandler_test.go, by their names there.

const APPS = new Map([['apps/v1', replicasPath('.spec.replicas')]]);
const TIME = '2013-02-03T00:00:00Z';

const entry = (
  manager: string,
  operation: 'Apply' | 'Update',
  apiVersion: string,
  fieldsV1: Record<string, unknown>,
  extra: { subresource?: string; time?: string } = {},
) => ({
  manager,
  operation,
  apiVersion,
  ...(extra.time ? { time: extra.time } : {}),
  fieldsType: 'FieldsV1',
  fieldsV1,
  ...(extra.subresource ? { subresource: extra.subresource } : {}),
});

const REPLICAS = { 'f:spec': { 'f:replicas': {} } };

describe('ScaleHandler.ToSubresource', () => {
  it('filter one entry and transform it into a subresource entry', () => {
    expect(
      scaleEntries(
        [
          entry('manager-1', 'Apply', 'apps/v1', { 'f:spec': { 'f:another-field': {} } }),
          entry('manager-2', 'Apply', 'apps/v1', REPLICAS, { time: TIME }),
        ],
        APPS,
      ),
    ).toEqual([entry('manager-2', 'Apply', 'autoscaling/v1', REPLICAS, { time: TIME })]);
  });

  it('transform all entries, a subresource entry keeping its subresource', () => {
    expect(
      scaleEntries(
        [
          entry('manager-1', 'Apply', 'apps/v1', REPLICAS),
          entry('manager-3', 'Apply', 'apps/v1', REPLICAS, { subresource: 'scale' }),
        ],
        APPS,
      ),
    ).toEqual([
      entry('manager-1', 'Apply', 'autoscaling/v1', REPLICAS),
      entry('manager-3', 'Apply', 'autoscaling/v1', REPLICAS, { subresource: 'scale' }),
    ]);
  });

  it('drops fields if the api version is unknown', () => {
    expect(scaleEntries([entry('manager-1', 'Apply', 'apps/v10', REPLICAS)], APPS)).toBe(undefined);
  });
});

describe('ScaleHandler.ToParent', () => {
  it('different-managers: apply -> update', () => {
    expect(
      parentEntries(
        [entry('test', 'Apply', 'apps/v1', { 'f:spec': { 'f:replicas': {}, 'f:selector': {} } })],
        [entry('scale', 'Update', 'autoscaling/v1', REPLICAS, { subresource: 'scale' })],
        'apps/v1',
        APPS,
      ),
    ).toEqual([
      entry('test', 'Apply', 'apps/v1', { 'f:spec': { 'f:selector': {} } }),
      entry('scale', 'Update', 'apps/v1', REPLICAS, { subresource: 'scale' }),
    ]);
  });

  it('same manager: update -> update', () => {
    expect(
      parentEntries(
        [entry('test', 'Update', 'apps/v1', { 'f:spec': { 'f:replicas': {}, 'f:selector': {} } })],
        [entry('test', 'Update', 'autoscaling/v1', REPLICAS, { subresource: 'scale' })],
        'apps/v1',
        APPS,
      ),
    ).toEqual([
      entry('test', 'Update', 'apps/v1', { 'f:spec': { 'f:selector': {} } }),
      entry('test', 'Update', 'apps/v1', REPLICAS, { subresource: 'scale' }),
    ]);
  });

  it('apply without stealing', () => {
    expect(
      parentEntries(
        [entry('test', 'Apply', 'apps/v1', { 'f:spec': { 'f:replicas': {}, 'f:selector': {} } })],
        [
          entry('test', 'Apply', 'autoscaling/v1', REPLICAS),
          entry('test', 'Apply', 'autoscaling/v1', REPLICAS, { subresource: 'scale' }),
        ],
        'apps/v1',
        APPS,
      ),
    ).toEqual([
      entry('test', 'Apply', 'apps/v1', { 'f:spec': { 'f:replicas': {}, 'f:selector': {} } }),
      entry('test', 'Apply', 'apps/v1', REPLICAS, { subresource: 'scale' }),
    ]);
  });

  it('Custom resource without scale subresource, scaling a version with `scale`', () => {
    const mappings = new Map([
      ['mygroup/v1', replicasPath('.spec.the-replicas')],
      ['mygroup/v2', undefined],
    ]);
    expect(
      parentEntries(
        [
          entry('test', 'Apply', 'mygroup/v1', {
            'f:spec': { 'f:the-replicas': {}, 'f:selector': {} },
          }),
          entry('test-other', 'Apply', 'mygroup/v2', { 'f:spec': { 'f:test-other': {} } }),
        ],
        [entry('scale', 'Update', 'autoscaling/v1', REPLICAS, { subresource: 'scale' })],
        'mygroup/v1',
        mappings,
      ),
    ).toEqual([
      entry('test', 'Apply', 'mygroup/v1', { 'f:spec': { 'f:selector': {} } }),
      entry('test-other', 'Apply', 'mygroup/v2', { 'f:spec': { 'f:test-other': {} } }),
      entry(
        'scale',
        'Update',
        'mygroup/v1',
        { 'f:spec': { 'f:the-replicas': {} } },
        {
          subresource: 'scale',
        },
      ),
    ]);
  });
});
