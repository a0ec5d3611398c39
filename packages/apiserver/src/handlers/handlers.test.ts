import type { KubeList, KubeObject, Status } from '@listwatch/api';
import type { Storage } from '@listwatch/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import {
  backends,
  client,
  cm,
  openWatch,
  testServer,
  watchEvents,
} from '../testing/test-server.js';

// HTTP semantics of kube-apiserver (k8s.io/apiserver pkg/endpoints/handlers, registry/rest; LIST
// and WATCH as "Semantics for get and list" and "Semantics for watch" in the Kubernetes API
// concepts), over real HTTP on each storage backend: memory and sqlite in the unit tier, etcd3 in
// the etcd tier (backendMatrices in @listwatch/testing).

describe.each(backends())('the apiserver on $name storage', (backend) => {
  let server: RunningApiServer;
  let storage: Storage;
  let api: ReturnType<typeof client>;
  let n = 0;
  /** A fresh namespace per test. */
  const namespace = async () => {
    const name = `ns-${backend.name}-${n++}`;
    expect((await api.post('/api/v1/namespaces', { metadata: { name } })).status).toBe(201);
    return name;
  };

  beforeAll(async () => {
    await backend.setup();
    storage = await backend.make();
    server = await testServer(storage, { bookmarkIntervalMs: 200 });
    api = client(server.url);
  });
  afterAll(async () => {
    await server.close();
    await backend.teardown();
  });

  it('a fresh cluster has the namespaces default, kube-system, kube-public and kube-node-lease', async () => {
    const list = await api.get<KubeList>('/api/v1/namespaces');
    expect(list.body.items.map((o) => o.metadata.name)).toEqual(
      expect.arrayContaining(['default', 'kube-node-lease', 'kube-public', 'kube-system']),
    );
  });

  it('creates with 201 and server-set metadata, gets it back, and a second create is 409 AlreadyExists', async () => {
    const ns = await namespace();
    const created = await api.post(`/api/v1/namespaces/${ns}/configmaps`, cm('a'));
    expect(created.status).toBe(201);
    expect(created.body.metadata).toMatchObject({ name: 'a', namespace: ns });
    expect(created.body.metadata.generation).toBeUndefined();
    expect(created.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.body.metadata.creationTimestamp).toMatch(/Z$/);
    const got = await api.get(`/api/v1/namespaces/${ns}/configmaps/a`);
    expect(got.body).toEqual(created.body);
    const again = await api.post<Status>(`/api/v1/namespaces/${ns}/configmaps`, cm('a'));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      kind: 'Status',
      reason: 'AlreadyExists',
      message: 'configmaps "a" already exists',
    });
  });

  it('a missing object is 404 NotFound, worded as Kubernetes words it', async () => {
    const res = await api.get<Status>('/api/v1/namespaces/default/configmaps/nope');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'NotFound',
      code: 404,
      message: 'configmaps "nope" not found',
    });
    expect(
      (await api.get<Status>('/apis/apps/v1/namespaces/default/deployments/nope')).body.message,
    ).toBe('deployments.apps "nope" not found');
  });

  it('creating in a namespace that does not exist is 404 for the namespace', async () => {
    const res = await api.post<Status>('/api/v1/namespaces/missing/configmaps', cm('a'));
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('namespaces "missing" not found');
  });

  it('an invalid name is 422 Invalid with a field cause', async () => {
    const ns = await namespace();
    const res = await api.post<Status>(`/api/v1/namespaces/${ns}/configmaps`, cm('Not_Valid'));
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.details?.causes?.[0]).toMatchObject({
      reason: 'FieldValueInvalid',
      field: 'metadata.name',
    });
  });

  it('a malformed body is 400 and an unknown content type is 415', async () => {
    const ns = await namespace();
    expect(
      (await api.call('POST', `/api/v1/namespaces/${ns}/configmaps`, '{not json')).status,
    ).toBe(400);
    expect(
      (
        await api.call('POST', `/api/v1/namespaces/${ns}/configmaps`, 'x', {
          'Content-Type': 'text/plain',
        })
      ).status,
    ).toBe(415);
  });

  it('generateName makes a unique name', async () => {
    const ns = await namespace();
    const res = await api.post(`/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { generateName: 'web-' },
      data: {},
    });
    expect(res.status).toBe(201);
    expect(res.body.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
  });

  it('an update with a stale resourceVersion is 409 Conflict; a current one lands', async () => {
    const ns = await namespace();
    const created = await api.post(`/api/v1/namespaces/${ns}/configmaps`, cm('a'));
    const updated = await api.put(`/api/v1/namespaces/${ns}/configmaps/a`, {
      ...created.body,
      data: { k: 'v2' },
    });
    expect(updated.status).toBe(200);
    expect(Number(updated.body.metadata.resourceVersion)).toBeGreaterThan(
      Number(created.body.metadata.resourceVersion),
    );
    const stale = await api.put<Status>(`/api/v1/namespaces/${ns}/configmaps/a`, {
      ...created.body,
      data: { k: 'v3' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    expect(stale.body.message).toMatch(
      /^Operation cannot be fulfilled on configmaps "a": the object has been modified/,
    );
  });

  it('a PUT whose body names another object is 400 before anything is read, not 404 (update.go checkName)', async () => {
    const ns = await namespace();
    expect((await api.post(`/api/v1/namespaces/${ns}/configmaps`, cm('esc2'))).status).toBe(201);
    for (const url of ['other', 'esc2x']) {
      const res = await api.put<Status>(`/api/v1/namespaces/${ns}/configmaps/${url}`, cm('esc2'));
      expect(res.status).toBe(400);
      expect(res.body.reason).toBe('BadRequest');
      expect(res.body.message).toBe(
        `the name of the object (esc2) does not match the name on the URL (${url})`,
      );
    }
  });

  it('the status subresource changes only status, and the main resource never changes status', async () => {
    const ns = await namespace();
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'd' } },
        template: {
          metadata: { labels: { app: 'd' } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    };
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await api.post(base, deploy);
    expect(created.status).toBe(201);
    const withStatus = await api.put(`${base}/d/status`, {
      ...created.body,
      spec: { ...deploy.spec, replicas: 9 },
      status: { replicas: 1 },
    });
    expect(withStatus.status).toBe(200);
    expect(withStatus.body['status']).toEqual({ replicas: 1 });
    expect((withStatus.body['spec'] as { replicas: number }).replicas).toBe(1);
    expect(withStatus.body.metadata.generation).toBe(1);
    const main = await api.put(`${base}/d`, {
      ...withStatus.body,
      spec: { ...deploy.spec, replicas: 3 },
      status: { replicas: 99 },
    });
    expect(main.body['status']).toEqual({ replicas: 1 });
    expect(main.body.metadata.generation).toBe(2);
  });

  it('patches with merge, JSON and strategic merge patches; an unsupported patch type is 415', async () => {
    const ns = await namespace();
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, cm('a'));
    const path = `/api/v1/namespaces/${ns}/configmaps/a`;
    expect((await api.patch(path, { data: { m: '1' } })).body['data']).toEqual({ k: 'v', m: '1' });
    expect(
      (await api.patch(path, [{ op: 'remove', path: '/data/k' }], 'application/json-patch+json'))
        .body['data'],
    ).toEqual({ m: '1' });
    expect(
      (
        await api.patch(
          path,
          { metadata: { labels: { s: 'y' } } },
          'application/strategic-merge-patch+json',
        )
      ).body.metadata.labels,
    ).toEqual({ s: 'y' });
    // Server-side apply needs a fieldManager (ValidatePatchOptions).
    expect((await api.patch(path, 'x: 1', 'application/apply-patch+yaml')).status).toBe(422);
    const failed = await api.patch<Status>(
      path,
      [{ op: 'test', path: '/data/m', value: 'nope' }],
      'application/json-patch+json',
    );
    expect(failed.status).toBe(422);
  });

  it('a strategic merge patch merges pod containers by name', async () => {
    const ns = await namespace();
    const base = `/api/v1/namespaces/${ns}/pods`;
    await api.post(base, {
      metadata: { name: 'p' },
      spec: {
        containers: [
          { name: 'a', image: 'a:1' },
          { name: 'b', image: 'b:1' },
        ],
      },
    });
    const patched = await api.patch(
      `${base}/p`,
      { spec: { containers: [{ name: 'b', image: 'b:2' }] } },
      'application/strategic-merge-patch+json',
    );
    const containers = (patched.body['spec'] as { containers: { name: string }[] }).containers;
    expect(
      containers.map(({ name, image }: { name: string; image?: string }) => ({ name, image })),
    ).toEqual([
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:2' },
    ]);
  });

  it('delete answers a Success Status naming the object (pods: the object); preconditions that do not hold are 409', async () => {
    const ns = await namespace();
    const created = await api.post(`/api/v1/namespaces/${ns}/configmaps`, cm('a'));
    const path = `/api/v1/namespaces/${ns}/configmaps/a`;
    const wrongUid = await api.delete<Status>(path, { preconditions: { uid: 'other' } });
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.body.message).toContain('Precondition failed: UID in precondition: other');
    const deleted = await api.delete<Status>(path, {
      preconditions: { uid: created.body.metadata.uid },
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'a', kind: 'configmaps', uid: created.body.metadata.uid },
    });
    expect((await api.get(path)).status).toBe(404);
  });

  it('deletecollection deletes what the selector matches and nothing else', async () => {
    const ns = await namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    await api.post(base, cm('a', { labels: { gone: 'yes' } }));
    await api.post(base, cm('b', { labels: { gone: 'no' } }));
    const res = await api.delete<KubeList>(`${base}?labelSelector=gone%3Dyes`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((o) => o.metadata.name)).toEqual(['a']);
    expect((await api.get<KubeList>(base)).body.items.map((o) => o.metadata.name)).toEqual(['b']);
  });

  it('binding assigns a pod to a node once; a second binding is 409', async () => {
    const ns = await namespace();
    const base = `/api/v1/namespaces/${ns}/pods`;
    await api.post(base, {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    const bind = (node: string) =>
      api.post(`${base}/p/binding`, {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: 'p' },
        target: { kind: 'Node', name: node },
      });
    expect((await bind('node-1')).status).toBe(201);
    expect(((await api.get(`${base}/p`)).body['spec'] as { nodeName: string }).nodeName).toBe(
      'node-1',
    );
    expect((await bind('node-2')).status).toBe(409);
  });

  it('deleting a namespace marks it Terminating and refuses new content; it goes once finalized (spec and metadata finalizers empty)', async () => {
    const ns = await namespace();
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, cm('a'));
    const res = await api.delete(`/api/v1/namespaces/${ns}`, { propagationPolicy: 'Orphan' });
    expect(res.status).toBe(200);
    expect(res.body['status']).toEqual({ phase: 'Terminating' });
    expect(res.body.metadata.finalizers).toEqual(['orphan']);
    expect((await api.post(`/api/v1/namespaces/${ns}/configmaps`, cm('b'))).status).toBe(403);
    // A second delete changes nothing while spec.finalizers remain.
    expect((await api.delete(`/api/v1/namespaces/${ns}`)).body['status']).toEqual({
      phase: 'Terminating',
    });
    const finalized = await api.put(`/api/v1/namespaces/${ns}/finalize`, {
      ...res.body,
      metadata: { ...res.body.metadata, resourceVersion: undefined },
      spec: { finalizers: [] },
    });
    expect(finalized.status).toBe(200);
    // Still kept by the garbage collector's finalizer; removing it removes the namespace.
    expect((await api.get(`/api/v1/namespaces/${ns}`)).status).toBe(200);
    await api.patch(`/api/v1/namespaces/${ns}`, { metadata: { finalizers: null } });
    expect((await api.get(`/api/v1/namespaces/${ns}`)).status).toBe(404);
  });

  it('lists page by page at one resourceVersion with remainingItemCount, in key order', async () => {
    const ns = await namespace();
    for (let i = 0; i < 7; i++) await api.post(`/api/v1/namespaces/${ns}/configmaps`, cm(`c${i}`));
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const first = await api.get<KubeList>(`${base}?limit=3`);
    expect(first.body.items.map((o) => o.metadata.name)).toEqual(['c0', 'c1', 'c2']);
    expect(first.body.metadata.remainingItemCount).toBe(4);
    await api.post(base, cm('c1a'));
    const second = await api.get<KubeList>(
      `${base}?limit=3&continue=${encodeURIComponent(first.body.metadata.continue!)}`,
    );
    expect(second.body.items.map((o) => o.metadata.name)).toEqual(['c3', 'c4', 'c5']);
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
  });

  it('a LIST from the watch cache shows every change since the last one, though it keeps the encodings it wrote', async () => {
    const ns = await namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await api.post(base, cm('a'));
    const b = await api.post(base, cm('b'));
    const names = (list: KubeList) => list.items.map((o) => o.metadata.name);
    // resourceVersion=N is served by the watch cache once it has seen N.
    const first = await api.get<KubeList>(
      `${base}?resourceVersion=${b.body.metadata.resourceVersion}`,
    );
    expect(names(first.body)).toEqual(['a', 'b']);
    const updated = await api.put(`${base}/a`, { ...created.body, data: { k: 'v2' } });
    await api.delete(`${base}/b`);
    const c = await api.post(base, cm('c'));
    const second = await api.get<KubeList>(
      `${base}?resourceVersion=${c.body.metadata.resourceVersion}`,
    );
    expect(names(second.body)).toEqual(['a', 'c']);
    expect(second.body.items[0]).toEqual(updated.body);
    expect(second.body.items[0]!.metadata.resourceVersion).not.toBe(
      first.body.items[0]!.metadata.resourceVersion,
    );
  });

  it('rejects bad list options with the Kubernetes codes: selectors 400, option combinations 422, too-large RV 504', async () => {
    const ns = await namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    expect((await api.get<Status>(`${base}?labelSelector=a%3D%3D%3Db`)).status).toBe(400);
    const field = await api.get<Status>(`${base}?fieldSelector=spec.nodeName%3Dx`);
    expect(field.status).toBe(400);
    expect((await api.get<Status>(`${base}?resourceVersionMatch=Exact`)).status).toBe(422);
    expect((await api.get<Status>(`${base}?continue=garbage`)).status).toBe(400);
    expect((await api.get<Status>(`${base}?resourceVersion=abc`)).status).toBe(400);
    const tooLarge = await api.get<Status>(
      `${base}?resourceVersion=999999999&resourceVersionMatch=NotOlderThan`,
    );
    expect(tooLarge.status).toBe(504);
    expect(tooLarge.body.details?.causes?.[0]?.reason).toBe('ResourceVersionTooLarge');
    expect(tooLarge.headers.get('retry-after')).toBe('1');
  });

  it('watches from a list resourceVersion: exactly the later changes, then the timeout ends the stream', async () => {
    const ns = await namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    await api.post(base, cm('before'));
    const list = await api.get<KubeList>(base);
    const watch = openWatch(
      server.url,
      `${base}?watch=true&resourceVersion=${list.body.metadata.resourceVersion!}&timeoutSeconds=2`,
    );
    // No wait for the watch to connect: from a resourceVersion it replays whatever came after.
    await api.post(base, cm('after'));
    await api.patch(`${base}/after`, { data: { x: 'y' } });
    await api.delete(`${base}/after`);
    const events = await watch.take(3);
    expect(events.map((e) => `${e.type}:${(e.object as KubeObject).metadata.name}`)).toEqual([
      'ADDED:after',
      'MODIFIED:after',
      'DELETED:after',
    ]);
    await expect.poll(() => watch.ended, { timeout: 5000 }).toBe(true);
    await watch.close();
  });

  it('a watch from a compacted resourceVersion older than the watch cache is HTTP 200 with one ERROR 410 Expired event', async () => {
    // A server started on history compacted before it: its watch cache cannot reach back
    // to revision 1, and neither can storage.
    const own = await backend.make();
    const cmKey = (name: string) => `${own.prefix}/configmaps/default/${name}`;
    await own.create(cmKey('a'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'default' },
    });
    await own.create(cmKey('b'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b', namespace: 'default' },
    });
    await own.compact(await own.currentRevision());
    const compacted = await testServer(own);
    try {
      const base = '/api/v1/namespaces/default/configmaps';
      const events = await watchEvents(compacted.url, `${base}?watch=1&resourceVersion=1`, 2, 3000);
      expect(events).toHaveLength(1);
      expect(events[0]!.type).toBe('ERROR');
      expect(events[0]!.object as Status).toMatchObject({
        kind: 'Status',
        code: 410,
        reason: 'Expired',
      });
    } finally {
      await compacted.close();
    }
  });

  it('the legacy /watch/ path watches one object by name', async () => {
    const ns = await namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    await api.post(base, cm('a'));
    await api.post(base, cm('b'));
    const events = await watchEvents(
      server.url,
      `/api/v1/watch/namespaces/${ns}/configmaps/b?resourceVersion=0`,
      1,
      3000,
    );
    expect(events.map((e) => (e.object as KubeObject).metadata.name)).toEqual(['b']);
  });

  it('watch-list sends the initial state then the initial-events-end bookmark', async () => {
    const ns = await namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    await api.post(base, cm('b'));
    await api.post(base, cm('a'));
    const events = await watchEvents(
      server.url,
      `${base}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
      3,
      5000,
    );
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'BOOKMARK']);
    expect((events[2]!.object as KubeObject).metadata.annotations).toEqual({
      'k8s.io/initial-events-end': 'true',
    });
  });

  it('serves lists as a Table (kubectl’s default) and objects as CBOR when asked', async () => {
    const ns = await namespace();
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, cm('a'));
    const table = await api.get<{
      kind: string;
      columnDefinitions: { name: string }[];
      rows: { cells: unknown[] }[];
      metadata: { resourceVersion: string };
    }>(`/api/v1/namespaces/${ns}/configmaps`, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    expect(table.body.kind).toBe('Table');
    expect(table.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(table.body.rows[0]!.cells.slice(0, 2)).toEqual(['a', 1]);
    expect(table.body.metadata.resourceVersion).toMatch(/^\d+$/);
    const res = await fetch(`${server.url}/api/v1/namespaces/${ns}/configmaps/a`, {
      headers: { Accept: 'application/cbor' },
    });
    expect(res.headers.get('content-type')).toBe('application/cbor');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xd9, 0xd9, 0xf7]);
    expect(
      (
        await fetch(`${server.url}/api/v1/namespaces/${ns}/configmaps/a`, {
          headers: { Accept: 'text/html' },
        })
      ).status,
    ).toBe(406);
  });

  it('gzips a large list for a client that accepts gzip', async () => {
    const ns = await namespace();
    const big = 'x'.repeat(40_000);
    for (let i = 0; i < 5; i++)
      await api.post(`/api/v1/namespaces/${ns}/configmaps`, cm(`c${i}`, { data: { big } }));
    const res = await fetch(`${server.url}/api/v1/namespaces/${ns}/configmaps`, {
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(((await res.json()) as KubeList).items).toHaveLength(5);
  });

  it('a body over 3 MiB is 413', async () => {
    const res = await api.post<Status>(
      '/api/v1/namespaces/default/configmaps',
      cm('huge', { data: { x: 'y'.repeat(3.5 * 1024 * 1024) } }),
    );
    expect(res.status).toBe(413);
    expect(res.body.reason).toBe('RequestEntityTooLarge');
  });

  it('serves health, readiness and Prometheus metrics', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).text()).toBe('ok');
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain(
      'apiserver_request_total{verb="create",resource="configmaps",code="201"}',
    );
    expect(metrics).toContain('apiserver_watch_cache_watchers');
  });

  it('a paginated LIST and every continuation come from the watch cache (KEP-4988), counted in apiserver_cache_list_total', async () => {
    const ns = await namespace();
    let written = '';
    for (let i = 0; i < 5; i++)
      written = (await api.post<KubeObject>(`/api/v1/namespaces/${ns}/configmaps`, cm(`p${i}`)))
        .body.metadata.resourceVersion!;
    /** The sum of the samples of `name` whose labels include `labels`. */
    const sample = async (name: string, labels: string): Promise<number> => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      let sum = 0;
      for (const line of text.split('\n')) {
        if (line.startsWith(`${name}{`) && line.includes(labels)) sum += Number(line.split(' ')[1]);
      }
      return sum;
    };
    const served = () => sample('apiserver_cache_list_total', 'resource="configmaps"');
    const delegated = () =>
      sample('apiserver_watch_cache_list_delegated_total', 'resource="configmaps"');
    const [servedBefore, delegatedBefore] = [await served(), await delegated()];
    const names: string[] = [];
    let token: string | undefined;
    do {
      // Not older than the last write, rather than a consistent read: on an etcd that cannot
      // answer progress requests reliably a consistent LIST reads etcd (as kube's delegator).
      const query = `limit=2${token ? `&continue=${encodeURIComponent(token)}` : `&resourceVersion=${written}&resourceVersionMatch=NotOlderThan`}`;
      const page = await api.get<KubeList>(`/api/v1/namespaces/${ns}/configmaps?${query}`);
      names.push(...page.body.items.map((o) => o.metadata.name!));
      token = page.body.metadata.continue || undefined;
    } while (token);
    expect(names).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    expect(await served()).toBe(servedBefore + 3);
    expect(await delegated()).toBe(delegatedBefore);
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toContain('apiserver_watch_cache_snapshots');
    expect(text).toContain('apiserver_watch_cache_snapshot_memory_bytes');
  });
});
