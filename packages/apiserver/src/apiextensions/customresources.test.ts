import type { KubeObject, Status } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { openWatch, serverForFile } from '../testing/test-server.js';
import { foo, fooCrd, waitServed } from './crd.test-helper.js';
import type { CustomResourceDefinition } from './types.js';

const f = serverForFile('crd');
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

describe('CustomResourceDefinitions (apiextensions-apiserver customresource_handler.go)', () => {
  it('a created CRD gets NamesAccepted and Established and its resource is served', async () => {
    const crd = fooCrd({ group: 'a.example.com' });
    const created = await f.api.post<CustomResourceDefinition>(CRDS, crd);
    expect(created.status).toBe(201);
    expect(created.body.status?.storedVersions).toEqual(['v1']);
    await waitServed(f.api, crd);
    const got = await f.api.get<CustomResourceDefinition>(`${CRDS}/foos.a.example.com`);
    const types = got.body.status?.conditions?.map((c) => [c.type, c.status, c.reason]);
    expect(types).toEqual(
      expect.arrayContaining([
        ['NamesAccepted', 'True', 'NoConflicts'],
        ['Established', 'True', 'InitialNamesAccepted'],
      ]),
    );
    expect(got.body.status?.acceptedNames?.kind).toBe('Foo');
    const ns = await f.namespace();
    const path = `/apis/a.example.com/v1/namespaces/${ns}/foos`;
    const made = await f.api.post(path, foo('one', { deploymentName: 'd' }, 'a.example.com'));
    expect(made.status).toBe(201);
    expect(made.body.metadata.generation).toBe(1);
    const list = await f.api.get<{ items: KubeObject[]; kind: string }>(path);
    expect(list.body.kind).toBe('FooList');
    expect(list.body.items.map((i) => i.metadata.name)).toEqual(['one']);
  });
});
