import type { KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { invalidCauses as causes } from '../../kinds.test-helper.js';
import { serverForFile } from '../../../testing/test-server.js';

// Leases through the server: pkg/registry/coordination/lease/strategy.go and ValidateLease /
// ValidateLeaseUpdate (pkg/apis/coordination/validation).

const env = serverForFile('leases');

type Body = Record<string, unknown>;
type Lease = KubeObject & { spec?: Body };

async function createLease(spec: Body) {
  const ns = await env.namespace();
  const base = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
  const res = await env.api.post<Lease>(base, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'holder' },
    spec,
  });
  return { ...res, path: `${base}/holder` };
}

const renewTime = '2026-01-01T00:00:00.000000Z';

describe('ValidateLease', () => {
  it('leaseDurationSeconds must be greater than 0', async () => {
    expect(causes(await createLease({ leaseDurationSeconds: 0 }))).toEqual([
      ['spec.leaseDurationSeconds', 'FieldValueInvalid'],
    ]);
    const res = await createLease({ holderIdentity: 'a', leaseDurationSeconds: 1, renewTime });
    expect(res.status).toBe(201);
    expect(causes(await env.api.patch(res.path, { spec: { leaseDurationSeconds: -5 } }))).toEqual([
      ['spec.leaseDurationSeconds', 'FieldValueInvalid'],
    ]);
  });

  it('leaseTransitions must be greater than or equal to 0', async () => {
    expect(causes(await createLease({ leaseTransitions: -1 }))).toEqual([
      ['spec.leaseTransitions', 'FieldValueInvalid'],
    ]);
    const res = await createLease({ leaseTransitions: 0 });
    expect(res.status).toBe(201);
    expect(causes(await env.api.patch(res.path, { spec: { leaseTransitions: -1 } }))).toEqual([
      ['spec.leaseTransitions', 'FieldValueInvalid'],
    ]);
  });
});

describe('leaseStrategy', () => {
  it('spec.strategy and spec.preferredHolder are dropped while CoordinatedLeaderElection is off', async () => {
    const res = await createLease({
      holderIdentity: 'a',
      strategy: 'OldestEmulationVersion',
      preferredHolder: 'b',
    });
    expect(res.status).toBe(201);
    expect(res.body.spec).toEqual({ holderIdentity: 'a' });
    const updated = await env.api.patch<Lease>(res.path, {
      spec: { strategy: 'OldestEmulationVersion', preferredHolder: 'b' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.spec).toEqual({ holderIdentity: 'a' });
  });
});
