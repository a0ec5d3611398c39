import type { KubeObject, Status } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { invalidCauses as causes } from '../../kinds.test-helper.js';
import { serverForFile } from '../../../testing/test-server.js';

// Nodes through the server: pkg/registry/core/node/strategy.go and ValidateNode /
// ValidateNodeUpdate (pkg/apis/core/validation/validation.go), each rule named as kube states it.

const env = serverForFile('nodes');
let n = 0;

type Body = Record<string, unknown>;
type Node = KubeObject & { spec?: Body; status?: Body };

/** Creates a node named for the test with `body` over a minimal one. */
async function createNode(body: Body = {}) {
  const name = `node-${n++}`;
  const res = await env.api.post<Node>('/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    ...body,
  });
  return { ...res, path: `/api/v1/nodes/${name}` };
}

describe('nodeStrategy', () => {
  it('a node keeps the status it is created with (nodes allow all fields, status included, on create)', async () => {
    const status = { capacity: { cpu: '4' }, addresses: [{ type: 'Hostname', address: 'a' }] };
    const res = await createNode({ status });
    expect(res.status).toBe(201);
    expect(res.body.status).toMatchObject(status);
  });

  it('a node update keeps the stored status; the status subresource keeps the stored spec', async () => {
    const res = await createNode({ spec: { unschedulable: false }, status: { phase: 'Running' } });
    const main = await env.api.put<Node>(res.path, {
      ...res.body,
      spec: { unschedulable: true },
      status: { phase: 'Terminated' },
    });
    expect(main.status).toBe(200);
    expect(main.body.spec).toEqual({ unschedulable: true });
    expect(main.body.status).toEqual({ phase: 'Running' });
    const status = await env.api.put<Node>(`${res.path}/status`, {
      ...main.body,
      spec: { unschedulable: false },
      status: { phase: 'Terminated' },
    });
    expect(status.status).toBe(200);
    expect(status.body.spec).toEqual({ unschedulable: true });
    expect(status.body.status).toEqual({ phase: 'Terminated' });
  });

  it('spec.configSource (the removed DynamicKubeletConfig) is dropped on create', async () => {
    const configMap = { namespace: 'kube-system', name: 'c', kubeletConfigKey: 'k' };
    const res = await createNode({ spec: { configSource: { configMap } } });
    expect(res.status).toBe(201);
    expect(res.body.spec?.['configSource']).toBeUndefined();
  });

  it('spec.podCIDR reads back as spec.podCIDRs[0], and podCIDRs defaults from podCIDR (v1 NodeSpec conversion)', async () => {
    const one = await createNode({ spec: { podCIDR: '10.244.1.0/24' } });
    expect(one.body.spec).toMatchObject({
      podCIDR: '10.244.1.0/24',
      podCIDRs: ['10.244.1.0/24'],
    });
    const dual = await createNode({ spec: { podCIDRs: ['10.244.2.0/24', 'fd00::/64'] } });
    expect(dual.body.spec).toMatchObject({ podCIDR: '10.244.2.0/24' });
  });
});

