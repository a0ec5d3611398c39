import type { KubeObject, Status } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serverForFile } from '../testing/test-server.js';

// POST pods/{name}/binding as kube-apiserver answers it (pkg/registry/core/pod/storage/storage.go
// BindingREST.Create, assignPod, setPodNodeAndMetadata): one storage update that no field
// manager sees, so the pod's managedFields stay as they were.

const env = serverForFile('binding');

interface Condition {
  type: string;
  status: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
}

async function pod(
  name: string,
  extra: { annotations?: Record<string, string>; gates?: boolean } = {},
): Promise<{ base: string; created: KubeObject }> {
  const ns = await env.namespace();
  const base = `/api/v1/namespaces/${ns}/pods`;
  const created = await env.api.post(`${base}?fieldManager=creator`, {
    metadata: { name, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: {
      containers: [{ name: 'c', image: 'i' }],
      ...(extra.gates ? { schedulingGates: [{ name: 'wait' }] } : {}),
    },
  });
  expect(created.status).toBe(201);
  return { base, created: created.body };
}

const binding = (name: string, node: string, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Binding',
  metadata: { name, ...metadata },
  target: { kind: 'Node', name: node },
});

describe('pods/binding', () => {
  it('a binding sets spec.nodeName and PodScheduled True and leaves managedFields as they were: nobody owns spec.nodeName', async () => {
    const { base, created } = await pod('p');
    const res = await env.api.post<Status>(
      `${base}/p/binding?fieldManager=scheduler`,
      binding('p', 'node-1'),
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      code: 201,
    });
    const bound = (await env.api.get(`${base}/p`)).body;
    expect((bound['spec'] as { nodeName: string }).nodeName).toBe('node-1');
    expect(bound.metadata.managedFields).toEqual(created.metadata.managedFields);
    expect(JSON.stringify(bound.metadata.managedFields)).not.toContain('nodeName');
    expect(bound.metadata.annotations).toBeUndefined();
    const conditions = (bound['status'] as { conditions: Condition[] }).conditions;
    expect(conditions).toEqual([
      {
        type: 'PodScheduled',
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) as string,
      },
    ]);
  });

  it('a second binding, a pod with scheduling gates and stale uid or resourceVersion preconditions are 409 in kube’s words', async () => {
    const { base, created } = await pod('q');
    const wrongUid = await env.api.post<Status>(
      `${base}/q/binding`,
      binding('q', 'node-1', { uid: 'someone-else' }),
    );
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.body.message).toBe(
      `Operation cannot be fulfilled on pods "q": Precondition failed: UID in precondition: someone-else, UID in object meta: ${created.metadata.uid ?? ''}`,
    );
    const staleRv = await env.api.post<Status>(
      `${base}/q/binding`,
      binding('q', 'node-1', { resourceVersion: '1' }),
    );
    expect(staleRv.status).toBe(409);
    expect(staleRv.body.message).toContain(
      'Precondition failed: ResourceVersion in precondition: 1,',
    );
    expect(
      (
        await env.api.post(
          `${base}/q/binding`,
          binding('q', 'node-1', { uid: created.metadata.uid }),
        )
      ).status,
    ).toBe(201);
    const again = await env.api.post<Status>(`${base}/q/binding`, binding('q', 'node-2'));
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(
      'Operation cannot be fulfilled on pods/binding "q": pod q is already assigned to node "node-1"',
    );
    const misnamed = await env.api.post<Status>(`${base}/q/binding`, binding('other', 'node-1'));
    expect(misnamed.status).toBe(400);
    expect(misnamed.body.message).toBe('name in URL does not match name in Binding object');
    const gated = await pod('gated', { gates: true });
    const refused = await env.api.post<Status>(
      `${gated.base}/gated/binding`,
      binding('gated', 'node-1'),
    );
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      'Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates',
    );
  });

  it('the Binding’s annotations are merged over the pod’s, and managedFields never change (property)', async () => {
    const annotations = fc.dictionary(
      fc.constantFrom('a', 'b', 'c', 'd'),
      fc.string({ maxLength: 4 }),
      {
        maxKeys: 3,
      },
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(annotations, annotations, async (own, bound) => {
        const name = `p${n++}`;
        const { base, created } = await pod(name, { annotations: own });
        const res = await env.api.post(
          `${base}/${name}/binding`,
          binding(name, 'node-1', { annotations: bound }),
        );
        expect(res.status).toBe(201);
        const after = (await env.api.get(`${base}/${name}`)).body;
        const merged = { ...own, ...bound };
        expect(after.metadata.annotations ?? {}).toEqual(merged);
        expect(after.metadata.managedFields).toEqual(created.metadata.managedFields);
      }),
      { numRuns: 15 },
    );
  });
});
