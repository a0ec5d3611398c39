import type { KubeList, KubeObject, Status } from '@listwatch/api';
import { PYTHON } from '@listwatch/testing';
import { execFile } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { e2eForFile, uniqueName } from './e2e.test-helper.js';

// DeleteOptions as kube-apiserver reads them (endpoints/handlers/delete.go): from the body when
// there is one (kubectl, the Python client and client-node send them there), else the query;
// validated by apimachinery ValidateDeleteOptions; propagation as registry/generic store.go.

const e2e = e2eForFile();
let ns: string;

beforeAll(async () => {
  ns = await e2e.api.namespace('delete');
});

const cmPath = (name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;

async function configMap(extra: KubeObject['metadata'] = {}): Promise<string> {
  const name = uniqueName('cm');
  const res = await e2e.api.post(cmPath(), { metadata: { name, ...extra }, data: { a: 'b' } });
  expect(res.status).toBe(201);
  return name;
}

/** DELETE with a JSON body, as kubectl and the typed clients send it. */
async function deleteWith(path: string, body: unknown) {
  const res = await fetch(`${e2e.server.url}${path}`, {
    method: 'DELETE',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as KubeObject & Status };
}

describe('DeleteOptions', () => {
  it('kubectl delete --dry-run=server keeps the object (dryRun in the body)', async () => {
    const name = await configMap();
    const result = await e2e.kubectl.run([
      'delete',
      'configmap',
      name,
      '-n',
      ns,
      '--dry-run=server',
    ]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/deleted \(server dry run\)/);
    expect((await e2e.api.get(cmPath(name))).status).toBe(200);
    expect((await e2e.kubectl.run(['delete', 'configmap', name, '-n', ns])).code).toBe(0);
    expect((await e2e.api.get(cmPath(name))).status).toBe(404);
  });

  it('a body dryRun keeps every object of a deletecollection', async () => {
    const names = [await configMap({ labels: { dry: 'run' } }), await configMap()];
    const res = await deleteWith(`${cmPath()}?labelSelector=dry%3Drun`, { dryRun: ['All'] });
    expect(res.status).toBe(200);
    expect((res.body as unknown as KubeList).items.map((o) => o.metadata.name)).toEqual([names[0]]);
    for (const name of names) expect((await e2e.api.get(cmPath(name))).status).toBe(200);
  });

  it('the Python client deletes nothing with V1DeleteOptions(dry_run=["All"])', async () => {
    const name = await configMap();
    const script = `
import sys
from kubernetes import client
c = client.Configuration(); c.host = sys.argv[1]
api = client.CoreV1Api(client.ApiClient(c))
api.delete_namespaced_config_map(sys.argv[3], sys.argv[2], body=client.V1DeleteOptions(dry_run=["All"]))
print("ok")
`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(PYTHON, ['-c', script, e2e.server.url, ns, name], (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(out.trim()).toBe('ok');
    expect((await e2e.api.get(cmPath(name))).status).toBe(200);
  });

  it('an unknown propagationPolicy, or one beside orphanDependents, is 422 and deletes nothing', async () => {
    const name = await configMap();
    const bogus = await deleteWith(cmPath(name), { propagationPolicy: 'Bogus' });
    expect(bogus.status).toBe(422);
    expect(bogus.body).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
    expect(bogus.body.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    const both = await deleteWith(cmPath(name), {
      propagationPolicy: 'Orphan',
      orphanDependents: true,
    });
    expect(both.status).toBe(422);
    const query = await e2e.api.delete(`${cmPath(name)}?propagationPolicy=Bogus`);
    expect(query.status).toBe(422);
    const dryRun = await deleteWith(cmPath(name), { dryRun: ['Some'] });
    expect(dryRun.status).toBe(422);
    expect((await e2e.api.get(cmPath(name))).status).toBe(200);
  });

  it('a DeleteOptions field of the wrong type is 400 and deletes nothing', async () => {
    const name = await configMap();
    for (const body of [
      { gracePeriodSeconds: 'soon' },
      { dryRun: 'All' },
      { preconditions: 5 },
      { orphanDependents: 'yes' },
      [],
    ]) {
      const res = await deleteWith(cmPath(name), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.kind).toBe('Status');
    }
    expect((await e2e.api.get(cmPath(name))).status).toBe(200);
  });

  it('preconditions in the body are checked: a uid or resourceVersion mismatch is 409', async () => {
    const name = await configMap();
    const uid = await deleteWith(cmPath(name), { preconditions: { uid: 'not-this-one' } });
    expect(uid.status).toBe(409);
    expect(uid.body.message).toMatch(/Precondition failed: UID in precondition: not-this-one/);
    const rv = await deleteWith(cmPath(name), { preconditions: { resourceVersion: '1' } });
    expect(rv.status).toBe(409);
    const current = (await e2e.api.get(cmPath(name))).body;
    const ok = await deleteWith(cmPath(name), {
      preconditions: {
        uid: current.metadata.uid,
        resourceVersion: current.metadata.resourceVersion,
      },
    });
    expect(ok.status).toBe(200);
    expect((await e2e.api.get(cmPath(name))).status).toBe(404);
  });

  it('propagationPolicy Orphan and Foreground leave the object marked with the garbage collector finalizer; Background deletes it', async () => {
    const orphan = await configMap();
    const marked = await deleteWith(cmPath(orphan), { propagationPolicy: 'Orphan' });
    expect(marked.status).toBe(200);
    expect(marked.body.metadata.finalizers).toEqual(['orphan']);
    expect(marked.body.metadata.deletionTimestamp).toBeTruthy();
    expect((await e2e.api.get(cmPath(orphan))).body.metadata.finalizers).toEqual(['orphan']);

    const foreground = await configMap();
    await deleteWith(cmPath(foreground), { propagationPolicy: 'Foreground' });
    expect((await e2e.api.get(cmPath(foreground))).body.metadata).toMatchObject({
      finalizers: ['foregroundDeletion'],
      deletionGracePeriodSeconds: 0,
    });

    const background = await configMap();
    const gone = await deleteWith(cmPath(background), { propagationPolicy: 'Background' });
    expect(gone.status).toBe(200);
    expect(gone.body).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await e2e.api.get(cmPath(background))).status).toBe(404);

    // kubectl --cascade=orphan sends propagationPolicy Orphan in the body.
    const viaKubectl = await configMap();
    const result = await e2e.kubectl.run([
      'delete',
      'configmap',
      viaKubectl,
      '-n',
      ns,
      '--cascade=orphan',
      '--wait=false',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect((await e2e.api.get(cmPath(viaKubectl))).body.metadata.finalizers).toEqual(['orphan']);
  });

  it('an object with finalizers is only marked (deletionTimestamp, grace 0) and goes when an update removes the last one', async () => {
    const name = await configMap({ finalizers: ['example.com/a', 'example.com/b'] });
    const marked = await deleteWith(cmPath(name), {});
    expect(marked.status).toBe(200);
    expect(marked.body.metadata).toMatchObject({
      finalizers: ['example.com/a', 'example.com/b'],
      deletionGracePeriodSeconds: 0,
    });
    const first = await e2e.api.patch(cmPath(name), {
      metadata: { finalizers: ['example.com/b'] },
    });
    expect(first.status).toBe(200);
    expect((await e2e.api.get(cmPath(name))).body.metadata.deletionTimestamp).toBe(
      marked.body.metadata.deletionTimestamp,
    );
    const last = await e2e.api.patch(cmPath(name), { metadata: { finalizers: [] } });
    expect(last.status).toBe(200);
    expect((await e2e.api.get(cmPath(name))).status).toBe(404);
  });

  it('a deletecollection with propagationPolicy Orphan marks every object it selects with the orphan finalizer', async () => {
    const names = [
      await configMap({ labels: { batch: 'orphan' } }),
      await configMap({ labels: { batch: 'orphan' } }),
    ];
    const res = await deleteWith(`${cmPath()}?labelSelector=batch%3Dorphan`, {
      propagationPolicy: 'Orphan',
    });
    expect(res.status).toBe(200);
    for (const name of names) {
      const got = (await e2e.api.get(cmPath(name))).body;
      expect(got.metadata.finalizers).toEqual(['orphan']);
      expect(got.metadata.deletionTimestamp).toBeTruthy();
    }
  });

  it('orphanDependents: false on an object kept by finalizers answers 202 Accepted', async () => {
    const name = await configMap({ finalizers: ['example.com/keep'] });
    const res = await deleteWith(cmPath(name), { orphanDependents: false });
    expect(res.status).toBe(202);
    expect(res.body.metadata.deletionTimestamp).toBeTruthy();
    expect(res.body.metadata.finalizers).toEqual(['example.com/keep']);
  });
});

describe('NamespaceLifecycle', () => {
  it.each(['default', 'kube-system', 'kube-public'])(
    'kubectl delete namespace %s is Forbidden and the namespace stays Active',
    async (name) => {
      const result = await e2e.kubectl.run(['delete', 'namespace', name, '--wait=false']);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(
        `namespaces "${name}" is forbidden: this namespace may not be deleted`,
      );
      const dryRun = await e2e.api.delete(`/api/v1/namespaces/${name}?dryRun=All`);
      expect(dryRun.status).toBe(403);
      const got = await e2e.api.get(`/api/v1/namespaces/${name}`);
      expect(got.body.metadata.deletionTimestamp).toBeUndefined();
      expect(got.body['status']).toEqual({ phase: 'Active' });
    },
  );
});