describe('ValidateNode', () => {
  it('podCIDRs must be valid CIDRs, at most one for each IP family, without duplicates', async () => {
    expect(causes(await createNode({ spec: { podCIDRs: ['10.244.0.0'] } }))).toEqual([
      ['spec.podCIDRs[0]', 'FieldValueInvalid'],
    ]);
    expect(
      causes(await createNode({ spec: { podCIDRs: ['10.1.0.0/24', '10.2.0.0/24'] } })),
    ).toEqual([['spec.podCIDRs', 'FieldValueInvalid']]);
    expect(causes(await createNode({ spec: { podCIDRs: ['fd00::/64', 'fd00::/64'] } }))).toEqual([
      ['spec.podCIDRs', 'FieldValueInvalid'],
      ['spec.podCIDRs[1]', 'FieldValueDuplicate'],
    ]);
    const dual = await createNode({ spec: { podCIDRs: ['10.1.0.0/24', 'fd00::/64'] } });
    expect(dual.status).toBe(201);
  });

  it('taints need a qualified key, a label value and a known effect, unique by key and effect (validateNodeTaints)', async () => {
    const res = await createNode({
      spec: {
        taints: [
          { key: 'bad key', effect: 'NoSchedule' },
          { key: 'k', value: 'not a label value!', effect: 'Sometimes' },
          { key: 'k', effect: '' },
          { key: 'dup', effect: 'NoExecute' },
          { key: 'dup', value: 'other', effect: 'NoExecute' },
        ],
      },
    });
    const status = res.body as unknown as Status;
    expect(causes(res)).toEqual([
      ['metadata.taints[0].key', 'FieldValueInvalid'],
      ['metadata.taints[1].value', 'FieldValueInvalid'],
      ['metadata.taints[1].effect', 'FieldValueNotSupported'],
      ['metadata.taints[2].effect', 'FieldValueRequired'],
      ['metadata.taints[4]', 'FieldValueDuplicate'],
    ]);
    expect(status.message).toContain('taints must be unique by key and effect pair');
    const sameKey = await createNode({
      spec: {
        taints: [
          { key: 'k', effect: 'NoSchedule' },
          { key: 'k', effect: 'NoExecute' },
        ],
      },
    });
    expect(sameKey.status).toBe(201);
  });

  it('capacity and allocatable quantities must be greater than or equal to 0 (ValidateNodeResources)', async () => {
    const res = await createNode({
      status: { capacity: { cpu: '-1' }, allocatable: { memory: '-1Gi', pods: '0' } },
    });
    expect(causes(res)).toEqual([
      ['status.capacity.cpu', 'FieldValueInvalid'],
      ['status.allocatable.memory', 'FieldValueInvalid'],
    ]);
  });
});

describe('ValidateNodeUpdate', () => {
  it('podCIDRs may be set once, then never change ("node updates may not change podCIDR except from \\"\\" to valid")', async () => {
    const res = await createNode();
    const set = await env.api.patch<Node>(res.path, { spec: { podCIDR: '10.244.3.0/24' } });
    expect(set.status).toBe(200);
    const changed = await env.api.patch(res.path, { spec: { podCIDRs: ['10.244.4.0/24'] } });
    expect(causes(changed)).toEqual([['spec.podCIDRs', 'FieldValueForbidden']]);
    const added = await env.api.patch(res.path, {
      spec: { podCIDRs: ['10.244.3.0/24', 'fd00::/64'] },
    });
    expect(causes(added)).toEqual([['spec.podCIDRs', 'FieldValueForbidden']]);
  });

  it('spec.providerID may be set once, then never change', async () => {
    const res = await createNode();
    const set = await env.api.patch(res.path, { spec: { providerID: 'sim://a' } });
    expect(set.status).toBe(200);
    const changed = await env.api.patch(res.path, { spec: { providerID: 'sim://b' } });
    expect(causes(changed)).toEqual([['spec.providerID', 'FieldValueForbidden']]);
  });

  it('spec.externalID may not be updated', async () => {
    const res = await createNode({ spec: { externalID: 'a' } });
    const changed = await env.api.patch(res.path, { spec: { externalID: 'b' } });
    expect(causes(changed)).toEqual([['spec.externalID', 'FieldValueForbidden']]);
  });

  it('a status write may not list the same address twice', async () => {
    const res = await createNode();
    const address = { type: 'InternalIP', address: '10.0.0.1' };
    const dup = await env.api.patch(`${res.path}/status`, {
      status: { addresses: [address, { type: 'Hostname', address: 'a' }, address] },
    });
    expect(causes(dup)).toEqual([['status.addresses[2]', 'FieldValueDuplicate']]);
  });

  it('a status write is checked by ValidateNodeUpdate alone: its negative capacity is refused', async () => {
    const res = await createNode();
    const bad = await env.api.patch(`${res.path}/status`, {
      status: { capacity: { cpu: '-2' }, allocatable: { cpu: '1' } },
    });
    expect(causes(bad)).toEqual([['status.capacity.cpu', 'FieldValueInvalid']]);
  });
});
