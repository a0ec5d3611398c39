import type { KubeObject, Status } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { client, testServer } from '../testing/test-server.js';

// A patch that takes the object's metadata away leaves a nameless object: kube's patcher checks
// the patched object's name against the URL (handlers/patch.go applyPatch → rest.go checkName)
// and answers 400, whatever the patch type. Nothing is written.

describe('a patch that drops metadata is 400, never a wipe', () => {
  let server: RunningApiServer;
  let api: ReturnType<typeof client>;
  const path = '/api/v1/namespaces/default/configmaps/keep';

  beforeAll(async () => {
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }));
    api = client(server.url);
    const created = await api.post('/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'keep', labels: { team: 'a' }, annotations: { note: 'x' } },
      data: { k: 'v' },
    });
    expect(created.status).toBe(201);
  });
  afterAll(() => server.close());

  it.each([
    ['application/json-patch+json', [{ op: 'remove', path: '/metadata' }]],
    ['application/merge-patch+json', { metadata: null }],
    ['application/strategic-merge-patch+json', { metadata: { $patch: 'replace' } }],
    ['application/merge-patch+json', { metadata: { name: null } }],
  ])(
    '%s %j: 400 the name of the object () does not match the name on the URL',
    async (type, patch) => {
      const before = await api.get(path);
      const res = await api.patch<Status>(path, patch, type);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        reason: 'BadRequest',
        message: 'the name of the object () does not match the name on the URL (keep)',
      });
      const after = await api.get<KubeObject>(path);
      expect(after.body.metadata).toEqual(before.body.metadata);
    },
  );

  it('a patch that keeps the name still writes', async () => {
    const res = await api.patch(path, { metadata: { labels: { team: 'b' } } });
    expect(res.status).toBe(200);
    expect(res.body.metadata.labels).toEqual({ team: 'b' });
    expect(res.body.metadata.annotations).toEqual({ note: 'x' });
  });
});
