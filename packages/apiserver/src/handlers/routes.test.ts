import { MemoryStorage } from '@listwatch/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { client, testServer } from '../testing/test-server.js';

// A subresource path exists only where its resource declares the subresource
// (endpoints/installer.go registers a route per storage the resource has): `secrets/s1/status`
// is 404 for every verb and by every path (GET, watch=true, the legacy /watch/ prefix), so a
// `*/status` grant reads no Secret. Declared subresources keep their routes. Every served
// resource is checked, as discovery lists them.

interface DiscoveredResource {
  name: string;
  namespaced: boolean;
  verbs: string[];
}

let server: RunningApiServer;
let api: ReturnType<typeof client>;
const PATH_NOT_FOUND = 'the server could not find the requested resource';

/** Every resource and its declared subresources, by API prefix (`/api/v1`, `/apis/apps/v1`). */
const served = new Map<
  string,
  { resource: DiscoveredResource; subresources: Map<string, string[]> }
>();

beforeAll(async () => {
  server = await testServer(new MemoryStorage({ compactionInterval: 0 }));
  api = client(server.url);
  const prefixes = ['/api/v1'];
  const groups = await api.get<{ groups: { versions: { groupVersion: string }[] }[] }>('/apis');
  for (const group of groups.body.groups)
    for (const version of group.versions) prefixes.push(`/apis/${version.groupVersion}`);
  for (const prefix of prefixes) {
    const list = await api.get<{ resources: DiscoveredResource[] }>(prefix);
    for (const resource of list.body.resources) {
      const [plural, sub] = resource.name.split('/');
      const key = `${prefix} ${plural!}`;
      if (sub === undefined) {
        const entry = served.get(key);
        served.set(key, { resource, subresources: entry?.subresources ?? new Map() });
      } else {
        const entry = served.get(key) ?? {
          resource: { name: plural!, namespaced: resource.namespaced, verbs: [] },
          subresources: new Map<string, string[]>(),
        };
        entry.subresources.set(sub, resource.verbs);
        served.set(key, entry);
      }
    }
  }
});

afterAll(() => server?.close());

/** The item path of `name` in a resource (namespace `default` for a namespaced one). */
function itemPath(key: string, name: string, legacyWatch = false): string {
  const [prefix, plural] = key.split(' ') as [string, string];
  const { resource } = served.get(key)!;
  const ns = resource.namespaced ? '/namespaces/default' : '';
  return `${prefix}${legacyWatch ? '/watch' : ''}${ns}/${plural}/${name}`;
}

const UNDECLARED_CANDIDATES = ['status', 'scale', 'log', 'exec', 'binding', 'finalize', 'token'];

describe('a subresource path exists only where its resource declares it (installer.go)', () => {
  it('discovery lists the served resources, pods with status, log and exec among them', () => {
    expect(served.size).toBeGreaterThan(30);
    expect([...served.get('/api/v1 pods')!.subresources.keys()].sort()).toEqual([
      'attach',
      'binding',
      'exec',
      'log',
      'portforward',
      'status',
    ]);
    expect(served.get('/api/v1 secrets')!.subresources.size).toBe(0);
  });

  it('GET, GET with watch=true and the legacy watch of an undeclared subresource are 404 on every resource', async () => {
    const failures: string[] = [];
    for (const [key, { subresources }] of served) {
      const undeclared = [
        'bogus',
        ...UNDECLARED_CANDIDATES.filter((sub) => !subresources.has(sub)),
      ];
      for (const sub of undeclared) {
        for (const path of [
          `${itemPath(key, 'x')}/${sub}`,
          `${itemPath(key, 'x')}/${sub}?watch=true`,
          `${itemPath(key, 'x', true)}/${sub}`,
        ]) {
          const res = await api.get(path);
          const message = (res.body as { message?: string } | undefined)?.message;
          if (res.status !== 404 || message !== PATH_NOT_FOUND)
            failures.push(`${path}: ${res.status} ${message ?? ''}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('secrets/s1/status does not answer the Secret, however it is asked', async () => {
    const secret = { metadata: { name: 's1' }, stringData: { k: 'v' } };
    expect((await api.post('/api/v1/namespaces/default/secrets', secret)).status).toBe(201);
    const path = '/api/v1/namespaces/default/secrets/s1/status';
    for (const res of [
      await api.get(path),
      await api.get(`${path}?watch=true`),
      await api.get('/api/v1/watch/namespaces/default/secrets/s1/status'),
      await api.put(path, { metadata: { name: 's1' } }),
      await api.patch(path, { metadata: { labels: { a: 'b' } } }),
    ]) {
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain('stringData');
      expect(JSON.stringify(res.body)).not.toContain('"data"');
    }
  });

  it('declared subresources keep their routes: a GET reaches the object (its NotFound), others 405', async () => {
    const failures: string[] = [];
    for (const [key, { subresources }] of served) {
      for (const [sub, verbs] of subresources) {
        const res = await api.get(`${itemPath(key, 'x')}/${sub}`);
        const message = (res.body as { message?: string } | undefined)?.message ?? '';
        if (verbs.includes('get')) {
          // The route exists: the object it reads is what is missing.
          if (res.status !== 404 || !message.includes('"x" not found'))
            failures.push(`GET ${key}/x/${sub}: ${res.status} ${message}`);
        } else if (res.status !== 405)
          failures.push(`GET ${key}/x/${sub}: ${res.status} ${message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('a declared status answers the object, and a named GET with watch=true the same', async () => {
    const pod = {
      metadata: { name: 'p1' },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    };
    expect((await api.post('/api/v1/namespaces/default/pods', pod)).status).toBe(201);
    for (const path of ['/status', '/status?watch=true', '?watch=true']) {
      const res = await api.get(`/api/v1/namespaces/default/pods/p1${path}`);
      expect(res.status, path).toBe(200);
      expect([res.body.kind, res.body.metadata.name], path).toEqual(['Pod', 'p1']);
    }
  });
});
