import type { KubeObject, Status } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openWatch, serverForFile } from '../testing/test-server.js';
import { collectionOf, KIND_CASES } from './kinds.test-helper.js';

// Every kind added with its strategy, through the apiserver: create, get, list, update, delete,
// and a watch that sees each change (k8s.io/apiserver pkg/registry/generic/registry/store.go).

const env = serverForFile('kinds');

describe.each(KIND_CASES)('$plural', (c) => {
  it('is created, read, listed, updated, watched and deleted through the apiserver', async () => {
    const ns = await env.namespace();
    const base = collectionOf(c, ns);
    const name = c.namespaced ? 'web' : `${ns}-web`;
    const watch = openWatch(env.server.url, `${base}?watch=true`);
    try {
      const created = await env.api.post(base, { ...c.object, metadata: { name } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({
        apiVersion: c.object.apiVersion,
        kind: c.object.kind,
        metadata: { name, ...(c.namespaced ? { namespace: ns } : {}) },
      });
      const path = `${base}/${name}`;
      const read = await env.api.get(path);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);
      const list = await env.api.get<{ kind: string; items: KubeObject[] }>(base);
      expect(list.body.kind).toBe(`${c.object.kind}List`);
      expect(list.body.items.map((i) => i.metadata.name)).toContain(name);
      const updated = await env.api.put(path, {
        ...created.body,
        metadata: { ...created.body.metadata, labels: { tier: 'front' } },
      });
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      expect(updated.body.metadata.labels).toEqual({ tier: 'front' });
      const selected = await env.api.get<{ items: KubeObject[] }>(
        `${base}?labelSelector=tier%3Dfront`,
      );
      expect(selected.body.items.map((i) => i.metadata.name)).toEqual([name]);
      const deleted = await env.api.delete(path);
      expect(deleted.status).toBe(200);
      expect((await env.api.get<Status>(path)).status).toBe(404);
      const events = await watch.take(3);
      expect(events.map((e) => [e.type, (e.object as KubeObject).metadata.name])).toEqual([
        ['ADDED', name],
        ['MODIFIED', name],
        ['DELETED', name],
      ]);
    } finally {
      await watch.close();
    }
  });

  // Only kinds with a status subresource have this rule (no test is made for the others).
  if (c.status)
    it('keeps its status out of writes of the main resource, and its spec out of status writes', async () => {
      const ns = await env.namespace();
      const base = collectionOf(c, ns);
      const name = c.namespaced ? 'web' : `${ns}-web`;
      const created = await env.api.post(base, {
        ...c.object,
        metadata: { name },
        status: c.sampleStatus,
      });
      expect(created.status).toBe(201);
      // PrepareForCreate clears what a client sends as status.
      expect(created.body['status'] ?? {}).not.toMatchObject(c.sampleStatus);
      const path = `${base}/${name}`;
      const status = await env.api.put(`${path}/status`, {
        ...created.body,
        metadata: { ...created.body.metadata, labels: { ignored: 'yes' } },
        spec: { changed: true },
        status: { ...(created.body['status'] as object), ...c.sampleStatus },
      });
      expect(status.status, JSON.stringify(status.body)).toBe(200);
      expect(status.body['spec']).toEqual(created.body['spec']);
      expect(status.body.metadata.labels).toEqual(created.body.metadata.labels);
      expect(status.body['status']).toMatchObject(c.sampleStatus);
      const main = await env.api.put(path, { ...status.body, status: {} });
      expect(main.status).toBe(200);
      expect(main.body['status']).toMatchObject(c.sampleStatus);
    });
});

describe('arbitrary writes', () => {
  it('a create or merge patch of any JSON to any new kind is a success or a 4xx Status, never a 5xx', async () => {
    const ns = await env.namespace();
    const existing = await Promise.all(
      KIND_CASES.map(async (c) => {
        const name = c.namespaced ? 'target' : `${ns}-target`;
        const res = await env.api.post(collectionOf(c, ns), { ...c.object, metadata: { name } });
        expect(res.status).toBe(201);
        return `${collectionOf(c, ns)}/${name}`;
      }),
    );
    const body = fc.dictionary(
      fc.constantFrom(
        'spec',
        'status',
        'template',
        'subsets',
        'endpoints',
        'ports',
        'data',
        'addressType',
        'metadata',
      ),
      fc.jsonValue({ maxDepth: 4 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: KIND_CASES.length - 1 }),
        body,
        fc.boolean(),
        async (i, change, patch) => {
          const c = KIND_CASES[i]!;
          const res = patch
            ? await env.api.patch(existing[i]!, change)
            : await env.api.post(collectionOf(c, ns), {
                ...c.object,
                ...change,
                metadata: { generateName: 'fuzz-' },
              });
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
          if (res.status >= 400)
            expect(res.body).toMatchObject({ kind: 'Status', code: res.status });
        },
      ),
      { numRuns: 150 },
    );
  });
});
